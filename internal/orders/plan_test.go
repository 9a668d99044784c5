package orders

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestPlan(t *testing.T) {
	fresh := order(swapv1.SwapOrderStatus{}, nil)
	pollDue := order(swapv1.SwapOrderStatus{Status: processing, LastSeq: 2, NotifiedSeq: 2, NextPollAt: earlier}, nil)
	waiting := order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NotifiedSeq: 1, NextPollAt: later}, nil)
	hinted := order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NotifiedSeq: 1, NextPollAt: later}, hint)
	unnotified := order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 2, NotifiedSeq: 1, NextPollAt: earlier}, nil)
	terminal := order(swapv1.SwapOrderStatus{Status: failed, LastSeq: 1, NotifiedSeq: 1}, nil)
	stopped := order(swapv1.SwapOrderStatus{Status: unknown, LastSeq: 1, NotifiedSeq: 1}, nil)
	meta.SetStatusCondition(&stopped.Status.Conditions, metav1.Condition{Type: swapv1.ConditionStalled,
		Status: metav1.ConditionTrue, Reason: ReasonWatchStopped})

	heldUnnotified := order(swapv1.SwapOrderStatus{LastSeq: 1, NotifiedSeq: 0}, nil)
	heldRetryLater := order(swapv1.SwapOrderStatus{LastSeq: 1, NotifiedSeq: 0, EmitRetryAt: later}, nil)
	held, approved, rejected, expired := Controls{Review: ReviewHeld}, Controls{Review: ReviewApproved}, Controls{Review: ReviewRejected}, Controls{Review: ReviewExpired}

	slot := Capacity{CreateSlot: true}
	create := Decision{Step: StepCreateDeposit, Take: slot}
	tests := []struct {
		name     string
		o        *swapv1.SwapOrder
		controls Controls
		capacity Capacity
		want     Decision
	}{
		{"new order with a creation slot", fresh, Controls{}, slot, create},
		{"new order, creation share in use", fresh, Controls{}, Capacity{}, Decision{Step: StepCreateDeposit, Hold: HoldCreatesSaturated}},
		{"tracked order: no creation slot needed", pollDue, Controls{}, Capacity{}, Decision{Step: StepPoll}},
		{"tracked order: a free creation slot is not taken", pollDue, Controls{}, slot, Decision{Step: StepPoll}},
		{"waiting", waiting, Controls{}, Capacity{}, Decision{Step: StepWait}},

		{"paused new order: no address", fresh, Controls{Paused: true}, slot, Decision{Step: StepCreateDeposit, Hold: HoldPaused}},
		{"paused before the creation share is checked", fresh, Controls{Paused: true}, Capacity{}, Decision{Step: StepCreateDeposit, Hold: HoldPaused}},
		{"paused: no poll", pollDue, Controls{Paused: true}, Capacity{}, Decision{Step: StepPoll, Hold: HoldPaused}},
		{"paused: no hint forwarded", hinted, Controls{Paused: true}, Capacity{}, Decision{Step: StepForwardHint, Hold: HoldPaused}},
		{"paused: webhooks still emitted", unnotified, Controls{Paused: true}, Capacity{}, Decision{Step: StepEmit}},
		{"paused: a terminal order is archived", terminal, Controls{Paused: true}, Capacity{}, Decision{Step: StepArchive}},
		{"paused and waiting", waiting, Controls{Paused: true}, Capacity{}, Decision{Step: StepWait}},

		{"poll now: a waiting order polls", waiting, Controls{PollNow: true}, Capacity{}, Decision{Step: StepPoll}},
		{"poll now: a stopped watch polls once more", stopped, Controls{PollNow: true}, Capacity{}, Decision{Step: StepPoll}},
		{"poll now passes a pause", waiting, Controls{Paused: true, PollNow: true}, Capacity{}, Decision{Step: StepPoll}},
		{"poll now passes a pause for a hint", hinted, Controls{Paused: true, PollNow: true}, Capacity{}, Decision{Step: StepForwardHint}},
		{"poll now never passes a pause for the address", fresh, Controls{Paused: true, PollNow: true}, slot, Decision{Step: StepCreateDeposit, Hold: HoldPaused}},
		{"poll now waits behind emission", unnotified, Controls{PollNow: true}, Capacity{}, Decision{Step: StepEmit}},

		{"resolve comes first", unnotified, Controls{Resolve: true}, Capacity{}, Decision{Step: StepResolve}},
		{"resolve passes a pause", pollDue, Controls{Resolve: true, Paused: true, PollNow: true}, Capacity{}, Decision{Step: StepResolve}},
		{"resolve of a new order needs no creation slot", fresh, Controls{Resolve: true}, Capacity{}, Decision{Step: StepResolve}},
		{"resolve of a new order takes no free creation slot", fresh, Controls{Resolve: true}, slot, Decision{Step: StepResolve}},

		{"held for review: no address", fresh, held, slot, Decision{Step: StepCreateDeposit, Hold: HoldForReview}},
		{"held for review: the hold's webhook is still emitted", heldUnnotified, held, slot, Decision{Step: StepEmit}},
		{"held for review: an emission retry waits its time", heldRetryLater, held, slot, Decision{Step: StepCreateDeposit, Hold: HoldForReview}},
		{"held for review and paused: the review holds", fresh, Controls{Review: ReviewHeld, Paused: true}, slot, Decision{Step: StepCreateDeposit, Hold: HoldForReview}},
		{"held for review: poll now does not pass the hold", fresh, Controls{Review: ReviewHeld, PollNow: true}, slot, Decision{Step: StepCreateDeposit, Hold: HoldForReview}},
		{"approved: the address is requested", fresh, approved, slot, create},
		{"approved, creation share in use", fresh, approved, Capacity{}, Decision{Step: StepCreateDeposit, Hold: HoldCreatesSaturated}},
		{"approved but paused: the pause holds the address", fresh, Controls{Review: ReviewApproved, Paused: true}, slot, Decision{Step: StepCreateDeposit, Hold: HoldPaused}},
		{"rejected: the order fails", fresh, rejected, Capacity{}, Decision{Step: StepEndReview}},
		{"rejected: a free creation slot is not taken", fresh, rejected, slot, Decision{Step: StepEndReview}},
		{"rejected while paused: the order fails", fresh, Controls{Review: ReviewRejected, Paused: true}, Capacity{}, Decision{Step: StepEndReview}},
		{"review expired: the order fails", heldUnnotified, expired, Capacity{}, Decision{Step: StepEndReview}},
		{"resolve of a held order comes first", fresh, Controls{Resolve: true, Review: ReviewHeld}, Capacity{}, Decision{Step: StepResolve}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Plan(State{Order: tt.o, Controls: tt.controls, Offer: tt.capacity, Archive: true, Now: now})
			tt.want.NotifiedSeq = tt.o.Status.NotifiedSeq
			if got != tt.want {
				t.Errorf("Plan = %+v, want %+v", got, tt.want)
			}
			// The slot question is this table's: a step that takes a slot is planned only
			// when one is on offer, and only the deposit address takes one.
			if got.Take.CreateSlot && (!tt.capacity.CreateSlot || got.Step != StepCreateDeposit || got.Hold != HoldNone) {
				t.Errorf("Plan takes a creation slot it was not offered or does not need: %+v", got)
			}
		})
	}
}

// What memory knows was emitted is carried into the plan: no second emission, and the
// notifiedSeq the pass writes when it writes anyway.
func TestPlanCarriesEmitted(t *testing.T) {
	unnotified := order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 3, NotifiedSeq: 1, NextPollAt: later}, nil)
	terminal := order(swapv1.SwapOrderStatus{Status: failed, LastSeq: 3, NotifiedSeq: 1}, nil)
	tests := []struct {
		name    string
		o       *swapv1.SwapOrder
		emitted int64
		archive bool
		want    Decision
	}{
		{"nothing remembered: emit", unnotified, 0, true, Decision{Step: StepEmit, NotifiedSeq: 1}},
		{"emitted up to the last seq: wait", unnotified, 3, true, Decision{Step: StepWait, NotifiedSeq: 3}},
		{"emitted beyond the history is capped", unnotified, 9, true, Decision{Step: StepWait, NotifiedSeq: 3}},
		{"emitted part of the way: emit the rest", unnotified, 2, true, Decision{Step: StepEmit, NotifiedSeq: 2}},
		{"memory behind the stored seq changes nothing", unnotified, 1, true, Decision{Step: StepEmit, NotifiedSeq: 1}},
		{"terminal with an archive: carried, then archived", terminal, 3, true, Decision{Step: StepArchive, NotifiedSeq: 3}},
		{"terminal without an archive: StepEmit writes it", terminal, 3, false, Decision{Step: StepEmit, NotifiedSeq: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Plan(State{Order: tt.o, Memory: Memory{Emitted: tt.emitted}, Archive: tt.archive, Now: now})
			if got != tt.want {
				t.Errorf("Plan = %+v, want %+v", got, tt.want)
			}
			if tt.o.Status.NotifiedSeq != 1 {
				t.Error("Plan changed the order it was given")
			}
		})
	}
}

// Every control, hold and capacity input, over orders in each state the step table knows:
// the plan always names a step, takes a creation slot only for the deposit address it
// requests with a slot on offer, holds only a step that would call the provider (or the
// address for review), and the operator's resolve and a pause come before capacity.
func TestPlanEveryInput(t *testing.T) {
	states := map[string]*swapv1.SwapOrder{
		"new":        order(swapv1.SwapOrderStatus{}, nil),
		"poll due":   order(swapv1.SwapOrderStatus{Status: processing, LastSeq: 2, NotifiedSeq: 2, NextPollAt: earlier}, nil),
		"waiting":    order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NotifiedSeq: 1, NextPollAt: later}, nil),
		"hinted":     order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NotifiedSeq: 1, NextPollAt: later}, hint),
		"unnotified": order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 2, NotifiedSeq: 1, NextPollAt: earlier}, nil),
		"terminal":   order(swapv1.SwapOrderStatus{Status: failed, LastSeq: 1, NotifiedSeq: 1}, nil),
	}
	reviews := []ReviewStep{ReviewNone, ReviewHeld, ReviewApproved, ReviewRejected, ReviewExpired}
	for name, o := range states {
		for _, paused := range []bool{false, true} {
			for _, pollNow := range []bool{false, true} {
				for _, resolve := range []bool{false, true} {
					for _, review := range reviews {
						for _, offered := range []bool{false, true} {
							c := Controls{Paused: paused, PollNow: pollNow, Resolve: resolve, Review: review}
							d := Plan(State{Order: o, Controls: c, Offer: Capacity{CreateSlot: offered}, Archive: true, Now: now})
							where := fmt.Sprintf("%s %+v offered=%v: %+v", name, c, offered, d)
							switch {
							case d.Step == StepNone:
								t.Errorf("%s: no step", where)
							case d.Take.CreateSlot && (!offered || d.Step != StepCreateDeposit || d.Hold != HoldNone):
								t.Errorf("%s: takes a slot it was not offered or does not need", where)
							case d.Step == StepCreateDeposit && d.Hold == HoldNone && !d.Take.CreateSlot:
								t.Errorf("%s: requests the address without a slot", where)
							case d.Hold != HoldNone && d.Hold != HoldForReview && !callsProvider(d.Step):
								t.Errorf("%s: holds a step that calls no provider", where)
							case resolve && d.Step != StepResolve:
								t.Errorf("%s: the operator's resolve does not come first", where)
							case d.Hold == HoldCreatesSaturated && (paused || offered):
								t.Errorf("%s: held for capacity although paused or offered a slot", where)
							}
						}
					}
				}
			}
		}
	}
}
