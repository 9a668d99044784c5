package orders

import (
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Default poll bounds when a provider entry leaves them unset (contract: every 10-15 s).
const (
	DefaultPollMin = 10 * time.Second
	DefaultPollMax = 15 * time.Second
)

// PollInterval is a uniformly jittered interval in [min, max]; unit is a random number in
// [0, 1) (rand.Float64). Unset or inverted bounds fall back to the defaults so a
// misconfigured provider never causes a tight poll loop.
func PollInterval(min, max time.Duration, unit float64) time.Duration {
	if min <= 0 || max < min {
		min, max = DefaultPollMin, DefaultPollMax
	}
	return min + time.Duration(unit*float64(max-min))
}

// NextPollAt is when to ask the provider next: now plus a jittered interval, but never later
// than the expiry moment of a deposit still awaited, so expiry is judged on time.
func NextPollAt(now time.Time, interval time.Duration, expiresAt *time.Time) time.Time {
	next := now.Add(interval)
	if expiresAt != nil && now.Before(*expiresAt) && expiresAt.Before(next) {
		return *expiresAt
	}
	return next
}

// PersistFailures reports whether the n-th consecutive failure of an order is written to its
// status: the first one and the one reaching threshold (the crossings a reader acts on), never
// every call, so a failing provider costs no etcd write per poll.
func PersistFailures(n, threshold int32) bool {
	return n == 1 || n == threshold
}

// Watch is the bounded watch of an order that gets no usable answer since since: polls wait
// as long as the order has been failing (so they double), within [pollMin, backoffMax], and
// stop once it has been failing for bound.
func Watch(since, now time.Time, pollMin, backoffMax, bound time.Duration) (interval time.Duration, stop bool) {
	failing := now.Sub(since)
	if failing >= bound {
		return 0, true
	}
	return min(max(failing, pollMin), backoffMax), false
}

// WatchSince is the moment an order's bounded watch counts from, nil while it is tracked at
// full cadence: since the provider stopped answering usefully for it, or, for an order that
// still awaits its deposit past deadline plus grace (kept alive only because something shows
// a deposit), since that moment.
func WatchSince(st *swapv1.SwapOrderStatus, grace time.Duration, now time.Time) *time.Time {
	if st.FailingSince != nil {
		return &st.FailingSince.Time
	}
	if st.Status == swapv1.OrderPending || st.Status == swapv1.OrderUnknown {
		if at := ExpiresAt(st, grace); at != nil && !now.Before(*at) {
			return at
		}
	}
	return nil
}

// CreateGiveUp reports whether a new order stops asking for its deposit address: bound has
// passed since it was created and no address was ever recorded (so none was ever shown).
func CreateGiveUp(st *swapv1.SwapOrderStatus, created, now time.Time, bound time.Duration) bool {
	return st.Status == "" && st.DepositAddress == "" && !now.Before(created.Add(bound))
}

// ExpiresAt is the moment an order that still awaits its deposit expires: the provider's
// deposit deadline plus grace. nil when the order has no deadline.
func ExpiresAt(st *swapv1.SwapOrderStatus, grace time.Duration) *time.Time {
	if st.DepositDeadline == nil {
		return nil
	}
	t := st.DepositDeadline.Add(grace)
	return &t
}

// DepositEvidence reports whether anything shows that a deposit was made: an inbound tx,
// a deposit hint (forwarded or not), a deposited amount, or the order having been past
// PENDING. An order with evidence is never failed by this service, only by its provider.
func DepositEvidence(o *swapv1.SwapOrder) bool {
	st := &o.Status
	if len(st.InTxHashes) > 0 || st.ForwardedTxHash != "" || st.DepositedAmount != "" ||
		(o.Spec.DepositHint != nil && o.Spec.DepositHint.TxHash != "") {
		return true
	}
	for _, t := range st.History {
		if t.Status == swapv1.OrderProcessing || t.Status == swapv1.OrderSuccess || t.Status == swapv1.OrderRefunded {
			return true
		}
	}
	return false
}

// ShouldExpire is the expiry decision after a successful poll answered obs: the service fails
// an order DepositExpired only when deadline plus grace has passed, the provider still awaits
// a deposit (PENDING, nothing deposited, no inbound tx) and nothing on our side shows one.
func ShouldExpire(o *swapv1.SwapOrder, obs provider.Status, grace time.Duration, now time.Time) bool {
	at := ExpiresAt(&o.Status, grace)
	if at == nil || now.Before(*at) {
		return false
	}
	providerAwaits := obs.Status == swapv1.OrderPending && len(obs.InTxHashes) == 0 && obs.DepositedAmount == "" &&
		(obs.Substatus == "" || obs.Substatus == swapv1.SubstatusAwaitingDeposit)
	return providerAwaits && !DepositEvidence(o)
}

// WindowClosed reports whether an order is past its deposit deadline with nothing showing a
// deposit: a user must not send funds any more (substatus DEPOSIT_WINDOW_CLOSED while it is
// PENDING), although the order only fails once the grace has passed too.
func WindowClosed(o *swapv1.SwapOrder, now time.Time) bool {
	d := o.Status.DepositDeadline
	return d != nil && !now.Before(d.Time) && !DepositEvidence(o)
}

// RetainUntil is when a terminal order is deleted: its terminal transition plus retention.
// ok is false when the order is not terminal.
func RetainUntil(st *swapv1.SwapOrderStatus, created time.Time, retention time.Duration) (time.Time, bool) {
	if !st.Status.IsTerminal() {
		return time.Time{}, false
	}
	at, ok := TerminalAt(st)
	if !ok {
		// History lost the terminal entry (it never should): count from creation, which is
		// earlier, so the order is never kept longer than retention after it ended.
		return created.Add(retention), true
	}
	return at.Add(retention), true
}

// Settlement is how an order that ended settled, for its provider's measurements: the time
// from its deposit seen (its first PROCESSING) to its outcome, and whether it ended SUCCESS.
// ok is false for an order that has not ended, or ended without any sign of a deposit (it
// expired, or was failed before one): there was nothing for the provider to settle. An order
// seen going from PENDING straight to its outcome settled between two status polls; it
// counts as took 0.
func Settlement(o *swapv1.SwapOrder) (took time.Duration, succeeded, ok bool) {
	st := &o.Status
	end, ended := TerminalAt(st)
	if !ended || !DepositEvidence(o) {
		return 0, false, false
	}
	for _, t := range st.History {
		if t.Status == swapv1.OrderProcessing {
			took = max(end.Sub(t.At.Time), 0)
			break
		}
	}
	return took, st.Status == swapv1.OrderSuccess, true
}
