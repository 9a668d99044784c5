package controllers

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/screening"
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

// holdForReview keeps an order screening held from requesting its deposit address until an
// operator approves it (AnnotationApprove), fails it on a reject (AnnotationReject) or when
// the review bound passes. done says the pass ends here; after an approval the pass goes on
// to request the address. Requests verbs.Decide refuses are consumed with a Warning Event.
func (r *SwapOrderReconciler) holdForReview(p *orderPass, c *operatorControls) (res ctrl.Result, done bool) {
	o, st := p.order, &p.order.Status
	ann := o.GetAnnotations()
	state := screening.ReviewState{Held: verbs.HeldForReview(o), HeldSince: o.CreationTimestamp.Time}
	if _, ok := ann[swapv1.AnnotationApprove]; ok {
		c.consumed = append(c.consumed, swapv1.AnnotationApprove)
		state.Approved = r.acceptReviewRequest(p, verbs.Request{Verb: verbs.Approve})
	}
	why, ok := ann[swapv1.AnnotationReject]
	if ok {
		c.consumed = append(c.consumed, swapv1.AnnotationReject)
		state.Rejected = r.acceptReviewRequest(p, verbs.Request{Verb: verbs.Reject, Reason: why})
	}
	now := metav1.NewTime(p.now)
	switch screening.NextReview(state, p.now, r.reviewBound()) {
	case screening.StayHeld:
		// A pause of a held order is recorded as usual; it holds the address after approval.
		markPaused(st, o.Generation, c.Paused, pauseNote(ann), now)
		if st.Substatus != swapv1.SubstatusHeldForReview {
			st.Substatus = swapv1.SubstatusHeldForReview
			// The partner learns of the hold as of any status change: a history entry,
			// whose webhook follows the status write.
			if t, ok := orders.RecordHeld(st, ReasonHeldForReview, now); ok {
				p.transitions = append(p.transitions, t)
			}
			r.metrics.reviews.WithLabelValues("held").Inc()
			r.Recorder.Eventf(o, nil, "Warning", ReasonHeldForReview, "Screen", "screening held the order (%s); "+
				"no deposit address until kubectl swaprouter approve or reject", heldBecause(o.Spec.Screening))
		}
		return ctrl.Result{RequeueAfter: o.CreationTimestamp.Add(r.reviewBound()).Sub(p.now) + nextStepNow}, true
	case screening.Approve:
		by := ann[swapv1.RequestedBy(swapv1.AnnotationApprove)]
		st.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewApproved, By: by, At: now}
		st.Substatus = ""
		r.metrics.reviews.WithLabelValues("approved").Inc()
		r.Recorder.Eventf(o, nil, "Normal", verbs.ReasonApproved, "Approve", "approved by %s; the deposit address is requested", by)
		return ctrl.Result{}, false
	case screening.Reject:
		by := ann[swapv1.RequestedBy(swapv1.AnnotationReject)]
		st.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewRejected, By: by, Reason: why, At: now}
		r.endReview(p, verbs.ReasonScreeningRejected, "rejected", "rejected by %s: %s", by, why)
		return ctrl.Result{RequeueAfter: nextStepNow}, true
	case screening.Expire:
		st.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewExpired, At: now}
		r.endReview(p, ReasonReviewExpired, "expired", "nobody approved or rejected the order within %s", r.reviewBound())
		return ctrl.Result{RequeueAfter: nextStepNow}, true
	}
	return ctrl.Result{}, false
}

// acceptReviewRequest reports whether verbs.Decide lets the request act, refusing it
// otherwise.
func (r *SwapOrderReconciler) acceptReviewRequest(p *orderPass, req verbs.Request) bool {
	if err := verbs.Decide(req, verbs.Of(p.order, false)); err != nil {
		refuseRequest(r.Recorder, p.log, p.order, req.Verb, err)
		return false
	}
	return true
}

// endReview fails a held order: it never had a deposit address.
func (r *SwapOrderReconciler) endReview(p *orderPass, reason, metric, format string, args ...any) {
	o, st := p.order, &p.order.Status
	st.Substatus = ""
	p.transition(orders.Change{To: swapv1.OrderFailed, Reason: reason})
	orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
	r.metrics.reviews.WithLabelValues(metric).Inc()
	r.Recorder.Eventf(o, nil, "Warning", reason, "Review", format, args...)
	p.log.Info("held order failed", "reason", reason)
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
