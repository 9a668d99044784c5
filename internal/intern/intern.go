// Package intern shares the repeated strings and label sets of cached objects.
//
// Every object an informer decodes gets its own copy of each string: the namespace, the
// partner, the asset ids, the status words and condition messages of 10,000 live orders are
// 10,000 copies of a few dozen values. A cache transform (cache.ByObject.Transform) that
// interns them keeps one copy each (unique.Make: held weakly, dropped when no object uses the
// value any more). The decoded copies become garbage at once.
//
// Only low-cardinality fields are worth interning: an order id, an address or an amount is
// unique (or nearly), and interning it would only add a table entry.
package intern

import (
	"slices"
	"strings"
	"sync"
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

var stripManagedFields = cache.TransformStripManagedFields()

// CacheTransform is the manager's default cache transform: managed fields (never read here, a
// large share of each object) stripped from every object, and the repeated fields of
// SwapOrders and WebhookDeliveries interned.
func CacheTransform(obj any) (any, error) {
	obj, err := stripManagedFields(obj)
	if err != nil {
		return nil, err
	}
	switch o := obj.(type) {
	case *swapv1.SwapOrder:
		SwapOrder(o)
	case *swapv1.WebhookDelivery:
		WebhookDelivery(o)
	}
	return obj, nil
}

// SwapOrder interns an order's repeated fields: its partner, assets, provider, the status
// words of its status and history, and its conditions.
func SwapOrder(o *swapv1.SwapOrder) {
	String(&o.APIVersion)
	String(&o.Kind)
	Meta(&o.ObjectMeta)
	spec := &o.Spec
	String(&spec.Partner)
	String(&spec.OriginAsset)
	String(&spec.DestinationAsset)
	String(&spec.SwapType)
	String(&spec.ProviderID)
	quote(spec.Quote)
	if spec.PartnerFee != nil {
		String(&spec.PartnerFee.Recipient)
	}
	st := &o.Status
	String(&st.Status)
	String(&st.StatusReason)
	String(&st.Substatus)
	String(&st.ProviderStatus)
	quote(st.Quote)
	for i := range st.History {
		t := &st.History[i]
		String(&t.Status)
		String(&t.PreviousStatus)
		String(&t.Reason)
		String(&t.Substatus)
	}
	for i := range st.Conditions {
		Condition(&st.Conditions[i])
	}
}

func quote(q *swapv1.QuoteCandidate) {
	if q == nil {
		return
	}
	String(&q.ProviderID)
	for i := range q.Fees {
		String(&q.Fees[i].Type)
		String(&q.Fees[i].Asset)
	}
}

// WebhookDelivery interns a delivery's repeated fields: its partner, phase and reason, the
// errors of its attempts and its conditions.
func WebhookDelivery(d *swapv1.WebhookDelivery) {
	String(&d.APIVersion)
	String(&d.Kind)
	Meta(&d.ObjectMeta)
	String(&d.Spec.Partner)
	st := &d.Status
	String(&st.Phase)
	String(&st.Reason)
	for i := range st.Attempts {
		String(&st.Attempts[i].Error)
	}
	for i := range st.Conditions {
		Condition(&st.Conditions[i])
	}
}

// String replaces *s with its canonical copy.
func String[S ~string](s *S) {
	if *s != "" {
		*s = S(unique.Make(string(*s)).Value())
	}
}

// Condition interns a condition's words: its type, status, reason and message come from a
// small set the controllers write.
func Condition(c *metav1.Condition) {
	String(&c.Type)
	String(&c.Status)
	String(&c.Reason)
	String(&c.Message)
}

// Meta interns the metadata shared by the objects of one kind in one namespace: namespace,
// labels (see Labels), finalizers and owner kinds.
func Meta(m *metav1.ObjectMeta) {
	String(&m.Namespace)
	m.Labels = Labels(m.Labels)
	for i := range m.Finalizers {
		String(&m.Finalizers[i])
	}
	for i := range m.OwnerReferences {
		String(&m.OwnerReferences[i].APIVersion)
		String(&m.OwnerReferences[i].Kind)
	}
}

// maxLabelSets bounds the label-set table: label sets are few (a partner label, an archived
// mark), but a table keyed by data the API server hands over must not grow without limit.
const maxLabelSets = 4096

var labelSets = struct {
	sync.Mutex
	byKey map[string]map[string]string
}{byKey: map[string]map[string]string{}}

// Labels returns one shared map for every equal label set, so the cache holds each set once
// instead of one map per object (a map is a few hundred bytes even with one entry). Sharing is
// safe because cached objects are read-only: the cache hands out deep copies, and event
// handlers and UnsafeDisableDeepCopy lists must not write to what they are given (the same
// rule controller-runtime sets). Past maxLabelSets distinct sets, new sets are not shared.
func Labels(labels map[string]string) map[string]string {
	if len(labels) == 0 {
		return labels
	}
	key := labelSetKey(labels)
	labelSets.Lock()
	defer labelSets.Unlock()
	if shared, ok := labelSets.byKey[key]; ok {
		return shared
	}
	if len(labelSets.byKey) >= maxLabelSets {
		return labels
	}
	labelSets.byKey[key] = labels
	return labels
}

// labelSetKey encodes a label set unambiguously: label keys and values hold no NUL byte.
func labelSetKey(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(labels[k])
		b.WriteByte(0)
	}
	return b.String()
}
