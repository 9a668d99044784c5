package resilience

import "time"

// Backoff is the delay before retry number attempt (1 for the first): base doubling per
// attempt, capped, then spread by ±jitter of itself with unit (a random number in [0, 1)),
// so callers that failed together do not retry together.
func Backoff[N ~int | ~int32](attempt N, base, cap time.Duration, jitter, unit float64) time.Duration {
	d := base
	for i := N(1); i < attempt && d < cap; i++ {
		d *= 2
	}
	d = min(d, cap)
	return time.Duration(float64(d) * (1 - jitter + 2*jitter*unit))
}

// Jitter is the spread of the service's retries and breaker cooldowns: ±20 %.
const Jitter = 0.2
