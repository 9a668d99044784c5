package controllers

import (
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/providerset"
)

// What a provider's answer to the creation means is decided without a client: the effect
// alone says the transition, the Events, the counts and the memory change.
func TestCreateOutcome(t *testing.T) {
	r := &SwapOrderReconciler{Rand: func() float64 { return 0.4 }}
	r.applyDefaults()
	deposit := provider.Deposit{DepositAddress: "0xdep", Quote: provider.Quote{AmountIn: "1000", AmountOut: "990"}}
	bound := &swapv1.QuoteCandidate{ProviderID: swapv1.ProviderRouteA, QuoteID: "q1.k.x.y", AmountIn: "1000", AmountOut: "995", MinAmountOut: "991"}
	tests := []struct {
		name       string
		quote      *swapv1.QuoteCandidate
		failures   int32
		dep        provider.Deposit
		pe         *provider.Error
		wantStatus swapv1.OrderStatus
		wantEvent  string
		wantCounts int
		wantMemory memoryChange
		wantShown  string
	}{
		{"an address: PENDING, shown once written", nil, 2, deposit, nil, swapv1.OrderPending, "", 0, memoryChange{recovered: true}, "0xdep"},
		{"a timeout: retried, the lost answer counted", nil, 0, provider.Deposit{}, &provider.Error{Kind: provider.KindTimeout},
			"", "", 1, memoryChange{failed: true}, ""},
		{"a 5xx: retried", nil, 3, provider.Deposit{}, &provider.Error{Kind: provider.KindUpstream}, "", "", 0, memoryChange{failed: true}, ""},
		{"a refusal: FAILED", nil, 1, provider.Deposit{}, &provider.Error{Kind: provider.KindUnsupportedPair},
			swapv1.OrderFailed, "DepositRefused", 0, memoryChange{recovered: true}, ""},
		{"a quote worse than the bound: FAILED, address never shown", bound, 0, deposit, nil,
			swapv1.OrderFailed, orders.ReasonQuoteChanged, 1, memoryChange{recovered: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(unitStart), Generation: 1},
				Spec: swapv1.SwapOrderSpec{OrderID: "ord_x", ProviderID: swapv1.ProviderRouteA, SwapType: swapv1.ExactInput, Quote: tt.quote}}
			p := &orderPass{order: o, now: unitStart.Add(time.Minute), log: logr.Discard(), entryOK: true,
				entry:  providerset.Entry{Provider: &fakeProvider{}, Enabled: true, PollMin: 10 * time.Second, PollMax: 15 * time.Second},
				memory: orders.Memory{Failures: tt.failures, FailingSince: unitStart}}
			res := r.createOutcome(p, tt.dep, tt.pe)
			e := p.effect
			wantTransitions := 0
			if tt.wantStatus != "" {
				wantTransitions = 1
			}
			if o.Status.Status != tt.wantStatus || len(e.transitions) != wantTransitions {
				t.Errorf("status %q with %d transitions, want %q", o.Status.Status, len(e.transitions), tt.wantStatus)
			}
			if o.Status.DepositAddress != tt.wantShown || e.created != tt.wantShown {
				t.Errorf("address %q (created %q), want %q", o.Status.DepositAddress, e.created, tt.wantShown)
			}
			var reasons []string
			for _, ev := range e.events {
				reasons = append(reasons, ev.reason)
			}
			if want := []string{tt.wantEvent}; (tt.wantEvent == "" && len(reasons) > 0) || (tt.wantEvent != "" && !slices.Equal(reasons, want)) {
				t.Errorf("events %v, want %q", reasons, tt.wantEvent)
			}
			if len(e.counts) != tt.wantCounts || e.memory != tt.wantMemory {
				t.Errorf("counts %d memory %+v, want %d %+v", len(e.counts), e.memory, tt.wantCounts, tt.wantMemory)
			}
			if tt.pe != nil && tt.pe.Retryable() {
				// Backed off by the run memory held, and never past the create bound.
				limit := unitStart.Add(r.CreateBound).Sub(p.now) + nextStepNow
				if res.RequeueAfter <= 0 || res.RequeueAfter > limit {
					t.Errorf("retry in %s, want within (0, %s]", res.RequeueAfter, limit)
				}
			} else if res.RequeueAfter != nextStepNow {
				t.Errorf("requeue %s, want at once (emission follows)", res.RequeueAfter)
			}
		})
	}
}

// What a provider's status answer means, from the pass alone: the per-order failure run
// (memory) turns a tracked order UNKNOWN at its threshold, and the watch bound stops polling.
func TestPollOutcome(t *testing.T) {
	r := &SwapOrderReconciler{Rand: func() float64 { return 0.4 }}
	r.applyDefaults()
	now := unitStart.Add(48 * time.Hour)
	pending := swapv1.SwapOrderStatus{Status: swapv1.OrderPending, LastSeq: 1, NotifiedSeq: 1, DepositAddress: "0xdep",
		DepositDeadline: &metav1.Time{Time: now.Add(time.Hour)}}
	unknownSince := func(since time.Time) swapv1.SwapOrderStatus {
		st := pending
		st.Status, st.FailingSince = swapv1.OrderUnknown, &metav1.Time{Time: since}
		return st
	}
	tests := []struct {
		name        string
		st          swapv1.SwapOrderStatus
		failures    int32
		got         provider.Status
		pe          *provider.Error
		wantStatus  swapv1.OrderStatus
		wantStalled bool
		wantMemory  memoryChange
	}{
		{"the same status: polled again", pending, 0, provider.Status{Status: swapv1.OrderPending}, nil, swapv1.OrderPending, false, memoryChange{recovered: true}},
		{"a step forward", pending, 0, provider.Status{Status: swapv1.OrderProcessing}, nil, swapv1.OrderProcessing, false, memoryChange{recovered: true}},
		{"not known, below the threshold", pending, r.UnknownAfter - 2, provider.Status{}, &provider.Error{Kind: provider.KindNotFound},
			swapv1.OrderPending, false, memoryChange{failed: true}},
		{"not known at the threshold: UNKNOWN", pending, r.UnknownAfter - 1, provider.Status{}, &provider.Error{Kind: provider.KindNotFound},
			swapv1.OrderUnknown, false, memoryChange{failed: true}},
		{"provider down: the order keeps its status", pending, 5, provider.Status{}, &provider.Error{Kind: provider.KindTimeout},
			swapv1.OrderPending, false, memoryChange{failed: true}},
		{"no usable answer within the watch bound: polled with backoff", unknownSince(now.Add(-time.Hour)), 0, provider.Status{}, &provider.Error{Kind: provider.KindNotFound},
			swapv1.OrderUnknown, false, memoryChange{failed: true}},
		{"no usable answer past the watch bound: the watch stops", unknownSince(now.Add(-r.WatchBound)), 0, provider.Status{}, &provider.Error{Kind: provider.KindNotFound},
			swapv1.OrderUnknown, true, memoryChange{failed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(unitStart), Generation: 1},
				Spec: swapv1.SwapOrderSpec{OrderID: "ord_x", ProviderID: swapv1.ProviderRouteA}, Status: *tt.st.DeepCopy()}
			p := &orderPass{order: o, now: now, log: logr.Discard(), entryOK: true,
				entry:  providerset.Entry{Provider: &fakeProvider{}, Enabled: true, PollMin: 10 * time.Second, PollMax: 15 * time.Second},
				memory: orders.Memory{Failures: tt.failures, FailingSince: now.Add(-time.Minute)}}
			if tt.failures == 0 {
				p.memory.FailingSince = time.Time{}
			}
			res := r.pollOutcome(p, tt.got, tt.pe)
			st := &o.Status
			if st.Status != tt.wantStatus || p.effect.memory != tt.wantMemory {
				t.Errorf("status %s memory %+v, want %s %+v", st.Status, p.effect.memory, tt.wantStatus, tt.wantMemory)
			}
			stalled := orders.WatchStopped(st)
			if stalled != tt.wantStalled || (stalled != (st.NextPollAt == nil)) {
				t.Errorf("watch stopped %v (next poll %v), want %v", stalled, st.NextPollAt, tt.wantStalled)
			}
			if stalled && (len(p.effect.events) != 1 || p.effect.events[0].reason != orders.ReasonWatchStopped || len(p.effect.counts) != 1) {
				t.Errorf("a stopped watch reports %+v, counts %d; want one WatchStopped Event and the metric", p.effect.events, len(p.effect.counts))
			}
			if !stalled && res.RequeueAfter <= 0 {
				t.Errorf("requeue %s: a watched order comes back", res.RequeueAfter)
			}
		})
	}
}
