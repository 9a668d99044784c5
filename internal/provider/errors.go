package provider

import (
	"errors"
	"fmt"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Kind classifies a provider failure; the frontend maps it onto the contract's error codes and
// the reconciler decides between retry and a terminal failure.
type Kind int

const (
	// KindUpstream: the provider answered 5xx, or something malformed (retry with backoff).
	KindUpstream Kind = iota
	// KindTimeout: the provider did not answer in time (retry with backoff).
	KindTimeout
	// KindAmountTooLow: below the pair's minimum; Limit holds the minimum.
	KindAmountTooLow
	// KindAmountTooHigh: above the pair's maximum; Limit holds the maximum.
	KindAmountTooHigh
	// KindUnsupportedPair: the provider does not route this pair.
	KindUnsupportedPair
	// KindRefused: any other 4xx; the request will not succeed as it is.
	KindRefused
	// KindNotFound: the provider does not know the order.
	KindNotFound
	// KindCredentials: the provider rejected our credentials (401/403). A problem of the
	// whole provider, not of one request: fixing the Secret fixes every call.
	KindCredentials
	// KindUnavailable: the call was not made because the provider's circuit breaker is open
	// (it kept failing); retry after RetryAfter.
	KindUnavailable
)

func (k Kind) String() string {
	switch k {
	case KindUpstream:
		return "upstream error"
	case KindTimeout:
		return "upstream timeout"
	case KindAmountTooLow:
		return "amount_too_low"
	case KindAmountTooHigh:
		return "amount_too_high"
	case KindUnsupportedPair:
		return "unsupported pair"
	case KindRefused:
		return "refused"
	case KindNotFound:
		return "not found"
	case KindCredentials:
		return "credentials rejected"
	case KindUnavailable:
		return "provider unavailable"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ReasonSignatureInvalid: the provider's answer carries a signature that does not verify
// with the key its RoutingProvider trusts, so nothing in it (a deposit address above all) is
// used. The error's Kind is KindRefused: retrying gets another answer from the same source.
const ReasonSignatureInvalid = "ProviderSignatureInvalid"

// ReasonDepositAddressShared: the provider answered a deposit address that is not bound to
// this order alone (Relay's open addresses serve every order of a route), so a deposit to it
// could not be told apart from another order's; it is never shown. The error's Kind is
// KindRefused.
const ReasonDepositAddressShared = "DepositAddressShared"

// Upstream describes the provider call that failed (contract's error `upstream` object).
type Upstream struct {
	// Status is the provider's HTTP status, 0 when none was received.
	Status int
	// Path is the call, e.g. "POST /v0/quote".
	Path string
}

// Error is the only error type adapters return.
type Error struct {
	Provider swapv1.ProviderID
	Kind     Kind
	// Detail is a human-readable explanation without request ids or timestamps.
	Detail string
	// Code is the provider's own error code when its answer names one (Relay's errorCode),
	// for the adapter to classify.
	Code string
	// Limit is the minimum (KindAmountTooLow) or maximum (KindAmountTooHigh) amount.
	Limit string
	// Reason, when set, is the stable CamelCase reason an order fails with instead of the
	// one its Kind implies (e.g. ReasonSignatureInvalid).
	Reason   string
	Upstream *Upstream
	// RetryAfter is the provider's Retry-After (408, 425, 429, 503), zero when none.
	RetryAfter time.Duration
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s", e.Provider, e.Kind)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Upstream != nil {
		msg += fmt.Sprintf(" (%s -> %d)", e.Upstream.Path, e.Upstream.Status)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same call may succeed later: every provider-wide failure
// (timeouts, 5xx, 408/425/429/503, malformed answers, rejected credentials, an open breaker).
// A refusal or a 404 is an answer about this request, not a failure to answer.
func (e *Error) Retryable() bool { return Classify(e).ProviderWide() }

// Class is what a failure says and about whom: the provider as a whole, or one request.
type Class int

const (
	// ClassTransient: the provider did not answer usefully now (timeouts, 5xx, throttling,
	// an open breaker); the same call may succeed later. Says nothing about the order.
	ClassTransient Class = iota
	// ClassCredentials: the provider rejects our credentials; every call fails until an
	// operator fixes the Secret. Says nothing about the order.
	ClassCredentials
	// ClassOrderUnknown: the provider answered that it does not know this order (404):
	// evidence about one order, never about the provider.
	ClassOrderUnknown
	// ClassRefused: the provider answered that this request will never succeed as it is.
	ClassRefused
)

// ProviderWide reports whether a failure of class c is about the provider rather than the
// request: it feeds the provider's health and never moves an order's status.
func (c Class) ProviderWide() bool { return c == ClassTransient || c == ClassCredentials }

// Classify sorts a provider error into its Class.
func Classify(e *Error) Class {
	switch e.Kind {
	case KindUpstream, KindTimeout, KindUnavailable:
		return ClassTransient
	case KindCredentials:
		return ClassCredentials
	case KindNotFound:
		return ClassOrderUnknown
	}
	return ClassRefused
}

// AsError extracts a *Error; any other error is treated as an upstream error.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return &Error{Kind: KindUpstream, Detail: err.Error(), Err: err}
}

// IsRetryable reports whether err is worth retrying with backoff.
func IsRetryable(err error) bool {
	return err != nil && AsError(err).Retryable()
}

// IsKind reports whether err is a provider error of kind k.
func IsKind(err error, k Kind) bool {
	return err != nil && AsError(err).Kind == k
}
