// Package health judges each provider as a whole from every call made to it: a circuit
// breaker per provider (pure state and decisions in this file), a Tracker holding the state of
// every provider, and Guard, the adapter wrapper that consults and feeds it. While a
// provider's breaker is open, calls fail fast with provider.KindUnavailable: quotes skip the
// provider with a per-provider error and orders keep their status instead of each one
// learning of the outage on its own.
package health

import (
	"time"

	"github.com/swaprouter/swaprouter/internal/provider"
)

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
	// Threshold is the number of provider-wide failures in a row that opens the breaker.
	Threshold int
	// Cooldown is the first open period; it doubles with every failed trial, up to MaxCooldown.
	Cooldown, MaxCooldown time.Duration
}

// DefaultPolicy: five failures in a row open the breaker for 5 s, then 10 s, ... up to 2 min.
var DefaultPolicy = Policy{Threshold: 5, Cooldown: 5 * time.Second, MaxCooldown: 2 * time.Minute}

// State is one provider's breaker.
type State struct {
	Phase Phase
	// Failures counts provider-wide failures in a row.
	Failures int
	// Trips counts openings since the last success (the cooldown doubles with each).
	Trips int
	// Class is the class of the latest provider-wide failure (credentials or transient).
	Class provider.Class
	// RetryAt is, while open, when the next trial call may go.
	RetryAt time.Time
	// FailingSince is when the current run of provider-wide failures began (zero without
	// failures): how long the provider has failed as a whole.
	FailingSince time.Time
}

// Outcome is what one call said about the provider.
type Outcome int

const (
	// Answered: the provider answered (a refusal or a 404 is an answer too).
	Answered Outcome = iota
	// Failed: a provider-wide failure (see provider.Class.ProviderWide).
	Failed
	// Abandoned: the caller gave up (its context was cancelled); says nothing.
	Abandoned
)

// OutcomeOf classifies a call's error.
func OutcomeOf(err error, callerGaveUp bool) (Outcome, *provider.Error) {
	if err == nil {
		return Answered, nil
	}
	if callerGaveUp {
		return Abandoned, nil
	}
	pe := provider.AsError(err)
	if pe.Kind == provider.KindUnavailable || !provider.Classify(pe).ProviderWide() {
		return Answered, pe
	}
	return Failed, pe
}

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

// Record is the state after a call ended with outcome (pe is its error, when Failed). unit is
// a random number in [0, 1) that jitters the cooldown by ±20 %, so the trial calls of several
// processes spread out; a provider's Retry-After lengthens it.
func Record(s State, outcome Outcome, pe *provider.Error, now time.Time, p Policy, unit float64) State {
	switch outcome {
	case Answered:
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
	s.Class = provider.Classify(pe)
	if s.Phase == Closed && s.Failures < p.Threshold {
		return s
	}
	if s.Phase == Open {
		// A call that started before the breaker opened: the opening already counted it.
		return s
	}
	s.Phase = Open
	s.Trips++
	cooldown := p.Cooldown
	for i := 1; i < s.Trips && cooldown < p.MaxCooldown; i++ {
		cooldown *= 2
	}
	cooldown = time.Duration(float64(min(cooldown, p.MaxCooldown)) * (0.8 + 0.4*unit))
	s.RetryAt = now.Add(max(cooldown, pe.RetryAfter))
	return s
}

// Judgement is what the RoutingProvider's Available condition says.
type Judgement struct {
	Available bool
	// Reason is Available, Degraded (open for timeouts, 5xx, throttling) or
	// CredentialsRejected.
	Reason  string
	Message string
}

// Reasons of the Available condition.
const (
	ReasonAvailable           = "Available"
	ReasonDegraded            = "Degraded"
	ReasonCredentialsRejected = "CredentialsRejected"
)

// Judge turns a breaker state into the condition. A closed breaker is available even after a
// few failures, so the condition (and its status write) changes only when the breaker does.
func Judge(s State) Judgement {
	switch {
	case s.Phase == Closed:
		return Judgement{Available: true, Reason: ReasonAvailable, Message: "calls to the provider succeed"}
	case s.Class == provider.ClassCredentials:
		return Judgement{Reason: ReasonCredentialsRejected,
			Message: "the provider rejects our credentials (401/403); calls are held back until a trial succeeds: check the credentials Secret"}
	}
	return Judgement{Reason: ReasonDegraded,
		Message: "the provider keeps failing (timeouts, 5xx or throttling); calls are held back and retried with backoff, orders keep their status"}
}
