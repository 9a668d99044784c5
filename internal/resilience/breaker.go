// Package resilience holds what every outbound call of the service goes through: a circuit
// breaker (pure state and decisions, the caller's clock passed in), a bulkhead capping calls
// in flight per key without ever making a caller wait, and a jittered exponential backoff.
// Provider calls (internal/provider/health, the order reconciler's call slots) and webhook
// endpoints (internal/delivery) use the same ones.
package resilience

import "time"

// Phase is where a breaker is.
type Phase int

const (
	// Closed: calls go through.
	Closed Phase = iota
	// Open: calls fail fast until RetryAt.
	Open
	// HalfOpen: one trial call is under way; the others fail fast until it ends.
	HalfOpen
)

func (p Phase) String() string {
	switch p {
	case Closed:
		return "closed"
	case Open:
		return "open"
	}
	return "half-open"
}

// Policy tunes a breaker.
type Policy struct {
	// Threshold is the number of failures in a row that opens the breaker.
	Threshold int
	// Cooldown is the first open period; it doubles with every failed trial, up to
	// MaxCooldown (equal to Cooldown: a fixed open period).
	Cooldown, MaxCooldown time.Duration
	// Jitter spreads each open period by ±Jitter of itself (0.2: ±20 %), so the trials of
	// several processes do not all go at once.
	Jitter float64
}

// State is one breaker.
type State struct {
	Phase Phase
	// Failures counts failures in a row.
	Failures int
	// Trips counts openings since the last success (the cooldown doubles with each).
	Trips int
	// RetryAt is, while open, when the next trial call may go.
	RetryAt time.Time
	// FailingSince is when the current run of failures began (zero without failures).
	FailingSince time.Time
}

// Outcome is what one call said about the callee.
type Outcome int

const (
	// Succeeded: the callee answered like a live one.
	Succeeded Outcome = iota
	// Failed: the callee failed as a whole (no answer, timeout, overload).
	Failed
	// Abandoned: the caller gave up (shutdown, cancelled context); says nothing.
	Abandoned
)

// Allow decides whether a call may go now, and the state after the decision: an open breaker
// whose cooldown has passed lets one trial through (half-open).
func Allow(s State, now time.Time) (bool, State) {
	switch s.Phase {
	case Open:
		if now.Before(s.RetryAt) {
			return false, s
		}
		s.Phase = HalfOpen
		return true, s
	case HalfOpen:
		return false, s
	}
	return true, s
}

// Record is the state after a call ended with outcome at now. unit is a random number in
// [0, 1) for the policy's jitter; retryAfter, the callee's own wish, lengthens the cooldown.
func Record(s State, outcome Outcome, retryAfter time.Duration, now time.Time, p Policy, unit float64) State {
	switch outcome {
	case Succeeded:
		return State{}
	case Abandoned:
		if s.Phase == HalfOpen {
			// The trial told nothing: let the next call try.
			s.Phase, s.RetryAt = Open, now
		}
		return s
	}
	if s.Failures == 0 {
		s.FailingSince = now
	}
	s.Failures++
	if s.Phase == Closed && s.Failures < p.Threshold {
		return s
	}
	if s.Phase == Open {
		// A call that started before the breaker opened: the opening already counted it.
		return s
	}
	s.Phase = Open
	s.Trips++
	cooldown := Backoff(s.Trips, p.Cooldown, p.MaxCooldown, p.Jitter, unit)
	s.RetryAt = now.Add(max(cooldown, retryAfter))
	return s
}
