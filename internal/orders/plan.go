package orders

import (
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Controls are the operator's requests on an order, as decided (an allowed request is set,
// a refused one is not).
type Controls struct {
	// Paused holds provider steps: no deposit address is created, no poll or hint is sent.
	Paused bool
	// PollNow asks for a tracking step now, paused or not, also once the watch stopped.
	PollNow bool
	// Resolve ends the order as the operator says, before anything else.
	Resolve bool
	// Review is where screening's hold stands (NextReview): a held order gets no deposit
	// address until approved, and a rejected or expired one fails.
	Review ReviewStep
}

// Capacity is a share of the reconciler's capacity: what is on offer to a pass, and what
// its plan takes.
type Capacity struct {
	// CreateSlot: a slot of the workers' deposit-creation share.
	CreateSlot bool
}

// Memory is what the reconciler remembers of an order between passes (in memory only), as
// the pass read it.
type Memory struct {
	// Failures is the run of consecutive provider failures of the order, begun at
	// FailingSince (zero: none).
	Failures     int32
	FailingSince time.Time
	// EmitFailures is the run of consecutive failed webhook delivery creates.
	EmitFailures int32
	// Emitted is the seq up to which the order's webhook deliveries are known to exist
	// beyond its stored notifiedSeq (0: none known).
	Emitted int64
}

// State is everything a pass is planned from.
type State struct {
	Order    *swapv1.SwapOrder
	Controls Controls
	// Offer is the shared capacity free for the pass now.
	Offer  Capacity
	Memory Memory
	// Archive says terminal orders are written to an archive (one is configured).
	Archive bool
	Now     time.Time
}

// Hold says why a pass takes no step now.
type Hold string

const (
	// HoldNone: the pass takes its step.
	HoldNone Hold = ""
	// HoldPaused: an operator paused the order and the step would call the provider.
	HoldPaused Hold = "paused"
	// HoldForReview: screening held the order; its deposit address waits for an operator's
	// approval (recorded as the order's hold the first time).
	HoldForReview Hold = "review"
	// HoldCreatesSaturated: the deposit-creation share of the workers is in use; the order
	// waits for a released slot.
	HoldCreatesSaturated Hold = "creates_saturated"
)

// Decision is what one pass does: Step, unless Hold says why it waits. Take is the shared
// capacity the step needs (taken before it runs, given back when it ended); NotifiedSeq is
// the order's notifiedSeq with what memory knows was emitted carried into it.
type Decision struct {
	Step        Step
	Hold        Hold
	Take        Capacity
	NotifiedSeq int64
}

// Plan decides the pass of s.Order: the step its status calls for (NextStep), turned and
// held by the operator's controls, the capacity on offer and what memory knows was emitted.
// Every reason to do something other than NextStep is an input here, so the choice of step,
// hold and capacity is one table.
func Plan(s State) Decision {
	o := *s.Order
	o.Status.NotifiedSeq = CarryNotified(&s.Order.Status, s.Memory.Emitted, s.Archive)
	d := plan(&o, s.Controls, s.Offer, s.Now)
	d.NotifiedSeq = o.Status.NotifiedSeq
	return d
}

func plan(o *swapv1.SwapOrder, c Controls, offer Capacity, now time.Time) Decision {
	if c.Resolve {
		return Decision{Step: StepResolve}
	}
	switch c.Review {
	case ReviewRejected, ReviewExpired:
		return Decision{Step: StepEndReview}
	case ReviewHeld:
		if unnotifiedDue(&o.Status, now) {
			// The hold's own webhook, whose delivery was not ensured after its write.
			return Decision{Step: StepEmit}
		}
		return Decision{Step: StepCreateDeposit, Hold: HoldForReview}
	}
	step := NextStep(o, now)
	if c.PollNow && step == StepWait {
		step = StepPoll
	}
	if c.Paused && !o.Status.Status.IsTerminal() && callsProvider(step) &&
		(step == StepCreateDeposit || !c.PollNow) {
		return Decision{Step: step, Hold: HoldPaused}
	}
	if step == StepCreateDeposit {
		if !offer.CreateSlot {
			return Decision{Step: step, Hold: HoldCreatesSaturated}
		}
		return Decision{Step: step, Take: Capacity{CreateSlot: true}}
	}
	return Decision{Step: step}
}

// CarryNotified is the notifiedSeq a pass works with: the stored one, moved up to emitted
// (the seq up to which the deliveries are known to exist) so it does not emit again and its
// status write, if it makes one, records it. A terminal order without an archive has no
// later write to carry it and keeps the stored one: StepEmit writes it.
func CarryNotified(st *swapv1.SwapOrderStatus, emitted int64, archive bool) int64 {
	if (st.Status.IsTerminal() && !archive) || emitted <= st.NotifiedSeq {
		return st.NotifiedSeq
	}
	return min(emitted, st.LastSeq)
}

// callsProvider reports whether step asks the order's provider.
func callsProvider(step Step) bool {
	return step == StepCreateDeposit || step == StepPoll || step == StepForwardHint
}

// NeedsAddress reports whether o's next provider step is the creation of its deposit
// address (the step that takes a slot of the creation share).
func NeedsAddress(o *swapv1.SwapOrder) bool { return o.Status.Status == "" }
