// Package delivery holds the delivery policy of order.status_changed webhooks (when to retry,
// when to give up) and the constructor of WebhookDelivery objects shared by the order
// reconciler and the frontend. Signing lives in pkg/webhooks, the SSRF guard in
// internal/netguard, the reconciler in controllers.
package delivery

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// DefaultSchedule is the delivery schedule partners are promised: entry 0 is the delay before the first attempt,
// entry n the delay after the n-th failed attempt. Its length is the number of attempts.
var DefaultSchedule = []time.Duration{
	0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

const (
	// DefaultJitter spreads retries ±20 % so failed receivers are not hit in lockstep.
	DefaultJitter = 0.2
	// DefaultMaxRetryAfter caps a receiver's Retry-After: one step of the longest delay, so a
	// hostile or buggy header cannot park a delivery for ever.
	DefaultMaxRetryAfter = 10 * time.Hour
)

// Policy decides what follows an attempt. The zero value is not usable; start from
// DefaultPolicy and override fields (tests shorten Schedule and zero Jitter).
type Policy struct {
	Schedule      []time.Duration
	Jitter        float64       // fraction of each delay, applied uniformly in [-Jitter, +Jitter]
	MaxRetryAfter time.Duration // caps Retry-After; 0 ignores Retry-After
	// Rand returns a uniform number in [0, 1); injected so decisions are reproducible.
	Rand func() float64
}

// DefaultPolicy is the production policy.
func DefaultPolicy() Policy {
	return Policy{Schedule: DefaultSchedule, Jitter: DefaultJitter, MaxRetryAfter: DefaultMaxRetryAfter, Rand: rand.Float64}
}

// MaxAttempts is the number of attempts before a delivery fails for good.
func (p Policy) MaxAttempts() int32 { return int32(len(p.Schedule)) }

// Result is what one attempt produced.
type Result struct {
	// Code is the HTTP status; 0 when no response came.
	Code int
	// Err is why no response came (connection refused, timeout, refused target, no secret).
	Err error
	// RetryAfter is the response's Retry-After header, if any.
	RetryAfter string
}

// Outcome classifies a decision, for events and metrics.
type Outcome string

const (
	OutcomeDelivered Outcome = "delivered"
	OutcomeRetry     Outcome = "retry"
	OutcomeGone      Outcome = "gone"      // 410: failed at once
	OutcomeExhausted Outcome = "exhausted" // last attempt failed
)

// Decision is the state a delivery moves to after an attempt.
type Decision struct {
	Outcome Outcome
	Phase   swapv1.DeliveryPhase
	// NextAttemptAt is set only when Phase is Pending.
	NextAttemptAt time.Time
	// AttemptError describes a failed attempt for status.attempts[].error; "" on 2xx.
	AttemptError string
	// Reason says why the delivery failed for good; "" unless Phase is Failed.
	Reason string
}

// Decide classifies the result of attempt number attempt (1-based) made at now:
//   - 2xx: Delivered.
//   - 410 Gone: Failed at once. The receiver states the endpoint no longer exists; retrying
//     for 42 hours would only add load (the partner can redeliver after fixing it).
//   - 3xx: redirects are never followed (they could lead anywhere, past the SSRF guard), so
//     it is a failed attempt, retried like 4xx/5xx and connection errors.
//   - after MaxAttempts failed attempts: Failed with the last error as reason.
//
// A retry waits the jittered schedule delay, or the receiver's Retry-After when that is
// later (capped by MaxRetryAfter).
func (p Policy) Decide(attempt int32, res Result, now time.Time) Decision {
	if res.Err == nil && res.Code >= 200 && res.Code < 300 {
		return Decision{Outcome: OutcomeDelivered, Phase: swapv1.DeliveryDelivered}
	}
	attemptErr := describe(res)
	if res.Err == nil && res.Code == http.StatusGone {
		return Decision{Outcome: OutcomeGone, Phase: swapv1.DeliveryFailed, AttemptError: attemptErr,
			Reason: "endpoint gone (HTTP 410)"}
	}
	if attempt >= p.MaxAttempts() {
		return Decision{Outcome: OutcomeExhausted, Phase: swapv1.DeliveryFailed, AttemptError: attemptErr,
			Reason: fmt.Sprintf("gave up after %d attempts: %s", attempt, attemptErr)}
	}
	delay := p.jittered(p.Schedule[attempt])
	if res.Err == nil {
		if ra, ok := ParseRetryAfter(res.RetryAfter, now); ok {
			delay = max(delay, min(ra, p.MaxRetryAfter))
		}
	}
	return Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: attemptErr,
		NextAttemptAt: now.Add(delay)}
}

// jittered scales d by a uniform factor in [1-Jitter, 1+Jitter].
func (p Policy) jittered(d time.Duration) time.Duration {
	if p.Jitter <= 0 || p.Rand == nil || d <= 0 {
		return d
	}
	factor := 1 + p.Jitter*(2*p.Rand()-1)
	return time.Duration(float64(d) * factor)
}

// ParseRetryAfter reads a Retry-After value, delay-seconds or HTTP-date, as a delay from now
// (never negative). ok is false when the header is absent or unparsable.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		// Clamp before multiplying so huge values cannot overflow into the past.
		const maxSecs = int64(1<<63-1) / int64(time.Second)
		return time.Duration(min(secs, maxSecs)) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}
