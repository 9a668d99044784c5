package orders

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Step is the one thing a reconcile does; the zero value is no step at all (a pass that
// ended before it was planned).
type Step int

const (
	// StepNone: nothing was planned.
	StepNone Step = iota
	// StepCreateDeposit asks the provider for a deposit address (new order).
	StepCreateDeposit
	// StepEmit ensures webhook deliveries for transitions not yet notified.
	StepEmit
	// StepArchive writes a terminal order to the archive and marks it archived; the TTL
	// sweep deletes it later.
	StepArchive
	// StepForwardHint passes the partner's deposit hint to the provider.
	StepForwardHint
	// StepPoll asks the provider for the order's status (and judges deposit expiry).
	StepPoll
	// StepWait does nothing until the next poll is due.
	StepWait
	// StepResolve ends the order as an operator asked (see Plan).
	StepResolve
	// StepEndReview fails an order screening held: an operator rejected it, or nobody
	// decided within the review bound.
	StepEndReview
)

func (s Step) String() string {
	switch s {
	case StepNone:
		return "None"
	case StepCreateDeposit:
		return "CreateDeposit"
	case StepEmit:
		return "Emit"
	case StepArchive:
		return "Archive"
	case StepForwardHint:
		return "ForwardHint"
	case StepPoll:
		return "Poll"
	case StepWait:
		return "Wait"
	case StepResolve:
		return "Resolve"
	case StepEndReview:
		return "EndReview"
	}
	return "Step(?)"
}

// NextStep picks the step for o at now from its status alone, so a reconcile interrupted at
// any point resumes where it stopped. Emission goes before everything but the deposit
// address: it needs no provider call and keeps webhooks close to their transitions. An
// emission that failed waits for its retry time without holding anything else up.
func NextStep(o *swapv1.SwapOrder, now time.Time) Step {
	st := &o.Status
	switch {
	case NeedsAddress(o):
		return StepCreateDeposit
	case unnotifiedDue(st, now):
		return StepEmit
	case st.Status.IsTerminal() && o.Labels[swapv1.LabelArchived] == "true":
		return StepWait
	case st.Status.IsTerminal():
		return StepArchive
	case HintPending(o):
		return StepForwardHint
	case WatchStopped(st):
		return StepWait
	case due(st.NextPollAt, now):
		return StepPoll
	}
	return StepWait
}

// unnotifiedDue reports whether st has transitions whose webhooks are not ensured yet and
// their emission is due (not waiting for a retry time).
func unnotifiedDue(st *swapv1.SwapOrderStatus, now time.Time) bool {
	return st.LastSeq > st.NotifiedSeq && due(st.EmitRetryAt, now)
}

// Wake is how long a waiting order sleeps: until its next poll or emission retry, whichever
// comes first. ok is false when nothing is scheduled (archived, or its watch stopped).
func Wake(o *swapv1.SwapOrder, now time.Time) (d time.Duration, ok bool) {
	st := &o.Status
	var at *time.Time
	consider := func(t *metav1.Time) {
		if t != nil && (at == nil || t.Time.Before(*at)) {
			at = &t.Time
		}
	}
	if st.LastSeq > st.NotifiedSeq {
		consider(st.EmitRetryAt)
	}
	if !st.Status.IsTerminal() && !WatchStopped(st) {
		consider(st.NextPollAt)
	}
	if at == nil {
		return 0, false
	}
	return at.Sub(now), true
}

// WatchStopped reports whether the order's bounded watch ended (see Watch): it is not polled
// any more until an operator acts or a new deposit hint arrives.
func WatchStopped(st *swapv1.SwapOrderStatus) bool {
	c := meta.FindStatusCondition(st.Conditions, swapv1.ConditionStalled)
	return c != nil && c.Status == metav1.ConditionTrue && c.Reason == ReasonWatchStopped
}

// due reports whether a scheduled moment has come; an unset one is due at once.
func due(at *metav1.Time, now time.Time) bool {
	return at == nil || !now.Before(at.Time)
}

// HintPending reports whether the order carries a deposit hint the provider has not been
// given yet. A changed hash counts as a new hint.
func HintPending(o *swapv1.SwapOrder) bool {
	h := o.Spec.DepositHint
	return h != nil && h.TxHash != "" && h.TxHash != o.Status.ForwardedTxHash &&
		o.Status.Status != "" && !o.Status.Status.IsTerminal()
}
