package intern

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// decoded is an order as an informer hands it over: freshly decoded, every string its own.
func decoded(t *testing.T, name string) *swapv1.SwapOrder {
	t.Helper()
	o := &swapv1.SwapOrder{
		TypeMeta: metav1.TypeMeta{APIVersion: "swap.swaprouter.dev/v1alpha1", Kind: "SwapOrder"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "swaprouter-dev",
			Labels:        map[string]string{"swap.swaprouter.dev/partner": "demo"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "swaprouter", Operation: metav1.ManagedFieldsOperationUpdate}}},
		Spec: swapv1.SwapOrderSpec{OrderID: name, Partner: "demo", OriginAsset: "eip155:1/slip44:60",
			DestinationAsset: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", ProviderID: "route_A",
			Amount: "100000000000000000", Sender: "0x1111111111111111111111111111111111111111"},
		Status: swapv1.SwapOrderStatus{Status: swapv1.OrderPending, StatusReason: "AwaitingDeposit",
			Substatus: "AWAITING_DEPOSIT", ProviderStatus: "PENDING_DEPOSIT",
			DepositAddress: "0x5b6965f946c2b6f4b54bae9468507e57514bbf4a",
			Quote: &swapv1.QuoteCandidate{ProviderID: "route_A", AmountOut: "1982666666",
				Fees: []swapv1.Fee{{Type: "protocol", Asset: "eip155:1/slip44:60", Amount: "1"}}},
			History: []swapv1.StatusTransition{{Seq: 1, Status: swapv1.OrderPending, Reason: "DepositAddressIssued", Substatus: "AWAITING_DEPOSIT"}},
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Pending",
				Message: "order is PENDING: AwaitingDeposit"}}},
	}
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	out := &swapv1.SwapOrder{}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameBytes(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestCacheTransformKeepsContent: the cached order reads exactly as decoded, without managed
// fields; two orders share their repeated strings and label set, never their own ids.
func TestCacheTransformKeepsContent(t *testing.T) {
	a, b := decoded(t, "ord-a"), decoded(t, "ord-b")
	want := a.DeepCopy()
	want.ManagedFields = nil
	for _, o := range []*swapv1.SwapOrder{a, b} {
		if _, err := CacheTransform(o); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("the transform changed the order:\n got %+v\nwant %+v", a, want)
	}
	for field, pair := range map[string][2]string{
		"namespace":         {a.Namespace, b.Namespace},
		"partner":           {a.Spec.Partner, b.Spec.Partner},
		"destination asset": {a.Spec.DestinationAsset, b.Spec.DestinationAsset},
		"status reason":     {a.Status.StatusReason, b.Status.StatusReason},
		"history reason":    {a.Status.History[0].Reason, b.Status.History[0].Reason},
		"condition message": {a.Status.Conditions[0].Message, b.Status.Conditions[0].Message},
		"fee asset":         {a.Status.Quote.Fees[0].Asset, b.Status.Quote.Fees[0].Asset},
	} {
		if !sameBytes(pair[0], pair[1]) {
			t.Errorf("%s %q is held twice", field, pair[0])
		}
	}
	if !sameMap(a.Labels, b.Labels) {
		t.Error("equal label sets are held twice")
	}
	if sameBytes(a.Spec.Sender, b.Spec.Sender) {
		t.Error("a per-order field was interned")
	}
}

func TestLabels(t *testing.T) {
	x := Labels(map[string]string{"p": "x", "archived": "true"})
	if !sameMap(x, Labels(map[string]string{"archived": "true", "p": "x"})) {
		t.Error("equal sets not shared")
	}
	// No two different sets may ever be confused, whatever their text.
	if sameMap(Labels(map[string]string{"a": "b\x00c"}), Labels(map[string]string{"a": "b", "c": ""})) {
		t.Error("different sets shared")
	}
	if sameMap(x, Labels(map[string]string{"p": "y", "archived": "true"})) {
		t.Error("sets with different values shared")
	}
	if Labels(nil) != nil {
		t.Error("nil labels became a map")
	}
}

// TestLabelsBounded: the table stops growing at maxLabelSets; sets past it stay unshared.
func TestLabelsBounded(t *testing.T) {
	for i := range maxLabelSets + 10 {
		Labels(map[string]string{"bound": strconv.Itoa(i)})
	}
	labelSets.Lock()
	n := len(labelSets.byKey)
	labelSets.Unlock()
	if n != maxLabelSets {
		t.Fatalf("%d label sets held, bound %d", n, maxLabelSets)
	}
	past := map[string]string{"past": "bound"}
	if got := Labels(past); !sameMap(got, past) || sameMap(Labels(map[string]string{"past": "bound"}), past) {
		t.Error("a set past the bound was shared")
	}
}
