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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	"github.com/swaprouter/swaprouter/internal/providerset"
	"github.com/swaprouter/swaprouter/internal/resilience"
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
		Now: func() time.Time { return rig.now }, Rand: func() float64 { return 0.4 },
		Settlements: &callstats.Window{Bounds: &callstats.SettleBounds, Now: func() time.Time { return rig.now }}}
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
	if o.Status.NotifiedSeq != 0 || g.r.memory.snapshot(o).Emitted != 1 {
		t.Fatalf("notifiedSeq = %d (no partner: nothing to deliver, carried to the next write)", o.Status.NotifiedSeq)
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

	// The provider settled it in two polls (24 s) after the deposit was seen: counted once.
	settled := func() *swapv1.SettlementSummary {
		return callstats.Settled(g.r.Settlements.Tally(swapv1.ProviderRouteA, callstats.Settlement))
	}
	if s := settled(); s == nil || s.Orders != 1 || s.Succeeded != 1 || s.Seconds.P50 != 30 {
		t.Fatalf("settlement %+v, want one order, succeeded, in the 30 s bucket", s)
	}

	// Terminal is final: a provider changing its mind is never asked.
	g.p.status = provider.Status{Status: swapv1.OrderRefunded}
	polls := g.p.polls
	g.now = g.now.Add(time.Minute)
	g.step()
	if g.p.polls != polls || g.order().Status.Status != swapv1.OrderSuccess {
		t.Fatal("terminal order polled or changed")
	}
	if s := settled(); s == nil || s.Orders != 1 {
		t.Fatalf("settlement %+v after another pass, want the order counted once", s)
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

// Transient failures and throttling on create are retried with a jittered backoff (or the
// provider's Retry-After); they are never a refusal, and the attempt count is not written.
func TestUnitCreateRetriesTransientFailures(t *testing.T) {
	g := newUnitRig(t)
	var firstRV string
	for i, pe := range []*provider.Error{
		{Kind: provider.KindUpstream, Detail: "503"},
		{Kind: provider.KindUpstream, Detail: "Too many requests", Upstream: &provider.Upstream{Status: 429}},
		{Kind: provider.KindTimeout},
	} {
		g.p.createErr = pe
		want := resilience.Backoff(int32(i+1), time.Second, time.Minute, resilience.Jitter, 0.4)
		res := g.step()
		if res.RequeueAfter != want {
			t.Fatalf("retry %d after %v, want %v", i+1, res.RequeueAfter, want)
		}
		o := g.order()
		if o.Status.Status != "" || o.Status.ProviderErrors != 0 {
			t.Fatalf("after failure %d: %+v", i+1, o.Status)
		}
		// Failing for less than ProviderIssueAfter: the RoutingProvider says it, the order
		// is not written for it.
		if c := condition(o, swapv1.ConditionReconciling); c.Reason == orders.ReasonProviderUnavailable {
			t.Fatalf("after %s of failures: Reconciling = %+v", g.now.Sub(unitStart), c)
		}
		if firstRV == "" {
			firstRV = o.ResourceVersion
		} else if o.ResourceVersion != firstRV {
			t.Fatalf("failure %d wrote the order", i+1)
		}
		g.now = g.now.Add(res.RequeueAfter)
	}
	g.now = unitStart.Add(g.r.ProviderIssueAfter)
	g.p.createErr = &provider.Error{Kind: provider.KindUpstream, Upstream: &provider.Upstream{Status: 429}, RetryAfter: 30 * time.Second}
	if res := g.step(); res.RequeueAfter != 30*time.Second {
		t.Fatalf("retry after %v; want the provider's Retry-After", res.RequeueAfter)
	}
	if c := condition(g.order(), swapv1.ConditionReconciling); c.Status != metav1.ConditionTrue || c.Reason != orders.ReasonProviderUnavailable {
		t.Fatalf("after %s of failures: Reconciling = %+v", g.r.ProviderIssueAfter, c)
	}
	g.p.createErr = nil
	g.settle()
	if o := g.order(); o.Status.Status != swapv1.OrderPending || o.Status.ProviderErrors != 0 || g.p.creates != 5 {
		t.Fatalf("after recovery: %+v, %d creates", o.Status, g.p.creates)
	}
}

// A create that never gets an address ends FAILED with a reason once the bound passed.
func TestUnitCreateGivesUpAfterItsBound(t *testing.T) {
	g := newUnitRig(t)
	g.r.CreateBound = time.Minute
	g.p.createErr = &provider.Error{Kind: provider.KindTimeout}
	for g.order().Status.Status == "" {
		res := g.step()
		if g.steps > 100 {
			t.Fatal("the create never gave up")
		}
		if res.RequeueAfter > time.Minute+nextStepNow {
			t.Fatalf("requeue %v goes past the bound", res.RequeueAfter)
		}
		g.now = g.now.Add(res.RequeueAfter)
	}
	o := g.order()
	if g.history() != "1:FAILED:"+orders.ReasonNoDepositAddress || o.Status.DepositAddress != "" || g.now.Before(unitStart.Add(time.Minute)) {
		t.Fatalf("history %q at %v, address %q", g.history(), g.now.Sub(unitStart), o.Status.DepositAddress)
	}
}

// A provider without idempotency may have created an address whose answer never made it into
// status; the order still shows exactly one address, and the lost ones are counted.
func TestUnitLostCreateAnswersAreCounted(t *testing.T) {
	g := newUnitRig(t)
	unshown := func(reason string) float64 {
		return testutil.ToFloat64(g.r.metrics.unshown.WithLabelValues(string(swapv1.ProviderRouteA), reason))
	}
	writeFailed, answerLost := unshown(unshownStatusWriteFailed), unshown(unshownAnswerLost)

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
	if res := g.step(); res.RequeueAfter != resilience.Backoff(1, time.Second, time.Minute, resilience.Jitter, 0.4) {
		t.Fatalf("requeue %v", res.RequeueAfter)
	}
	o := g.order()
	if c := condition(o, swapv1.ConditionStalled); c.Status != metav1.ConditionTrue || c.Reason != orders.ReasonProviderNotConfigured {
		t.Fatalf("Stalled = %+v", c)
	}
	// The same problem again rewrites nothing.
	before := o.ResourceVersion
	g.step()
	if after := g.order(); after.ResourceVersion != before || after.Status.ProviderErrors != 0 {
		t.Fatalf("a repeated miss wrote the order: %+v", after.Status)
	}
}

// Start-up: until the RoutingProvider reconciler loaded every provider, an order takes no
// step and records no miss.
func TestUnitWaitsForProvidersToLoad(t *testing.T) {
	g := newUnitRig(t)
	g.r.Providers.ExpectLoad()
	before := g.order().ResourceVersion
	if res := g.step(); res.RequeueAfter != providersLoadingRetry {
		t.Fatalf("requeue %v; want %v", res.RequeueAfter, providersLoadingRetry)
	}
	if o := g.order(); o.ResourceVersion != before || g.p.creates != 0 {
		t.Fatalf("took a step before providers loaded: %d creates, status %+v", g.p.creates, o.Status)
	}
	g.r.Providers.MarkLoaded()
	g.settle()
	if o := g.order(); o.Status.Status != swapv1.OrderPending {
		t.Fatalf("after loading: %+v", o.Status)
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

// writesCounted wraps the rig's client and counts status writes.
func (g *unitRig) writesCounted() *atomic.Int32 {
	var n atomic.Int32
	g.r.Client = interceptor.NewClient(g.c.(client.WithWatch), interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			n.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
	return &n
}

// A provider-wide failure (timeouts here) never moves an order: it keeps its status, says
// why in a condition written once it has lasted ProviderIssueAfter, backs off, and is back
// to normal with one more write.
func TestUnitOutageKeepsStatus(t *testing.T) {
	g := newUnitRig(t)
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderPending, Raw: "PENDING_DEPOSIT"}
	g.p.statusErr = &provider.Error{Kind: provider.KindTimeout}
	writes := g.writesCounted()
	var delays []time.Duration
	var first time.Time
	for i := range 30 {
		g.advanceToPoll()
		if i == 0 {
			first = g.now
		}
		delays = append(delays, g.settle().RequeueAfter)
		if into := g.now.Sub(first); into < g.r.ProviderIssueAfter && writes.Load() != 0 {
			// Shorter than ProviderIssueAfter, the outage shows on the RoutingProvider only.
			t.Fatalf("failure %d (%s into the outage) wrote the order", i+1, into)
		}
	}
	if got := g.history(); got != "1:PENDING:DepositAddressIssued" {
		t.Fatalf("history %q", got)
	}
	o := g.order()
	if c := condition(o, swapv1.ConditionReconciling); c.Reason != orders.ReasonProviderUnavailable || o.Status.ProviderErrors != 0 {
		t.Fatalf("Reconciling = %+v, providerErrors %d", c, o.Status.ProviderErrors)
	}
	if writes.Load() != 1 {
		t.Fatalf("%d status writes during 30 failed polls; want 1", writes.Load())
	}
	// Jittered backoff from the poll interval (12 s) up to PollBackoffMax.
	if want := []time.Duration{12 * time.Second, 19200 * time.Millisecond, 38400 * time.Millisecond}; fmt.Sprint(delays[:3]) != fmt.Sprint(want) {
		t.Fatalf("poll delays %v, want %v", delays[:3], want)
	}
	if last := delays[len(delays)-1]; last != resilience.Backoff(30, 10*time.Second, DefaultPollBackoffMax, resilience.Jitter, 0.4) {
		t.Fatalf("last delay %v", last)
	}

	// Rejected credentials say so, and the breaker holding calls back keeps saying so.
	g.p.statusErr = &provider.Error{Kind: provider.KindCredentials}
	g.advanceToPoll()
	g.settle()
	g.p.statusErr = &provider.Error{Kind: provider.KindUnavailable, Err: health.ErrCredentialsRejected}
	g.advanceToPoll()
	g.settle()
	if c := condition(g.order(), swapv1.ConditionReconciling); c.Reason != orders.ReasonProviderCredentialsRejected {
		t.Fatalf("Reconciling = %+v", c)
	}
	if writes.Load() != 2 {
		t.Fatalf("%d status writes; want 2", writes.Load())
	}

	g.p.statusErr = nil
	g.p.status = provider.Status{Status: swapv1.OrderProcessing, Raw: "PROCESSING", Reason: "DepositSeen"}
	g.advanceToPoll()
	g.settle()
	if got := g.history(); got != "1:PENDING:DepositAddressIssued 2:PROCESSING:DepositSeen" {
		t.Fatalf("history %q", got)
	}
	if c := condition(g.order(), swapv1.ConditionStalled); c.Status != metav1.ConditionFalse {
		t.Fatalf("after recovery Stalled = %+v", c)
	}
}

// One 404 is no verdict; UnknownAfter of them in a row are. The count is written only at
// the crossings. The order is then watched with backoff, and the watch stops with Stalled,
// an Event and a metric after WatchBound.
func TestUnitForgottenOrderEndsInBoundedWatch(t *testing.T) {
	g := newUnitRig(t)
	g.r.WatchBound = time.Hour
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderProcessing, Raw: "PROCESSING", Reason: "DepositSeen"}
	g.advanceToPoll()
	g.settle()
	g.p.statusErr = &provider.Error{Kind: provider.KindNotFound}
	g.advanceToPoll()
	g.settle()
	if got := g.history(); strings.Contains(got, "UNKNOWN") {
		t.Fatalf("one 404 flipped the order: %q", got)
	}
	writes := g.writesCounted()
	for range 4 {
		g.advanceToPoll()
		g.settle()
	}
	o := g.order()
	if got := g.history(); !strings.HasSuffix(got, "3:UNKNOWN:OrderNotFoundAtProvider") || o.Status.ProviderErrors != 5 {
		t.Fatalf("history %q, providerErrors %d", got, o.Status.ProviderErrors)
	}
	stopped := testutil.ToFloat64(g.r.metrics.stalled.WithLabelValues(string(swapv1.ProviderRouteA)))
	var polls int
	for g.last.RequeueAfter > 0 {
		g.advanceToPoll()
		g.settle()
		if polls++; polls > 100 {
			t.Fatal("the watch never stopped")
		}
	}
	o = g.order()
	if c := condition(o, swapv1.ConditionStalled); c.Status != metav1.ConditionTrue || c.Reason != orders.ReasonWatchStopped || o.Status.NextPollAt != nil {
		t.Fatalf("Stalled = %+v, nextPollAt %v", c, o.Status.NextPollAt)
	}
	if g.now.Sub(o.Status.FailingSince.Time) < time.Hour {
		t.Fatalf("stopped after %v, before the bound", g.now.Sub(o.Status.FailingSince.Time))
	}
	if got := testutil.ToFloat64(g.r.metrics.stalled.WithLabelValues(string(swapv1.ProviderRouteA))) - stopped; got != 1 {
		t.Fatalf("watch_stopped_total grew by %v", got)
	}
	// Within an hour the polls backed off: a dozen, not 300 at full cadence, and few writes.
	if polls > 15 || writes.Load() > 6 {
		t.Fatalf("%d polls and %d writes in the watch", polls, writes.Load())
	}
	pollsBefore := g.p.polls
	if g.step(); g.p.polls != pollsBefore || g.last.RequeueAfter != 0 {
		t.Fatalf("a stopped watch polled again: %+v", g.last)
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
	if s := g.r.Settlements.Tally(swapv1.ProviderRouteA, callstats.Settlement); s.Calls != 0 {
		t.Fatalf("an order that expired without a deposit counted in the provider's settlements: %+v", s)
	}
}

// Once the deadline passed with nothing deposited, a partner sees DEPOSIT_WINDOW_CLOSED at
// once, while the order is still PENDING (it fails only after the grace).
func TestUnitWindowClosedShowsAtTheDeadline(t *testing.T) {
	g := newUnitRig(t)
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderPending, Raw: "PENDING_DEPOSIT", Substatus: swapv1.SubstatusAwaitingDeposit}
	deadline := g.order().Status.DepositDeadline.Time
	g.now = deadline.Add(time.Second)
	g.settle()
	o := g.order()
	if o.Status.Status != swapv1.OrderPending || o.Status.Substatus != swapv1.SubstatusDepositWindowClosed {
		t.Fatalf("past the deadline: %s / %s", o.Status.Status, o.Status.Substatus)
	}
}

// The money rule: an order whose user submitted a deposit tx is never failed by the service,
// however long the provider takes; it ends as the provider says.
func TestUnitPaidOrderPastDeadlineIsNotFailed(t *testing.T) {
	g := newUnitRig(t)
	g.settle()
	o := g.order()
	o.Spec.DepositHint = &swapv1.DepositHint{TxHash: "0xpaid"}
	o.Generation = 2
	if err := g.c.Update(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	// The provider has not noticed the deposit, still past deadline plus grace.
	g.p.status = provider.Status{Status: swapv1.OrderPending, Raw: "PENDING_DEPOSIT", Substatus: swapv1.SubstatusAwaitingDeposit}
	g.settle()
	expiry := g.order().Status.DepositDeadline.Add(DefaultExpiryGrace)
	g.now = expiry.Add(time.Hour)
	for range 5 {
		g.settle()
		g.advanceToPoll()
	}
	if o := g.order(); o.Status.Status != swapv1.OrderPending || o.Status.Substatus == swapv1.SubstatusDepositWindowClosed {
		t.Fatalf("a paid order past its deadline: %s / %s (%s)", o.Status.Status, o.Status.Substatus, o.Status.StatusReason)
	}
	g.p.status = provider.Status{Status: swapv1.OrderSuccess, Raw: "SUCCESS", Reason: "Settled"}
	g.settle()
	if got := g.history(); got != "1:PENDING:DepositAddressIssued 2:SUCCESS:Settled" {
		t.Fatalf("history %q", got)
	}
}

// A WebhookDelivery that cannot be created (quota, RBAC, admission) never blocks tracking:
// the order keeps polling and reaches its terminal status; the failure is a condition and a
// metric, and emission catches up once creation works again.
func TestUnitEmissionFailureDoesNotBlock(t *testing.T) {
	partner := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: "ns"},
		Spec: swapv1.PartnerSpec{Webhook: &swapv1.PartnerWebhook{URL: "https://example.com/hook", Enabled: true,
			SecretRef: swapv1.SecretKeyRef{Name: "s", Key: "k"}}}}
	g := newUnitRig(t, partner)
	var forbid atomic.Bool
	forbid.Store(true)
	g.r.Client = interceptor.NewClient(g.c.(client.WithWatch), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if _, ok := obj.(*swapv1.WebhookDelivery); ok && forbid.Load() {
				return apierrors.NewForbidden(swapv1.GroupVersion.WithResource("webhookdeliveries").GroupResource(), obj.GetName(), errors.New("exceeded quota"))
			}
			return c.Create(ctx, obj, opts...)
		},
	})
	failures := testutil.ToFloat64(g.r.metrics.emitFailures.WithLabelValues("Forbidden"))
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderSuccess, Raw: "SUCCESS"}
	// Emission retries (backing off) and polls interleave; the poll is not held up.
	for i := 0; g.order().Status.Status != swapv1.OrderSuccess; i++ {
		if i > 5 {
			t.Fatal("the order never polled its way to SUCCESS")
		}
		g.advanceToPoll()
		g.settle()
	}
	o := g.order()
	if o.Status.Status != swapv1.OrderSuccess || o.Status.NotifiedSeq != 0 || o.Status.EmitRetryAt == nil {
		t.Fatalf("tracking blocked by the failed emission: %+v", o.Status)
	}
	if c := condition(o, orders.ConditionWebhooksEmitted); c.Status != metav1.ConditionFalse || c.Reason != orders.ReasonDeliveryCreateFailed {
		t.Fatalf("WebhooksEmitted = %+v", c)
	}
	if got := testutil.ToFloat64(g.r.metrics.emitFailures.WithLabelValues("Forbidden")) - failures; got < 1 {
		t.Fatalf("webhook_emit_failures_total grew by %v", got)
	}
	forbid.Store(false)
	g.now = o.Status.EmitRetryAt.Time
	g.settle()
	o = g.order()
	if o.Status.NotifiedSeq != 2 || o.Status.EmitRetryAt != nil || meta.FindStatusCondition(o.Status.Conditions, orders.ConditionWebhooksEmitted) != nil {
		t.Fatalf("after creation works again: %+v", o.Status)
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

func TestOrderMemoryOfOwnWrites(t *testing.T) {
	key := client.ObjectKey{Namespace: "ns", Name: "o"}
	var g orderMemory
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

// An order backed off through one outage, not polled while its provider recovered, meets the
// next outage: its own failures began minutes ago, its provider's a moment ago. Timed from the
// provider's, the new outage is short and writes nothing.
func TestUnitOutageTimedFromTheProvider(t *testing.T) {
	g := newUnitRig(t)
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderPending, Raw: "PENDING_DEPOSIT"}
	tracker := health.NewTracker(nil)
	tracker.Now = func() time.Time { return g.now }
	guarded := health.Guard(g.p, tracker)
	g.r.Health = tracker
	g.r.Providers.Put(swapv1.ProviderRouteA, providerset.Entry{Provider: guarded, Enabled: true, PollMin: 10 * time.Second, PollMax: 15 * time.Second})
	writes := g.writesCounted()

	g.p.statusErr = &provider.Error{Kind: provider.KindTimeout}
	g.advanceToPoll()
	g.settle() // the order's first failure; it backs off
	// The provider recovers: another order's poll is answered.
	g.now = g.now.Add(20 * time.Second)
	g.p.statusErr = nil
	if _, err := guarded.Status(context.Background(), provider.OrderRef{OrderID: "ord_other"}); err != nil {
		t.Fatal(err)
	}
	// The next outage, 2 minutes after this order's first failure.
	g.now = g.now.Add(100 * time.Second)
	g.p.statusErr = &provider.Error{Kind: provider.KindTimeout}
	g.step()
	if c := condition(g.order(), swapv1.ConditionReconciling); c.Reason == orders.ReasonProviderUnavailable || writes.Load() != 0 {
		t.Fatalf("a fresh outage wrote the order (%d writes, Reconciling %+v)", writes.Load(), c)
	}
	// Once the provider itself has failed for ProviderIssueAfter, the order says so.
	g.now = g.now.Add(g.r.ProviderIssueAfter)
	g.step()
	if c := condition(g.order(), swapv1.ConditionReconciling); c.Reason != orders.ReasonProviderUnavailable || writes.Load() != 1 {
		t.Fatalf("after %s of the provider failing: %d writes, Reconciling %+v", g.r.ProviderIssueAfter, writes.Load(), c)
	}
}
