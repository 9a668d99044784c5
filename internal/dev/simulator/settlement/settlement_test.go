package settlement

import (
	"math/big"
	"testing"
	"time"
)

func TestEvaluate(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tm := Timing{Step: time.Second, RefundAfter: 10 * time.Second}
	in := big.NewInt(1000)
	exactIn := Terms{ExpectedIn: in, QuotedOut: big.NewInt(500), Deadline: t0.Add(time.Minute)}
	exactOut := exactIn
	exactOut.ExactOutput = true
	keepExcess, partial, unfilled, single, delayed := exactIn, exactIn, exactIn, exactIn, exactIn
	keepExcess.KeepExcess = true
	single.SingleDeposit = true
	delayed.DelaySteps = 2
	partial.UnfilledBps = 2500
	unfilled.UnfilledBps = 10000
	dep := func(amount int64, at time.Duration) Deposit {
		return Deposit{Amount: big.NewInt(amount), TxHash: "tx", At: t0.Add(at)}
	}
	tests := []struct {
		name     string
		terms    Terms
		deps     []Deposit
		at       time.Duration
		phase    Phase
		reason   string
		expired  bool
		delayed  bool
		in, out  int64
		refunded int64
	}{
		{name: "nothing yet", terms: exactIn, at: 0, phase: AwaitingDeposit},
		{name: "nothing past deadline", terms: exactIn, at: 2 * time.Minute, phase: AwaitingDeposit, expired: true},
		{name: "future deposit not seen", terms: exactIn, deps: []Deposit{dep(1000, 5*time.Second)}, at: time.Second, phase: AwaitingDeposit},
		{name: "full: seen", terms: exactIn, deps: []Deposit{dep(1000, 0)}, at: 500 * time.Millisecond, phase: DepositSeen},
		{name: "full: swapping", terms: exactIn, deps: []Deposit{dep(1000, 0)}, at: 1500 * time.Millisecond, phase: Swapping},
		{name: "full: sending", terms: exactIn, deps: []Deposit{dep(1000, 0)}, at: 2 * time.Second, phase: Sending},
		{name: "full: sent", terms: exactIn, deps: []Deposit{dep(1000, 0)}, at: 3 * time.Second, phase: Sent},
		{name: "full: completed", terms: exactIn, deps: []Deposit{dep(1000, 0)}, at: 4 * time.Second, phase: Completed, in: 1000, out: 500},
		{name: "over-deposit exact input refunds the excess", terms: exactIn, deps: []Deposit{dep(1200, 0)}, at: time.Hour, phase: Completed, in: 1000, out: 500, refunded: 200},
		{name: "over-deposit kept when the provider swaps what arrives", terms: keepExcess, deps: []Deposit{dep(1200, 0)}, at: time.Hour, phase: Completed, in: 1200, out: 600},
		{name: "partial fill refunds the unfilled share", terms: partial, deps: []Deposit{dep(1000, 0)}, at: time.Hour, phase: Completed, in: 750, out: 375, refunded: 250},
		{name: "price floor not met refunds all", terms: unfilled, deps: []Deposit{dep(1000, 0)}, at: time.Hour, phase: Refunded, reason: ReasonPriceFloorNotMet, refunded: 1000},
		{name: "over-deposit exact output refunds excess", terms: exactOut, deps: []Deposit{dep(1200, 0)}, at: time.Hour, phase: Completed, in: 1000, out: 500, refunded: 200},
		{name: "two deposits add up", terms: exactIn, deps: []Deposit{dep(600, 0), dep(400, 3*time.Second)}, at: 7 * time.Second, phase: Completed, in: 1000, out: 500},
		{name: "under: seen", terms: exactIn, deps: []Deposit{dep(600, 0)}, at: 0, phase: DepositSeen},
		{name: "under: incomplete", terms: exactIn, deps: []Deposit{dep(600, 0)}, at: 5 * time.Second, phase: Incomplete, reason: ReasonIncompleteDeposit},
		{name: "under: refunded", terms: exactIn, deps: []Deposit{dep(600, 0)}, at: 10 * time.Second, phase: Refunded, reason: ReasonIncompleteDeposit, refunded: 600},
		{name: "top-up after refund decision is too late", terms: exactIn, deps: []Deposit{dep(600, 0), dep(400, 11*time.Second)}, at: 20 * time.Second, phase: Refunded, reason: ReasonIncompleteDeposit, refunded: 600},
		{name: "single deposit: a second one never tops it up", terms: single, deps: []Deposit{dep(600, 0), dep(400, 3*time.Second)}, at: 10 * time.Second, phase: Refunded, reason: ReasonIncompleteDeposit, refunded: 600},
		{name: "single deposit: a later one is not the order's", terms: single, deps: []Deposit{dep(1000, 0), dep(500, time.Second)}, at: time.Hour, phase: Completed, in: 1000, out: 500},
		{name: "delayed: swapping first", terms: delayed, deps: []Deposit{dep(1000, 0)}, at: 1500 * time.Millisecond, phase: Swapping},
		{name: "delayed: stalled", terms: delayed, deps: []Deposit{dep(1000, 0)}, at: 3500 * time.Millisecond, phase: Swapping, delayed: true},
		{name: "delayed: sending after the stall", terms: delayed, deps: []Deposit{dep(1000, 0)}, at: 4 * time.Second, phase: Sending},
		{name: "delayed: completed two steps later", terms: delayed, deps: []Deposit{dep(1000, 0)}, at: 6 * time.Second, phase: Completed, in: 1000, out: 500},
		{name: "late: seen", terms: exactIn, deps: []Deposit{dep(1000, 2*time.Minute)}, at: 2 * time.Minute, phase: DepositSeen},
		{name: "late: refunding", terms: exactIn, deps: []Deposit{dep(1000, 2*time.Minute)}, at: 2*time.Minute + time.Second, phase: Refunding, reason: ReasonDepositAfterDeadline},
		{name: "late: refunded", terms: exactIn, deps: []Deposit{dep(1000, 2*time.Minute)}, at: 2*time.Minute + 2*time.Second, phase: Refunded, reason: ReasonDepositAfterDeadline, refunded: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Evaluate(tt.terms, tt.deps, t0.Add(tt.at), tm)
			if p.Phase != tt.phase || p.RefundReason != tt.reason || p.Expired != tt.expired || p.Delayed != tt.delayed {
				t.Fatalf("got %v reason %q expired %v delayed %v; want %v %q %v %v", p.Phase, p.RefundReason, p.Expired, p.Delayed, tt.phase, tt.reason, tt.expired, tt.delayed)
			}
			if p.AmountIn.Int64() != tt.in || p.AmountOut.Int64() != tt.out || p.Refunded.Int64() != tt.refunded {
				t.Fatalf("in/out/refunded = %s/%s/%s; want %d/%d/%d", p.AmountIn, p.AmountOut, p.Refunded, tt.in, tt.out, tt.refunded)
			}
			if p.Phase.Terminal() != (tt.phase == Completed || tt.phase == Refunded) {
				t.Fatal("Terminal disagrees")
			}
		})
	}
}

// Phases only move forward as time passes.
func TestEvaluateIsMonotonic(t *testing.T) {
	t0 := time.Now()
	tm := Timing{Step: 100 * time.Millisecond, RefundAfter: time.Second}
	terms := Terms{ExpectedIn: big.NewInt(10), QuotedOut: big.NewInt(5), Deadline: t0.Add(time.Hour)}
	for _, amount := range []int64{10, 5} {
		deps := []Deposit{{Amount: big.NewInt(amount), At: t0}}
		last := AwaitingDeposit
		for d := time.Duration(0); d < 2*time.Second; d += 10 * time.Millisecond {
			p := Evaluate(terms, deps, t0.Add(d), tm)
			if p.Phase < last {
				t.Fatalf("amount %d: phase went from %v to %v at %v", amount, last, p.Phase, d)
			}
			last = p.Phase
		}
		if !last.Terminal() {
			t.Fatalf("amount %d: ended in %v", amount, last)
		}
	}
}
