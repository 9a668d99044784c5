package controllers

import (
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/types"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/budget"
	"github.com/swaprouter/swaprouter/internal/providerset"
)

func TestCreateShareLeavesTrackingWorkers(t *testing.T) {
	for _, tc := range []struct{ workers, want int }{{1, 1}, {2, 1}, {4, 3}, {8, 6}, {16, 12}, {32, 24}} {
		if got := createShare(tc.workers); got != tc.want {
			t.Errorf("createShare(%d) = %d, want %d", tc.workers, got, tc.want)
		}
	}
}

func TestQueuePriorityServesNewOrdersFirst(t *testing.T) {
	for _, tc := range []struct {
		status swapv1.OrderStatus
		want   int
	}{{"", priorityCreate}, {swapv1.OrderPending, priorityTrack}, {swapv1.OrderProcessing, priorityTrack}, {swapv1.OrderSuccess, priorityTrack}} {
		if got := queuePriority(&swapv1.SwapOrderStatus{Status: tc.status}); got != tc.want {
			t.Errorf("queuePriority(%q) = %d, want %d", tc.status, got, tc.want)
		}
	}
}

func TestHeldReasonTellsCapacityFromFailure(t *testing.T) {
	overBudget := &provider.Error{Kind: provider.KindUnavailable, RetryAfter: 700 * time.Millisecond, Err: budget.ErrExhausted}
	breakerOpen := &provider.Error{Kind: provider.KindUnavailable, RetryAfter: 5 * time.Second, Err: errors.New("the provider kept failing")}
	for _, tc := range []struct {
		name       string
		err        error
		reason     string
		retryAfter time.Duration
		held       bool
	}{
		{"call slots full", errProviderSaturated, heldProviderSaturated, 0, true},
		{"budget used up", overBudget, heldProviderBudget, 700 * time.Millisecond, true},
		{"open breaker is a provider failure", breakerOpen, "", 0, false},
		{"timeout is a provider failure", &provider.Error{Kind: provider.KindTimeout}, "", 0, false},
		{"success", nil, "", 0, false},
	} {
		reason, retryAfter, held := heldReason(tc.err)
		if reason != tc.reason || retryAfter != tc.retryAfter || held != tc.held {
			t.Errorf("%s: got (%q, %s, %v), want (%q, %s, %v)", tc.name, reason, retryAfter, held, tc.reason, tc.retryAfter, tc.held)
		}
	}
}

func TestParkedOnWaitsForTheSlotThatWasFull(t *testing.T) {
	for _, tc := range []struct {
		reason string
		want   heldKey
		parked bool
	}{
		{heldProviderSaturated, heldKey{reason: heldProviderSaturated, provider: swapv1.ProviderRouteA}, true},
		{heldCreatesSaturated, heldKey{reason: heldCreatesSaturated}, true}, // one share for every provider
		{heldProviderBudget, heldKey{}, false},
	} {
		if got, parked := parkedOn(tc.reason, swapv1.ProviderRouteA); got != tc.want || parked != tc.parked {
			t.Errorf("parkedOn(%s) = %+v, %v; want %+v, %v", tc.reason, got, parked, tc.want, tc.parked)
		}
	}
}

func TestHeldDelayIsJitteredAndLongOnlyWhenParked(t *testing.T) {
	for _, tc := range []struct {
		reason     string
		retryAfter time.Duration
		u          float64
		want       time.Duration
	}{
		{heldCreatesSaturated, 0, 0, heldParked},
		{heldCreatesSaturated, 0, 0.5, heldParked * 3 / 2},
		{heldProviderSaturated, 0, 0, 10 * time.Second},
		{heldProviderSaturated, 0, 0.5, 15 * time.Second},
		{heldProviderBudget, 50 * time.Millisecond, 0, heldRetryBase},
		{heldProviderBudget, 3 * time.Second, 0.5, 4500 * time.Millisecond},
	} {
		if got := heldDelay(tc.reason, tc.retryAfter, tc.u); got != tc.want {
			t.Errorf("heldDelay(%s, %s, %v) = %s, want %s", tc.reason, tc.retryAfter, tc.u, got, tc.want)
		}
	}
}

// A pass that finds no capacity (provider slots, budget, creation share) makes no call,
// writes nothing and counts no failure; an order waiting for a slot is woken by its release,
// one over budget comes back with the refill. The next pass with capacity goes on as if
// nothing happened.
func TestUnitHeldBackPassesCostNothing(t *testing.T) {
	heldBack := func(t *testing.T, g *unitRig, wait time.Duration, take func() func()) {
		t.Helper()
		before := g.order()
		creates, polls := g.p.creates, g.p.polls
		release := take()
		res := g.step()
		release()
		if res.RequeueAfter < wait || res.RequeueAfter > 2*wait {
			t.Fatalf("requeue after %s, want within [%s, %s]", res.RequeueAfter, wait, 2*wait)
		}
		if g.p.creates != creates || g.p.polls != polls {
			t.Fatalf("the provider was called while held back")
		}
		if after := g.order(); after.ResourceVersion != before.ResourceVersion {
			t.Fatalf("a held-back pass wrote the order")
		}
		if n, _ := g.r.memory.failed(g.key, g.now); n-1 != 0 {
			t.Fatalf("a held-back pass counted %d failures", n-1)
		}
		g.r.memory.recovered(g.key)
	}
	takeAll := func(take func() (func(), bool)) func() func() {
		return func() func() {
			var releases []func()
			for {
				r, ok := take()
				if !ok {
					break
				}
				releases = append(releases, r)
			}
			return func() {
				for _, r := range releases {
					r()
				}
			}
		}
	}

	t.Run("creation share in use", func(t *testing.T) {
		g := newUnitRig(t)
		heldBack(t, g, heldParked, takeAll(g.r.takeCreate))
		g.woken(t)
		if got := *g.last.Priority; got != priorityCreate {
			t.Fatalf("a held-back new order queued at priority %d, want %d", got, priorityCreate)
		}
		g.settle()
		if g.order().Status.DepositAddress == "" {
			t.Fatal("no deposit address once the share was free")
		}
	})

	t.Run("provider slots in use", func(t *testing.T) {
		g := newUnitRig(t)
		g.settle()
		g.advanceToPoll()
		heldBack(t, g, heldParked, takeAll(func() (func(), bool) { return g.r.takeCall(swapv1.ProviderRouteA) }))
		g.woken(t)
		if got := *g.last.Priority; got != priorityTrack {
			t.Fatalf("a held-back poll queued at priority %d, want %d", got, priorityTrack)
		}
		polls := g.p.polls
		g.step()
		if g.p.polls != polls+1 {
			t.Fatal("the poll did not go once a slot was free")
		}
	})

	t.Run("budget used up", func(t *testing.T) {
		g := newUnitRig(t)
		budgets := budget.New(nil)
		budgets.Now = func() time.Time { return g.now }
		budgets.Set(swapv1.ProviderRouteA, budget.Limit{Rate: 1.0 / 60, Burst: 1})
		g.r.Providers.Put(swapv1.ProviderRouteA, providerset.Entry{Provider: budget.Guard(g.p, budgets), Enabled: true,
			PollMin: 10 * time.Second, PollMax: 15 * time.Second})
		g.settle() // the one token: the deposit address
		waited := g.last.RequeueAfter
		g.advanceToPoll()
		before, polls := g.order(), g.p.polls
		res := g.step()
		if g.p.polls != polls || g.order().ResourceVersion != before.ResourceVersion {
			t.Fatal("a poll over budget reached the provider or wrote the order")
		}
		// The next token is due a minute after the first: the order waits for it, not less.
		if due := time.Minute - waited; res.RequeueAfter < due || res.RequeueAfter > 2*due {
			t.Fatalf("requeue after %s, want the budget's %s (jittered up to twice)", res.RequeueAfter, due)
		}
		g.now = g.now.Add(res.RequeueAfter)
		g.step()
		if g.p.polls != polls+1 {
			t.Fatal("the poll did not go once the budget refilled")
		}
	})
}

// woken asserts that the order, parked by the pass just taken, was woken by the release of
// the slots it waited for, once, and is no longer parked.
func (g *unitRig) woken(t *testing.T) {
	t.Helper()
	select {
	case w := <-g.r.waiting.Woken():
		if w.Object != g.key {
			t.Fatalf("woke %s, want %s", w.Object, g.key)
		}
	default:
		t.Fatal("releasing the slots woke nobody: the held-back order was not parked")
	}
	select {
	case w := <-g.r.waiting.Woken():
		t.Fatalf("woke %s a second time", w.Object)
	default:
	}
}

// A slot released between an order's failed take and its parking woke nobody: park itself
// must then wake the oldest in line, or the order would wait for its safety timer.
func TestParkWakesAtOnceWhenASlotIsFree(t *testing.T) {
	c := newCallSlots(4, 1)
	key := heldKey{reason: heldProviderSaturated, provider: swapv1.ProviderRouteA}
	first, second := types.NamespacedName{Name: "first"}, types.NamespacedName{Name: "second"}
	release, _ := c.takeCall(swapv1.ProviderRouteA)
	c.park(key, first)
	select {
	case w := <-c.waiting.Woken():
		t.Fatalf("woke %s while the only slot was in use", w.Object)
	default:
	}
	release()
	if w := <-c.waiting.Woken(); w.Object != first {
		t.Fatalf("the release woke %s, want %s", w.Object, first)
	}
	c.park(key, second) // the slot is free: nobody will release it
	if w := <-c.waiting.Woken(); w.Object != second {
		t.Fatalf("parking beside a free slot woke %s, want %s", w.Object, second)
	}
}

func TestParkedGaugeCountsEachLine(t *testing.T) {
	c := newCallSlots(4, 1)
	a, _ := parkedOn(heldProviderSaturated, swapv1.ProviderRouteA)
	create, _ := parkedOn(heldCreatesSaturated, swapv1.ProviderRouteA)
	for _, name := range []string{"1", "2"} {
		c.waiting.Park(a, types.NamespacedName{Name: name})
	}
	c.waiting.Park(create, types.NamespacedName{Name: "3"})
	c.waiting.Park(create, types.NamespacedName{Name: "4"})
	c.waiting.Remove(types.NamespacedName{Name: "4"})

	ch := make(chan prometheus.Metric, 8)
	parkedCollector{c.waiting}.Collect(ch)
	close(ch)
	got := map[string]float64{}
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{}
		for _, l := range d.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		got[labels["provider"]+"/"+labels["reason"]] = d.GetGauge().GetValue()
	}
	want := map[string]float64{"route_A/provider_saturated": 2, "/creates_saturated": 1}
	if !maps.Equal(got, want) {
		t.Fatalf("swaprouter_order_parked = %v, want %v", got, want)
	}
}
