package screening

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Subject is one address of an order to screen.
type Subject struct {
	// Field is the request field: sender, recipient or refundTo.
	Field   string
	Chain   string
	Address string
}

// Answer is what one source said about an order's subjects.
type Answer struct {
	Source swapv1.ScreeningSource
	// Matches are the subjects the source lists. Unavailable (Source.Unavailable set) means
	// it could not say.
	Matches []swapv1.ScreeningMatch
	// NoList: the source could not say because it has no usable list (Source.Unavailable
	// says which state it is in). That holds for every order alike, so fail-closed refuses
	// the request rather than holding each order for a review nobody can do.
	NoList bool
}

// Verdict is what screening does with a request.
type Verdict int

// String is the verdict's metric label.
func (v Verdict) String() string {
	switch v {
	case Hold:
		return "held"
	case Block:
		return "blocked"
	case Refuse:
		return "refused"
	}
	return "clear"
}

const (
	// Allow creates the order as usual.
	Allow Verdict = iota
	// Hold creates the order held for review: no deposit address until approved.
	Hold
	// Block refuses the request: 403 address not allowed, no order.
	Block
	// Refuse turns the request away until screening can answer: 503 service unavailable, no
	// order.
	Refuse
)

// Decision is a verdict and the record the order keeps of it.
type Decision struct {
	Verdict Verdict
	// Record is nil for Block and Refuse (there is no order to keep it) and when no source
	// answered.
	Record *swapv1.ScreeningRecord
	// Blocked is the first match that blocked the request.
	Blocked *swapv1.ScreeningMatch
}

// Decide applies a partner's policy (nil: the defaults) to the sources' answers. A match acts
// first (block or review); otherwise a source that could not answer refuses the request (no
// usable list) or holds the order (an outage) under fail-closed, or lets it through under
// fail-open; otherwise the order is clear. With no source configured there is nothing to
// record.
func Decide(p *swapv1.PartnerScreening, answers []Answer, at metav1.Time) Decision {
	if len(answers) == 0 {
		return Decision{Verdict: Allow}
	}
	onMatch, onUnavailable := policy(p)
	rec := swapv1.ScreeningRecord{At: at}
	unavailable, noList := false, false
	for _, a := range answers {
		rec.Sources = append(rec.Sources, a.Source)
		rec.Matches = append(rec.Matches, a.Matches...)
		unavailable = unavailable || a.Source.Unavailable != ""
		noList = noList || a.NoList
	}
	closed := unavailable && onUnavailable == swapv1.ScreeningFailClosed
	switch {
	case len(rec.Matches) > 0 && onMatch == swapv1.ScreeningBlock:
		return Decision{Verdict: Block, Blocked: &rec.Matches[0]}
	case len(rec.Matches) == 0 && closed && noList:
		return Decision{Verdict: Refuse}
	case len(rec.Matches) > 0, closed:
		rec.Outcome = swapv1.ScreeningHeld
		return Decision{Verdict: Hold, Record: &rec}
	case unavailable:
		rec.Outcome = swapv1.ScreeningFailedOpen
	default:
		rec.Outcome = swapv1.ScreeningClear
	}
	return Decision{Verdict: Allow, Record: &rec}
}

// policy is a partner's screening policy with the defaults filled in.
func policy(p *swapv1.PartnerScreening) (swapv1.ScreeningAction, swapv1.ScreeningFailureMode) {
	onMatch, onUnavailable := swapv1.ScreeningBlock, swapv1.ScreeningFailClosed
	if p != nil {
		if p.OnMatch != "" {
			onMatch = p.OnMatch
		}
		if p.OnUnavailable != "" {
			onUnavailable = p.OnUnavailable
		}
	}
	return onMatch, onUnavailable
}
