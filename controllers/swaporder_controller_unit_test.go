package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/providerset"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// fakeProvider answers from fields the test sets and counts calls.
type fakeProvider struct {
	mu        sync.Mutex
	createErr error
	status    provider.Status
	statusErr error
	submitErr error
	creates   int
	polls     int
	submits   []string
}

func (f *fakeProvider) ID() swapv1.ProviderID { return swapv1.ProviderRouteA }

// IdempotentCreate: like both real providers, every create hands out a new address.
func (f *fakeProvider) IdempotentCreate() bool { return false }
func (f *fakeProvider) Assets(context.Context) ([]provider.Asset, error) {
	return nil, nil
}
func (f *fakeProvider) Quote(context.Context, provider.QuoteRequest) (provider.Quote, error) {
	return provider.Quote{}, nil
}

func (f *fakeProvider) CreateDeposit(_ context.Context, req provider.DepositRequest) (provider.Deposit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates++
	if f.createErr != nil {
		return provider.Deposit{}, f.createErr
	}
	return provider.Deposit{
		DepositAddress: fmt.Sprintf("0xdeposit-%s-%d", req.OrderID, f.creates),
		ProviderRef:    fmt.Sprintf("ref-%s-%d", req.OrderID, f.creates),
		Deadline:       unitStart.Add(time.Hour),
		Quote:          provider.Quote{ProviderID: swapv1.ProviderRouteA, AmountIn: req.Amount, AmountOut: "990"},
	}, nil
}

func (f *fakeProvider) Status(context.Context, provider.OrderRef) (provider.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	return f.status, f.statusErr
}

func (f *fakeProvider) SubmitDeposit(_ context.Context, _ provider.OrderRef, h swapv1.DepositHint) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submits = append(f.submits, h.TxHash)
	return f.submitErr
}

var unitStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// unitRig is a reconciler on a fake client with a hand-driven clock.
type unitRig struct {
	t     *testing.T
	c     client.Client
	r     *SwapOrderReconciler
	p     *fakeProvider
	rec   *events.FakeRecorder
	now   time.Time
	key   client.ObjectKey
	steps int
	// last is the result of the latest reconcile: its RequeueAfter is the next poll.
	last ctrl.Result
}

func newUnitRig(t *testing.T, objs ...client.Object) *unitRig {
	t.Helper()
	order := &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: "ord-aaaaaaaaaaaaaaaaaaaaaaaaaa", Namespace: "ns", Generation: 1,
			CreationTimestamp: metav1.NewTime(unitStart)},
		Spec: swapv1.SwapOrderSpec{
			OrderID: "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa", Partner: "acme", ProviderID: swapv1.ProviderRouteA,
			OriginAsset: "eip155:1/slip44:60", DestinationAsset: "eip155:42161/slip44:60", Amount: "1000",
			SwapType: swapv1.ExactInput, Sender: "0xsender", Recipient: "0xrecipient",
		},
	}
	b := fake.NewClientBuilder().WithScheme(scheme.New())
	index.Each(func(obj client.Object, field string, extract client.IndexerFunc) {
		b = b.WithIndex(obj, field, extract)
	})
	c := b.WithObjects(append(objs, order)...).
		WithStatusSubresource(&swapv1.SwapOrder{}).Build()
	rig := &unitRig{t: t, c: c, p: &fakeProvider{}, rec: events.NewFakeRecorder(100), now: unitStart,
		key: client.ObjectKeyFromObject(order)}
	set := providerset.New()
	set.Put(swapv1.ProviderRouteA, providerset.Entry{Provider: rig.p, Enabled: true, PollMin: 10 * time.Second, PollMax: 15 * time.Second})
	rig.r = &SwapOrderReconciler{Client: c, Scheme: c.Scheme(), Recorder: rig.rec, Providers: set,
		Now: func() time.Time { return rig.now }, Rand: func() float64 { return 0.4 }}
	rig.r.applyDefaults()
	return rig
}

// step runs one reconcile and returns its result.
func (g *unitRig) step() ctrl.Result {
	g.t.Helper()
	g.steps++
	res, err := g.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: g.key})
	if err != nil {
		g.t.Fatalf("reconcile %d: %v", g.steps, err)
	}
	g.last = res
	return res
}

// settle reconciles while the reconciler asks to come back at once (emission and the like),
// and returns the first result that waits.
func (g *unitRig) settle() ctrl.Result {
	g.t.Helper()
	for range 10 {
		if res := g.step(); res.RequeueAfter != nextStepNow {
			return res
		}
	}
	g.t.Fatal("reconciler keeps asking to come back at once")
	return ctrl.Result{}
}

func (g *unitRig) order() *swapv1.SwapOrder {
	g.t.Helper()
	o := &swapv1.SwapOrder{}
	if err := g.c.Get(context.Background(), g.key, o); err != nil {
		g.t.Fatalf("get order: %v", err)
	}
	return o
}

// advanceToPoll moves the clock to the order's next poll: the requeue the last reconcile
// asked for (nextPollAt in the API is only rewritten along with a real change).
func (g *unitRig) advanceToPoll() {
	g.t.Helper()
	if g.last.RequeueAfter <= nextStepNow {
		g.t.Fatal("no next poll scheduled")
	}
	g.now = g.now.Add(g.last.RequeueAfter)
}

func (g *unitRig) history() string {
	var parts []string
	for _, h := range g.order().Status.History {
		parts = append(parts, fmt.Sprintf("%d:%s:%s", h.Seq, h.Status, h.Reason))
	}
	return strings.Join(parts, " ")
}

func condition(o *swapv1.SwapOrder, typ string) metav1.Condition {
	if c := meta.FindStatusCondition(o.Status.Conditions, typ); c != nil {
		return *c
	}
	return metav1.Condition{}
}

func TestUnitDepositAddressThenLifecycle(t *testing.T) {
	g := newUnitRig(t)
	res := g.settle()
	o := g.order()
	if o.Status.Status != swapv1.OrderPending || o.Status.DepositAddress != "0xdeposit-ord_aaaaaaaaaaaaaaaaaaaaaaaaaa-1" ||
		o.Status.ProviderRef == "" || o.Status.DepositDeadline == nil || o.Status.Quote == nil {
		t.Fatalf("after create: %+v", o.Status)
	}
	if o.Status.Substatus != swapv1.SubstatusAwaitingDeposit || o.Status.History[0].Substatus != swapv1.SubstatusAwaitingDeposit {
		t.Fatalf("substatus %q, history %+v; want AWAITING_DEPOSIT", o.Status.Substatus, o.Status.History)
	}
	if want := 12 * time.Second; res.RequeueAfter != want || !o.Status.NextPollAt.Equal(&metav1.Time{Time: unitStart.Add(want)}) {
		t.Fatalf("next poll in %v at %v, want %v", res.RequeueAfter, o.Status.NextPollAt, want)
	}
	if c := condition(o, swapv1.ConditionReady); c.Status != metav1.ConditionTrue || c.ObservedGeneration != 1 {
		t.Fatalf("Ready = %+v", c)
	}
	if o.Status.NotifiedSeq != 1 {
		t.Fatalf("notifiedSeq = %d (no partner: advanced without deliveries)", o.Status.NotifiedSeq)
	}

	// Nothing due: waiting, no call.
	if res := g.step(); res.RequeueAfter != 12*time.Second || g.p.polls != 0 {
		t.Fatalf("idle reconcile polled or mis-scheduled: %v, polls %d", res, g.p.polls)
	}

	g.p.status = provider.Status{Status: swapv1.OrderProcessing, Raw: "PROCESSING", Reason: "DepositSeen", InTxHashes: []string{"0xin"}}
	g.advanceToPoll()
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderProcessing, Raw: "PROCESSING", Reason: "Swapping", InTxHashes: []string{"0xin"}}
	g.advanceToPoll()
	g.settle()
	if o := g.order(); o.Status.StatusReason != "Swapping" || o.Status.LastSeq != 2 || o.Status.ProviderStatus != "PROCESSING" {
		t.Fatalf("finer provider step: %+v", o.Status)
	}
	g.p.status = provider.Status{Status: swapv1.OrderSuccess, Raw: "SUCCESS", Reason: "Settled",
		InTxHashes: []string{"0xin"}, OutTxHashes: []string{"0xout"}, AmountIn: "1000", AmountOut: "990"}
	g.advanceToPoll()
	res = g.settle()

	o = g.order()
	if got, want := g.history(), "1:PENDING:DepositAddressIssued 2:PROCESSING:DepositSeen 3:SUCCESS:Settled"; got != want {
		t.Fatalf("history %q, want %q", got, want)
	}
	if o.Status.ProviderStatus != "SUCCESS" || o.Status.OutTxHashes[0] != "0xout" || o.Status.AmountOut != "990" || o.Status.NextPollAt != nil {
		t.Fatalf("terminal status: %+v", o.Status)
	}
	if res.RequeueAfter != 0 {
		t.Fatalf("terminal order without an archive requeued in %v; it should rest", res.RequeueAfter)
	}
	if c := condition(o, swapv1.ConditionReconciling); c.Status != metav1.ConditionFalse {
		t.Fatalf("Reconciling on a terminal order: %+v", c)
	}
	events := drain(g.rec)
	for _, want := range []string{"Normal Pending NEW -> PENDING: DepositAddressIssued", "Normal Processing PENDING -> PROCESSING: DepositSeen", "Normal Success PROCESSING -> SUCCESS: Settled"} {
		if !strings.Contains(events, want) {
			t.Errorf("events lack %q:\n%s", want, events)
		}
	}

	// Terminal is final: a provider changing its mind is never asked.
	g.p.status = provider.Status{Status: swapv1.OrderRefunded}
	polls := g.p.polls
	g.now = g.now.Add(time.Hour)
	g.step()
	if g.p.polls != polls || g.order().Status.Status != swapv1.OrderSuccess {
		t.Fatal("terminal order polled or changed")
	}
}

func drain(rec *events.FakeRecorder) string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return strings.Join(out, "\n")
		}
	}
}

func TestUnitCreateRefusedFails(t *testing.T) {
	tests := []struct {
		kind   provider.Kind
		reason string
	}{
		{provider.KindAmountTooLow, orders.ReasonAmountTooLow},
		{provider.KindAmountTooHigh, orders.ReasonAmountTooHigh},
		{provider.KindUnsupportedPair, orders.ReasonUnsupportedPair},
		{provider.KindRefused, orders.ReasonProviderRefused},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			g := newUnitRig(t)
			g.p.createErr = &provider.Error{Kind: tt.kind, Detail: "no"}
			g.settle()
			o := g.order()
			if o.Status.Status != swapv1.OrderFailed || o.Status.StatusReason != tt.reason || g.history() != "1:FAILED:"+tt.reason {
				t.Fatalf("status %+v", o.Status)
			}
			if o.Status.DepositAddress != "" || g.p.creates != 1 {
				t.Fatalf("address %q after %d creates", o.Status.DepositAddress, g.p.creates)
			}
		})
	}
}

func TestUnitCreateRetriesTransientFailures(t *testing.T) {
	g := newUnitRig(t)
	g.p.createErr = &provider.Error{Kind: provider.KindUpstream, Detail: "503"}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		if res := g.step(); res.RequeueAfter != want {
			t.Fatalf("retry %d after %v, want %v", i+1, res.RequeueAfter, want)
		}
		o := g.order()
		if o.Status.Status != "" || o.Status.ProviderErrors != int32(i+1) {
			t.Fatalf("after failure %d: %+v", i+1, o.Status)
		}
		if c := condition(o, swapv1.ConditionReconciling); c.Status != metav1.ConditionTrue || c.Reason != "ProviderUnavailable" {
			t.Fatalf("Reconciling = %+v", c)
		}
	}
	g.p.createErr = nil
	g.settle()
	if o := g.order(); o.Status.Status != swapv1.OrderPending || o.Status.ProviderErrors != 0 || g.p.creates != 4 {
		t.Fatalf("after recovery: %+v, %d creates", o.Status, g.p.creates)
	}
}

// A provider without idempotency may have created an address whose answer never made it into
// status; the order still shows exactly one address, and the lost ones are counted.
func TestUnitLostCreateAnswersAreCounted(t *testing.T) {
	unshown := func(reason string) float64 {
		return testutil.ToFloat64(unshownAddressesTotal.WithLabelValues(string(swapv1.ProviderRouteA), reason))
	}
	writeFailed, answerLost := unshown(unshownStatusWriteFailed), unshown(unshownAnswerLost)
	g := newUnitRig(t)

	// A 503 is an answer: nothing was created.
	g.p.createErr = &provider.Error{Kind: provider.KindUpstream, Detail: "503", RetryAfter: 30 * time.Second}
	if res := g.step(); res.RequeueAfter != 30*time.Second {
		t.Fatalf("retry after %v; want the provider's Retry-After", res.RequeueAfter)
	}
	// A timeout after the request left: the provider may have created an address.
	g.p.createErr = &provider.Error{Kind: provider.KindTimeout, Detail: "no answer in time"}
	g.step()
	if got := unshown(unshownAnswerLost) - answerLost; got != 1 {
		t.Fatalf("answer_lost counted %v; want 1", got)
	}

	// The provider answers, but the status write fails: that address is never shown.
	g.p.createErr = nil
	var failNext atomic.Bool
	failNext.Store(true)
	g.r.Client = interceptor.NewClient(g.c.(client.WithWatch), interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if failNext.Swap(false) {
				return errors.New("injected: status write failed")
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
	if _, err := g.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: g.key}); err == nil {
		t.Fatal("a failed status write was not reported")
	}
	if o := g.order(); o.Status.DepositAddress != "" || unshown(unshownStatusWriteFailed)-writeFailed != 1 {
		t.Fatalf("address %q shown, status_write_failed counted %v", o.Status.DepositAddress, unshown(unshownStatusWriteFailed)-writeFailed)
	}
	g.settle()
	if o := g.order(); o.Status.DepositAddress != "0xdeposit-ord_aaaaaaaaaaaaaaaaaaaaaaaaaa-4" || g.p.creates != 4 {
		t.Fatalf("address %q after %d creates; want the fourth", o.Status.DepositAddress, g.p.creates)
	}
}

func TestUnitMissingProviderStalls(t *testing.T) {
	g := newUnitRig(t)
	g.r.Providers = providerset.New()
	if res := g.step(); res.RequeueAfter != time.Second {
		t.Fatalf("requeue %v", res.RequeueAfter)
	}
	o := g.order()
	if c := condition(o, swapv1.ConditionStalled); c.Status != metav1.ConditionTrue || c.Reason != orders.ReasonProviderNotConfigured {
		t.Fatalf("Stalled = %+v", c)
	}
	// The same problem again rewrites nothing but the attempt counter.
	before := o.Status.Conditions
	g.step()
	if after := g.order().Status.Conditions; !equalConditions(before, after) {
		t.Fatalf("conditions churn: %+v -> %+v", before, after)
	}
}

func TestUnitProviderDisabledFails(t *testing.T) {
	g := newUnitRig(t)
	e, _ := g.r.Providers.Get(swapv1.ProviderRouteA)
	e.Enabled = false
	g.r.Providers.Put(swapv1.ProviderRouteA, e)
	g.settle()
	if got := g.history(); got != "1:FAILED:ProviderDisabled" || g.p.creates != 0 {
		t.Fatalf("history %q, creates %d", got, g.p.creates)
	}
}

func equalConditions(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestUnitUnknownAndBack(t *testing.T) {
	g := newUnitRig(t)
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderPending, Raw: "PENDING_DEPOSIT"}
	g.p.statusErr = &provider.Error{Kind: provider.KindTimeout}
	var delays []time.Duration
	for range 5 {
		g.advanceToPoll()
		before := g.now
		g.settle()
		delays = append(delays, g.order().Status.NextPollAt.Sub(before))
	}
	if got := g.history(); got != "1:PENDING:DepositAddressIssued 2:UNKNOWN:ProviderUnreachable" {
		t.Fatalf("history %q", got)
	}
	// Failed polls back off from the poll interval: 12 s jittered, then 20 s, 40 s, ...
	if want := []time.Duration{12 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second}; fmt.Sprint(delays) != fmt.Sprint(want) {
		t.Fatalf("poll delays %v, want %v", delays, want)
	}
	if c := condition(g.order(), swapv1.ConditionStalled); c.Status != metav1.ConditionTrue {
		t.Fatalf("Stalled = %+v", c)
	}

	g.p.statusErr = nil
	g.p.status = provider.Status{Status: swapv1.OrderProcessing, Raw: "PROCESSING", Reason: "DepositSeen"}
	g.advanceToPoll()
	g.settle()
	if got := g.history(); !strings.HasSuffix(got, "3:PROCESSING:DepositSeen") {
		t.Fatalf("history %q", got)
	}
	o := g.order()
	if o.Status.ProviderErrors != 0 || condition(o, swapv1.ConditionStalled).Status != metav1.ConditionFalse {
		t.Fatalf("after recovery: %+v", o.Status)
	}

	g.p.statusErr = &provider.Error{Kind: provider.KindNotFound}
	g.advanceToPoll()
	g.settle()
	if got := g.history(); !strings.HasSuffix(got, "4:UNKNOWN:OrderNotFoundAtProvider") {
		t.Fatalf("history %q", got)
	}
}

func TestUnitDepositExpires(t *testing.T) {
	g := newUnitRig(t)
	e, _ := g.r.Providers.Get(swapv1.ProviderRouteA)
	e.PollMin, e.PollMax = 7*time.Minute, 7*time.Minute // few polls to reach the expiry
	g.r.Providers.Put(swapv1.ProviderRouteA, e)
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderPending, Raw: "PENDING_DEPOSIT"}
	deadline := g.order().Status.DepositDeadline.Time
	expiry := deadline.Add(DefaultExpiryGrace)
	for g.order().Status.Status == swapv1.OrderPending {
		g.advanceToPoll()
		if g.now.After(expiry) {
			t.Fatalf("poll at %v skipped the expiry at %v", g.now, expiry)
		}
		g.settle()
	}
	if !g.now.Equal(expiry) {
		t.Fatalf("expired at %v, want exactly deadline+grace %v", g.now, expiry)
	}
	if got := g.history(); got != "1:PENDING:DepositAddressIssued 2:FAILED:DepositExpired" {
		t.Fatalf("history %q", got)
	}
}

func TestUnitHintForwardedOnce(t *testing.T) {
	g := newUnitRig(t)
	g.settle()
	o := g.order()
	o.Spec.DepositHint = &swapv1.DepositHint{TxHash: "0xhint"}
	o.Generation = 2
	if err := g.c.Update(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	g.p.status = provider.Status{Status: swapv1.OrderProcessing, Raw: "PROCESSING", Reason: "DepositSeen"}
	g.settle()
	g.step()
	g.settle()
	if fmt.Sprint(g.p.submits) != "[0xhint]" {
		t.Fatalf("submits %v, want exactly one", g.p.submits)
	}
	o = g.order()
	if o.Status.ForwardedTxHash != "0xhint" || o.Status.Status != swapv1.OrderProcessing || o.Status.ObservedGeneration != 2 {
		t.Fatalf("after hint: %+v", o.Status)
	}
	if g.p.polls != 1 {
		t.Fatalf("hint did not trigger exactly one immediate poll: %d", g.p.polls)
	}
}

func TestUnitEmission(t *testing.T) {
	partner := func(enabled bool) *swapv1.Partner {
		return &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: "ns"},
			Spec: swapv1.PartnerSpec{Webhook: &swapv1.PartnerWebhook{URL: "https://example.com/hook", Enabled: enabled,
				SecretRef: swapv1.SecretKeyRef{Name: "s", Key: "k"}}}}
	}
	for _, enabled := range []bool{true, false} {
		t.Run(fmt.Sprint("enabled=", enabled), func(t *testing.T) {
			g := newUnitRig(t, partner(enabled))
			g.settle()
			g.p.status = provider.Status{Status: swapv1.OrderSuccess, Raw: "SUCCESS", OutTxHashes: []string{"0xout"}}
			g.advanceToPoll()
			g.settle()
			g.settle()
			var list swapv1.WebhookDeliveryList
			if err := g.c.List(context.Background(), &list, client.InNamespace("ns")); err != nil {
				t.Fatal(err)
			}
			o := g.order()
			if o.Status.NotifiedSeq != 2 {
				t.Fatalf("notifiedSeq %d, want 2", o.Status.NotifiedSeq)
			}
			want := 0
			if enabled {
				want = 2
			}
			if len(list.Items) != want {
				t.Fatalf("%d deliveries, want %d", len(list.Items), want)
			}
			for i, d := range list.Items {
				owner := metav1.GetControllerOf(&d)
				if d.Spec.Sequence != int64(i+1) || owner == nil || owner.Name != o.Name {
					t.Fatalf("delivery %d: seq %d owner %+v", i, d.Spec.Sequence, owner)
				}
			}
		})
	}
}

// A crash after the delivery was created but before notifiedSeq was written repeats the
// emission: AlreadyExists, no second delivery.
func TestUnitEmissionRepeatIsHarmless(t *testing.T) {
	p := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: "ns"},
		Spec: swapv1.PartnerSpec{Webhook: &swapv1.PartnerWebhook{URL: "https://example.com/hook", Enabled: true,
			SecretRef: swapv1.SecretKeyRef{Name: "s", Key: "k"}}}}
	g := newUnitRig(t, p)
	g.step() // create: PENDING seq 1 written, not yet notified
	g.step() // emit: delivery created, notifiedSeq 1
	o := g.order()
	o.Status.NotifiedSeq = 0 // as if the status write of the emission was lost
	if err := g.c.Status().Update(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	g.settle()
	var list swapv1.WebhookDeliveryList
	if err := g.c.List(context.Background(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || g.order().Status.NotifiedSeq != 1 {
		t.Fatalf("%d deliveries, notifiedSeq %d", len(list.Items), g.order().Status.NotifiedSeq)
	}
}

func TestOrderWriteGuard(t *testing.T) {
	key := client.ObjectKey{Namespace: "ns", Name: "o"}
	var g orderWriteGuard
	if g.stale(key, "1") {
		t.Fatal("stale without any write")
	}
	g.wrote(key, "1", "2") // annotation patch
	g.wrote(key, "2", "3") // status patch in the same pass
	for _, v := range []string{"1", "2"} {
		if !g.stale(key, v) {
			t.Fatalf("version %s not stale after our writes", v)
		}
	}
	if g.stale(key, "3") {
		t.Fatal("our own newest version is stale")
	}
	if g.stale(key, "1") {
		t.Fatal("record kept after the cache caught up")
	}
	g.wrote(key, "5", "5") // a no-op write keeps the version: nothing superseded
	if g.stale(key, "5") {
		t.Fatal("a no-op write made the current version stale")
	}
	g.wrote(key, "6", "7")
	g.forget(key)
	if g.stale(key, "6") {
		t.Fatal("forget kept the record")
	}
}

func TestStatusChangedIgnoresSubSecondTimes(t *testing.T) {
	a := swapv1.SwapOrderStatus{NextPollAt: &metav1.Time{Time: unitStart}}
	b := *a.DeepCopy()
	b.NextPollAt = &metav1.Time{Time: unitStart.Add(300 * time.Millisecond)}
	if statusChanged(&a, &b) {
		t.Fatal("a sub-second move counts as a change")
	}
	b.NextPollAt = &metav1.Time{Time: unitStart.Add(time.Second)}
	if !statusChanged(&a, &b) {
		t.Fatal("a one-second move is not a change")
	}
}

func TestOrdersGaugeCountsByStatus(t *testing.T) {
	g := newUnitRig(t)
	g.settle() // the rig's order: PENDING
	for i, st := range []swapv1.OrderStatus{swapv1.OrderSuccess, swapv1.OrderSuccess, ""} {
		o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("other-", i), Namespace: "ns"}}
		if err := g.c.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		o.Status.Status = st
		if err := g.c.Status().Update(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	setOrderLister(g.c)
	t.Cleanup(func() { orderLister.Store(nil) })
	want := `
# HELP swaprouter_orders SwapOrders currently stored, by status (NEW: no deposit address yet).
# TYPE swaprouter_orders gauge
swaprouter_orders{status="FAILED"} 0
swaprouter_orders{status="NEW"} 1
swaprouter_orders{status="PENDING"} 1
swaprouter_orders{status="PROCESSING"} 0
swaprouter_orders{status="REFUNDED"} 0
swaprouter_orders{status="SUCCESS"} 2
swaprouter_orders{status="UNKNOWN"} 0
`
	if err := testutil.CollectAndCompare(ordersCollector{}, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

// An idle poll (nothing changed at the provider) costs a provider call but no status write,
// and the next poll still comes on time.
func TestUnitIdlePollWritesNothing(t *testing.T) {
	g := newUnitRig(t)
	g.p.status = provider.Status{Status: swapv1.OrderPending, Raw: "PENDING_DEPOSIT", Reason: "AwaitingDeposit"}
	g.settle()
	g.advanceToPoll()
	g.settle() // first poll records the provider's raw status
	before := g.order().ResourceVersion
	for i := 1; i <= 3; i++ {
		g.advanceToPoll()
		if res := g.step(); res.RequeueAfter != 12*time.Second {
			t.Fatalf("idle poll %d scheduled the next in %v, want 12s", i, res.RequeueAfter)
		}
	}
	if g.p.polls != 4 {
		t.Fatalf("provider polled %d times, want 4", g.p.polls)
	}
	if after := g.order().ResourceVersion; after != before {
		t.Fatalf("idle polls wrote the order: resourceVersion %s -> %s", before, after)
	}
}

// The minimum the partner accepted reaches the provider only from that provider's candidate.
func TestProviderDepositRequestCarriesAcceptedMinimum(t *testing.T) {
	o := &swapv1.SwapOrder{Spec: swapv1.SwapOrderSpec{OrderID: "ord_x", ProviderID: swapv1.ProviderRouteB, Amount: "100",
		Quote: &swapv1.QuoteCandidate{ProviderID: swapv1.ProviderRouteB, MinAmountOut: "95"}}}
	if got := providerDepositRequest(o).MinAmountOut; got != "95" {
		t.Fatalf("MinAmountOut = %q; want the accepted 95", got)
	}
	o.Spec.Quote.ProviderID = swapv1.ProviderRouteA
	if got := providerDepositRequest(o).MinAmountOut; got != "" {
		t.Fatalf("another provider's minimum %q was passed on", got)
	}
}
