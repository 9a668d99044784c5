// Package verbs decides which operator control (`kubectl swaprouter` verb) may act on which
// order. The plugin refuses what Decide refuses before it writes anything, and the order
// reconciler refuses (and removes) the same requests written any other way, so the two never
// disagree about what a verb can do.
package verbs

import (
	"fmt"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Verb is one operator control.
type Verb string

const (
	Pause     Verb = "pause"
	Resume    Verb = "resume"
	Poll      Verb = "poll"
	Resolve   Verb = "resolve"
	Redeliver Verb = "redeliver"
	Approve   Verb = "approve"
	Reject    Verb = "reject"
)

// Annotation is the SwapOrder annotation the verb writes (resume removes AnnotationPaused).
func (v Verb) Annotation() string {
	switch v {
	case Pause, Resume:
		return swapv1.AnnotationPaused
	case Poll:
		return swapv1.AnnotationPoll
	case Resolve:
		return swapv1.AnnotationResolve
	case Redeliver:
		return swapv1.AnnotationRedeliver
	case Approve:
		return swapv1.AnnotationApprove
	case Reject:
		return swapv1.AnnotationReject
	}
	return ""
}

// Reasons of the Events with which the order reconciler reports what became of a request;
// a refusal's is Verb.RejectedReason.
const (
	// ReasonResolved: the order was resolved (also its status reason and history reason).
	ReasonResolved = "OperatorResolved"
	// ReasonPolled: the provider was asked on request.
	ReasonPolled = "Polled"
	// ReasonRedelivered: the order's webhook events were sent again on request.
	ReasonRedelivered = "Redelivered"
	// ReasonPaused: the order was paused (its Paused condition came on), naming who paused it.
	ReasonPaused = "Paused"
	// ReasonResumed: the pause of a live order was lifted; provider steps resume.
	ReasonResumed = "Resumed"
	// ReasonPauseEnded: the order ended while paused, which ends the pause.
	ReasonPauseEnded = "PauseEnded"
	// ReasonApproved: an order held for review was approved; its address is requested.
	ReasonApproved = "ReviewApproved"
	// ReasonScreeningRejected: an order held for review was rejected (also its status reason).
	ReasonScreeningRejected = "ScreeningRejected"
)

// RejectedReason is the reason of the Warning Event the order reconciler records when it
// refuses the verb's request: the plugin looks for it to report why.
func (v Verb) RejectedReason() string {
	switch v {
	case Pause:
		return "PauseRejected"
	case Poll:
		return "PollRejected"
	case Resolve:
		return "ResolveRejected"
	case Redeliver:
		return "RedeliverRejected"
	case Approve:
		return "ApproveRefused"
	case Reject:
		return "RejectRefused"
	}
	return ""
}

// Where tells where an order was found.
type Where int

const (
	// InEtcd: the SwapOrder exists.
	InEtcd Where = iota
	// Archived: only the archive holds the order; it ended and left etcd after its TTL.
	Archived
	// Missing: neither etcd nor the archive has the order.
	Missing
)

// Order is what a decision needs to know about one order.
type Order struct {
	ID    string
	Where Where
	// Status is empty while the order is new (no deposit address yet).
	Status swapv1.OrderStatus
	// PausedBy is who paused the order (the API server's stamp) and why (the paused
	// annotation's value); Paused says it is set.
	Paused   bool
	PausedBy string
	// Events is how many transitions (each one webhook event) the order's history holds.
	Events int
	// WebhooksEnabled: the order's partner has status webhooks on (only redeliver asks).
	WebhooksEnabled bool
	// HeldForReview: screening held the order and no review has ended yet.
	HeldForReview bool
}

// Of describes o, found in etcd, for a decision; webhooksEnabled is its partner's setting.
func Of(o *swapv1.SwapOrder, webhooksEnabled bool) Order {
	why, paused := o.Annotations[swapv1.AnnotationPaused]
	if by := o.Annotations[swapv1.RequestedBy(swapv1.AnnotationPaused)]; by != "" {
		why = by + ": " + why
	}
	return Order{ID: o.Spec.OrderID, Where: InEtcd, Status: o.Status.Status, Paused: paused, PausedBy: why,
		Events: len(o.Status.History), WebhooksEnabled: webhooksEnabled, HeldForReview: HeldForReview(o)}
}

// HeldForReview reports whether screening held o and its review has not ended: no deposit
// address until an operator approves it.
func HeldForReview(o *swapv1.SwapOrder) bool {
	return o.Spec.Screening != nil && o.Spec.Screening.Outcome == swapv1.ScreeningHeld &&
		o.Status.Review == nil && o.Status.Status == ""
}

// Request is a verb and, for resolve, the terminal status asked for; for reject, why.
type Request struct {
	Verb      Verb
	ResolveTo swapv1.OrderStatus
	Reason    string
}

// Refusal says why a request cannot act on an order.
type Refusal struct {
	Verb    Verb
	OrderID string
	Why     string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s refused: order %s %s", r.Verb, r.OrderID, r.Why)
}

// Decide returns nil when r can act on o, else a *Refusal that says why in words an operator
// can act on.
func Decide(r Request, o Order) error {
	if why := refusal(r, o); why != "" {
		return &Refusal{Verb: r.Verb, OrderID: o.ID, Why: why}
	}
	return nil
}

func refusal(r Request, o Order) string {
	switch o.Where {
	case Missing:
		return "does not exist (neither etcd nor the order archive has it)"
	case Archived:
		if r.Verb != Redeliver {
			return fmt.Sprintf("is archived: it ended as %s and left etcd; only redeliver acts on it", o.Status)
		}
		return redelivery(o)
	}
	terminal := o.Status.IsTerminal()
	switch r.Verb {
	case Pause:
		switch {
		case terminal:
			return fmt.Sprintf("is already %s: a finished order takes no provider steps, there is nothing to pause", o.Status)
		case o.Paused:
			return fmt.Sprintf("is already paused (%s); resume it first to pause it again", o.PausedBy)
		}
	case Resume:
		if !o.Paused {
			return "is not paused"
		}
	case Poll:
		switch {
		case terminal:
			return fmt.Sprintf("is already %s: the provider has nothing more to report", o.Status)
		case o.Status == "" && o.Paused:
			return "has no deposit address yet, and its pause holds the address request: resume it"
		case o.Status == "":
			return "has no deposit address yet: there is no provider order to poll (the address request is under way)"
		}
	case Resolve:
		switch {
		case !r.ResolveTo.IsTerminal():
			return fmt.Sprintf("cannot be resolved to %q: the status must be SUCCESS, REFUNDED or FAILED", r.ResolveTo)
		case terminal:
			return fmt.Sprintf("is already %s: a finished order keeps its status", o.Status)
		case o.Status == "" && r.ResolveTo != swapv1.OrderFailed:
			return fmt.Sprintf("never got a deposit address: it can only be resolved to FAILED, not %s", r.ResolveTo)
		}
	case Redeliver:
		return redelivery(o)
	case Approve, Reject:
		switch {
		case terminal:
			return fmt.Sprintf("is already %s: there is nothing to %s", o.Status, r.Verb)
		case !o.HeldForReview:
			return "is not held for review by screening"
		case r.Verb == Reject && strings.TrimSpace(r.Reason) == "":
			return "needs a reason to be rejected (--reason)"
		}
	default:
		return fmt.Sprintf("cannot be acted on by the unknown verb %q", r.Verb)
	}
	return ""
}

func redelivery(o Order) string {
	switch {
	case o.Events == 0:
		return "has no webhook events yet: nothing to redeliver"
	case !o.WebhooksEnabled:
		return "belongs to a partner whose webhooks are disabled: nothing can be delivered"
	}
	return ""
}
