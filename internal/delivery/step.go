package delivery

import (
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Step is what one reconcile of a WebhookDelivery does; the zero value is nothing (the
// delivery is being deleted).
type Step int

const (
	// StepNone: nothing to do.
	StepNone Step = iota
	// StepWait: the next attempt is not due yet.
	StepWait
	// StepAttempt: an attempt is due.
	StepAttempt
	// StepKeep: finished, and kept until its retention ends.
	StepKeep
	// StepExpire: finished and past its retention: deleted once its order recorded it.
	StepExpire
)

func (s Step) String() string {
	switch s {
	case StepNone:
		return "None"
	case StepWait:
		return "Wait"
	case StepAttempt:
		return "Attempt"
	case StepKeep:
		return "Keep"
	case StepExpire:
		return "Expire"
	}
	return "Step(?)"
}

// Next picks the step for d at now from d alone, and for a wait how long it lasts. A new
// delivery is due first after its creation; a finished one is kept retention after it
// finished (the Job TTL pattern).
func Next(d *swapv1.WebhookDelivery, now time.Time, first, retention time.Duration) (Step, time.Duration) {
	if !d.DeletionTimestamp.IsZero() {
		return StepNone, 0
	}
	if Finished(d) {
		if wait := UntilExpiry(d, now, retention); wait > 0 {
			return StepKeep, wait
		}
		return StepExpire, 0
	}
	due := d.CreationTimestamp.Add(first)
	if d.Status.NextAttemptAt != nil {
		due = d.Status.NextAttemptAt.Time
	}
	if wait := due.Sub(now); wait > 0 {
		return StepWait, wait
	}
	return StepAttempt, 0
}

// UntilExpiry is the wait until a finished delivery's retention ends (0 or less: due now).
func UntilExpiry(d *swapv1.WebhookDelivery, now time.Time, retention time.Duration) time.Duration {
	finished := d.CreationTimestamp.Time
	if d.Status.CompletedAt != nil {
		finished = d.Status.CompletedAt.Time
	}
	return finished.Add(retention).Sub(now)
}
