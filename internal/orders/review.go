package orders

import "time"

// ReviewStep is where screening's hold of an order stands once the operator's requests are
// read; Plan takes it as an input.
type ReviewStep int

const (
	// ReviewNone: the order goes its usual way (never held, or its review ended).
	ReviewNone ReviewStep = iota
	// ReviewHeld: no deposit address; wait for an operator until the bound.
	ReviewHeld
	// ReviewApproved: record the approval; the deposit address is requested.
	ReviewApproved
	// ReviewRejected: FAILED ScreeningRejected.
	ReviewRejected
	// ReviewExpired: the bound passed with no decision: FAILED ReviewExpired.
	ReviewExpired
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
		return ReviewNone
	case s.Rejected:
		return ReviewRejected
	case s.Approved:
		return ReviewApproved
	case !now.Before(s.HeldSince.Add(bound)):
		return ReviewExpired
	}
	return ReviewHeld
}
