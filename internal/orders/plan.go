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

// Capacity is what the pass holds of the reconciler's shared capacity.
type Capacity struct {
	// CreateSlot: a slot of the workers' deposit-creation share is held for this pass.
	CreateSlot bool
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

// Decision is what one pass does: Step, unless Hold says why it waits.
type Decision struct {
	Step Step
	Hold Hold
}

// Plan decides the pass of o at now: the step its status calls for (NextStep), turned and
// held by the operator's controls and the capacity the pass holds. Every reason to do
// something other than NextStep is an input here, so the whole choice is one table.
func Plan(o *swapv1.SwapOrder, c Controls, capacity Capacity, now time.Time) Decision {
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
	if step == StepCreateDeposit && !capacity.CreateSlot {
		return Decision{Step: step, Hold: HoldCreatesSaturated}
	}
	return Decision{Step: step}
}

// callsProvider reports whether step asks the order's provider.
func callsProvider(step Step) bool {
	return step == StepCreateDeposit || step == StepPoll || step == StepForwardHint
}

// NeedsCreateSlot reports whether the pass of o under c may request its deposit address, so
// takes a slot of the creation share before it is planned: not when a resolve, a pause or a
// screening review decides the pass instead.
func NeedsCreateSlot(o *swapv1.SwapOrder, c Controls) bool {
	return NeedsAddress(o) && !c.Resolve && !c.Paused && (c.Review == ReviewNone || c.Review == ReviewApproved)
}

// NeedsAddress reports whether o's next provider step is the creation of its deposit
// address (the step that takes a slot of the creation share).
func NeedsAddress(o *swapv1.SwapOrder) bool { return o.Status.Status == "" }
