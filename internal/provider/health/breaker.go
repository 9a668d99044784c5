// Package health judges each provider as a whole from every call made to it: a circuit
// breaker per provider (resilience's, with the provider's failure classes, in this file), a Tracker holding the state of
// every provider, and Guard, the adapter wrapper that consults and feeds it. While a
// provider's breaker is open, calls fail fast with provider.KindUnavailable: quotes skip the
// provider with a per-provider error and orders keep their status instead of each one
// learning of the outage on its own.
package health

import (
	"time"

	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/resilience"
)

// DefaultPolicy: five failures in a row open the breaker for 5 s, then 10 s, ... up to 2 min.
var DefaultPolicy = resilience.Policy{Threshold: 5, Cooldown: 5 * time.Second, MaxCooldown: 2 * time.Minute, Jitter: resilience.Jitter}

// State is one provider's breaker and what kind of failure it last saw.
type State struct {
	resilience.State
	// Class is the class of the latest provider-wide failure (credentials or transient).
	Class provider.Class
}

// OutcomeOf classifies a call's error: an answer (a refusal or a 404 is an answer too) is a
// success, a provider-wide failure (see provider.Class.ProviderWide) a failure.
func OutcomeOf(err error, callerGaveUp bool) (resilience.Outcome, *provider.Error) {
	if err == nil {
		return resilience.Succeeded, nil
	}
	if callerGaveUp {
		return resilience.Abandoned, nil
	}
	pe := provider.AsError(err)
	if pe.Kind == provider.KindUnavailable || !provider.Classify(pe).ProviderWide() {
		return resilience.Succeeded, pe
	}
	return resilience.Failed, pe
}

// Allow decides whether a call may go now, and the state after the decision.
func Allow(s State, now time.Time) (bool, State) {
	ok, next := resilience.Allow(s.State, now)
	s.State = next
	return ok, s
}

// Record is the state after a call ended with outcome (pe is its error, when Failed). unit is
// a random number in [0, 1) for the cooldown's jitter; a provider's Retry-After lengthens it.
func Record(s State, outcome resilience.Outcome, pe *provider.Error, now time.Time, p resilience.Policy, unit float64) State {
	var retryAfter time.Duration
	switch outcome {
	case resilience.Succeeded:
		return State{}
	case resilience.Failed:
		s.Class, retryAfter = provider.Classify(pe), pe.RetryAfter
	}
	s.State = resilience.Record(s.State, outcome, retryAfter, now, p, unit)
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
	case s.Phase == resilience.Closed:
		return Judgement{Available: true, Reason: ReasonAvailable, Message: "calls to the provider succeed"}
	case s.Class == provider.ClassCredentials:
		return Judgement{Reason: ReasonCredentialsRejected,
			Message: "the provider rejects our credentials (401/403); calls are held back until a trial succeeds: check the credentials Secret"}
	}
	return Judgement{Reason: ReasonDegraded,
		Message: "the provider keeps failing (timeouts, 5xx or throttling); calls are held back and retried with backoff, orders keep their status"}
}
