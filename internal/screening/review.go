package screening

import "time"

// ReviewStep is what the order reconciler does about an order's screening hold.
type ReviewStep int

const (
	// NotHeld: the order goes its usual way (never held, or its review ended).
	NotHeld ReviewStep = iota
	// StayHeld: no deposit address; wait for an operator until the bound.
	StayHeld
	// Approve: record the approval; the deposit address is requested.
	Approve
	// Reject: FAILED ScreeningRejected.
	Reject
	// Expire: the bound passed with no decision: FAILED ReviewExpired.
	Expire
)

// ReviewState is what the review step needs to know of an order.
type ReviewState struct {
	// Held: screening held the order and no review has ended (verbs.HeldForReview).
	Held bool
	// Approved and Rejected: an operator's request the order carries, accepted by
	// verbs.Decide.
	Approved, Rejected bool
	// HeldSince is when the order was created (held from its first moment).
	HeldSince time.Time
}

// NextReview chooses the review step. An operator's decision present when the reconciler
// looks wins over the bound (a reject over an approve: both present means doubt); the bound
// ends a review nobody decided.
func NextReview(s ReviewState, now time.Time, bound time.Duration) ReviewStep {
	switch {
	case !s.Held:
		return NotHeld
	case s.Rejected:
		return Reject
	case s.Approved:
		return Approve
	case !now.Before(s.HeldSince.Add(bound)):
		return Expire
	}
	return StayHeld
}
