package orders

import (
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
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

// Backoff is the delay before retry number attempt (1 for the first retry): base doubling
// per attempt, capped. The first retries stay short so the frontend, which waits a bounded
// time for the deposit address, still sees the order succeed after a transient failure.
func Backoff(attempt int32, base, cap time.Duration) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := base
	for i := int32(1); i < attempt; i++ {
		d *= 2
		if d >= cap {
			return cap
		}
	}
	return min(d, cap)
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

// Expired reports whether an order awaiting its deposit is past deadline plus grace.
func Expired(st *swapv1.SwapOrderStatus, grace time.Duration, now time.Time) bool {
	at := ExpiresAt(st, grace)
	return at != nil && !now.Before(*at)
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
