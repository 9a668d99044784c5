package orders

import (
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Step is the one thing a reconcile does.
type Step int

const (
	// StepCreateDeposit asks the provider for a deposit address (new order).
	StepCreateDeposit Step = iota
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
)

func (s Step) String() string {
	switch s {
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
	}
	return "Step(?)"
}

// NextStep picks the step for o at now from its status alone, so a reconcile interrupted at
// any point resumes where it stopped. Emission goes before everything but the deposit
// address: it needs no provider call and keeps webhooks close to their transitions.
func NextStep(o *swapv1.SwapOrder, now time.Time) Step {
	st := &o.Status
	switch {
	case st.Status == "":
		return StepCreateDeposit
	case st.LastSeq > st.NotifiedSeq:
		return StepEmit
	case st.Status.IsTerminal() && o.Labels[swapv1.LabelArchived] == "true":
		return StepWait
	case st.Status.IsTerminal():
		return StepArchive
	case HintPending(o):
		return StepForwardHint
	case st.NextPollAt == nil || !now.Before(st.NextPollAt.Time):
		return StepPoll
	}
	return StepWait
}

// HintPending reports whether the order carries a deposit hint the provider has not been
// given yet. A changed hash counts as a new hint.
func HintPending(o *swapv1.SwapOrder) bool {
	h := o.Spec.DepositHint
	return h != nil && h.TxHash != "" && h.TxHash != o.Status.ForwardedTxHash &&
		o.Status.Status != "" && !o.Status.Status.IsTerminal()
}
