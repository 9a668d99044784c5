package controllers

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
	"github.com/swaprouter/swaprouter/internal/orders"
)

// DefaultReviewBound is how long an order screening held waits for an operator before it
// fails ReviewExpired.
const DefaultReviewBound = 72 * time.Hour

// ReasonReviewExpired is the status reason of a held order nobody decided within the bound.
const ReasonReviewExpired = "ReviewExpired"

// ReasonHeldForReview is the reason of the history entry that tells the partner screening
// held its order.
const ReasonHeldForReview = "HeldForReview"

// reviewBound is ReviewBound or its default.
func (r *SwapOrderReconciler) reviewBound() time.Duration {
	if r.ReviewBound > 0 {
		return r.ReviewBound
	}
	return DefaultReviewBound
}

// readReview decides where screening's hold of the order stands for the plan. An approve or
// reject request verbs.Decide refuses is answered with a Warning Event; a reject, and an
// approve of a review that ends otherwise, are consumed; an allowed approve is consumed by
// the step that records it (approve), so a pass held back leaves it for the next.
func (r *SwapOrderReconciler) readReview(p *orderPass, c *operatorControls) orders.ReviewStep {
	o := p.order
	ann := o.GetAnnotations()
	state := orders.ReviewState{Held: verbs.HeldForReview(o), HeldSince: o.CreationTimestamp.Time}
	_, approve := ann[swapv1.AnnotationApprove]
	if approve {
		state.Approved = p.acceptReviewRequest(verbs.Request{Verb: verbs.Approve})
	}
	if why, ok := ann[swapv1.AnnotationReject]; ok {
		c.consumed = append(c.consumed, swapv1.AnnotationReject)
		state.Rejected = p.acceptReviewRequest(verbs.Request{Verb: verbs.Reject, Reason: why})
	}
	review := orders.NextReview(state, p.now, r.reviewBound())
	if approve && (!state.Approved || review != orders.ReviewApproved) {
		c.consumed = append(c.consumed, swapv1.AnnotationApprove)
	}
	return review
}

// holdForReview keeps a held order from requesting its deposit address. The first pass
// records the hold, which the partner learns of as of any status change: a history entry,
// whose webhook follows the status write. The pass comes back when the review bound passes.
func (r *SwapOrderReconciler) holdForReview(p *orderPass) ctrl.Result {
	o, st := p.order, &p.order.Status
	if st.Substatus != swapv1.SubstatusHeldForReview {
		st.Substatus = swapv1.SubstatusHeldForReview
		if t, ok := orders.RecordHeld(st, ReasonHeldForReview, metav1.NewTime(p.now)); ok {
			p.effect.transitions = append(p.effect.transitions, t)
		}
		p.effect.count(r.metrics.reviews, "held")
		p.effect.event("Warning", ReasonHeldForReview, "Screen", "screening held the order (%s); "+
			"no deposit address until kubectl swaprouter approve or reject", heldBecause(o.Spec.Screening))
	}
	return ctrl.Result{RequeueAfter: o.CreationTimestamp.Add(r.reviewBound()).Sub(p.now) + nextStepNow}
}

// approve records an operator's approval of a held order in the pass that requests its
// deposit address, and answers the request.
func (r *SwapOrderReconciler) approve(p *orderPass) {
	o, st := p.order, &p.order.Status
	by := o.GetAnnotations()[swapv1.RequestedBy(swapv1.AnnotationApprove)]
	st.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewApproved, By: by, At: metav1.NewTime(p.now)}
	st.Substatus = ""
	p.controls.consumed = append(p.controls.consumed, swapv1.AnnotationApprove)
	p.effect.count(r.metrics.reviews, "approved")
	p.effect.event("Normal", verbs.ReasonApproved, "Approve", "approved by %s; the deposit address is requested", by)
}

// endReview fails a held order, rejected by an operator or expired: it never had a deposit
// address.
func (r *SwapOrderReconciler) endReview(p *orderPass) ctrl.Result {
	o, st := p.order, &p.order.Status
	now := metav1.NewTime(p.now)
	reason, metric, note := ReasonReviewExpired, "expired", fmt.Sprintf("nobody approved or rejected the order within %s", r.reviewBound())
	st.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewExpired, At: now}
	if p.controls.Review == orders.ReviewRejected {
		ann := o.GetAnnotations()
		by, why := ann[swapv1.RequestedBy(swapv1.AnnotationReject)], ann[swapv1.AnnotationReject]
		reason, metric, note = verbs.ReasonScreeningRejected, "rejected", fmt.Sprintf("rejected by %s: %s", by, why)
		st.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewRejected, By: by, Reason: why, At: now}
	}
	st.Substatus = ""
	p.transition(orders.Change{To: swapv1.OrderFailed, Reason: reason})
	orders.SetConditions(st, o.Generation, orders.Issue{}, now)
	p.effect.count(r.metrics.reviews, metric)
	p.effect.event("Warning", reason, "Review", "%s", note)
	p.log.Info("held order failed", "reason", reason)
	return ctrl.Result{RequeueAfter: nextStepNow}
}

// acceptReviewRequest reports whether verbs.Decide lets the request act, refusing it
// otherwise.
func (p *orderPass) acceptReviewRequest(req verbs.Request) bool {
	if err := verbs.Decide(req, verbs.Of(p.order, false)); err != nil {
		p.refuse(req.Verb, err)
		return false
	}
	return true
}

// heldBecause says why screening held an order: the matches, or the sources that could not
// answer.
func heldBecause(rec *swapv1.ScreeningRecord) string {
	if len(rec.Matches) > 0 {
		m := rec.Matches[0]
		return m.Field + " " + m.Address + " is listed by " + m.Source + ": " + m.Entry
	}
	for _, s := range rec.Sources {
		if s.Unavailable != "" {
			return s.Name + " could not answer: " + s.Unavailable
		}
	}
	return "held"
}

// addressRequestedSince is when the order began to ask for its deposit address: its
// creation, or its approval when screening held it.
func addressRequestedSince(o *swapv1.SwapOrder) time.Time {
	if rv := o.Status.Review; rv != nil && rv.Decision == swapv1.ReviewApproved {
		return rv.At.Time
	}
	return o.CreationTimestamp.Time
}
