// Package apierror is the /v1 error format: the contract's compact `{error, detail?, upstream?}`
// object, the fixed set of error codes with their HTTP statuses, and the mapping from provider
// failures onto those codes.
package apierror

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Code is a machine handle of the contract's error table (section 7) or of the codes added
// since. Partners switch on these strings; never change one.
type Code string

// The contract's codes.
const (
	OriginNotAllowed     Code = "origin not allowed"
	BodyTooLarge         Code = "body too large"
	UnknownAsset         Code = "unknown originAsset/destinationAsset"
	UnsupportedPair      Code = "no provider supports this pair"
	AmountTooLow         Code = "amount_too_low"
	AmountTooHigh        Code = "amount_too_high"
	ProviderIDRequired   Code = "providerId required (route_A | route_B)"
	MissingTxHash        Code = "missing txHash"
	OrderNotFound        Code = "order not found"
	OrderTerminal        Code = "order already in terminal state"
	RateLimitExceeded    Code = "rate limit exceeded"
	UpstreamTimeout      Code = "upstream timeout"
	UpstreamError        Code = "upstream error"
	Internal             Code = "internal error"
	Unauthorized         Code = "unauthorized"
	InvalidRequest       Code = "invalid request"
	NotFound             Code = "not found"
	MethodNotAllowed     Code = "method not allowed"
	IdempotencyKeyReused Code = "idempotency key reused"
	QuotaExceeded        Code = "quota exceeded"
	// ArchiveUnavailable: the order archive (PostgreSQL) cannot be reached; retry later.
	ArchiveUnavailable Code = "archive unavailable"
	// Unavailable: the cluster's API server (where live orders are stored) cannot be reached
	// for a moment; retry after Retry-After. Nothing was stored.
	Unavailable Code = "service unavailable"
	// ClientReferenceInUse: another order of the partner has this clientReference (orderId
	// names it).
	ClientReferenceInUse Code = "clientReference in use"
	// QuoteExpired: the quoteId's expiresAt has passed; quote again.
	QuoteExpired Code = "quote expired"
	// QuoteChanged: the provider's binding answer is worse than the quoteId's bound; the
	// error's quote is the fresh candidate (with its own quoteId) to show the user.
	QuoteChanged Code = "quote changed"
	// QuoteMismatch: fields of the request contradict the quoteId (another pair, amount,
	// provider, partner...), or the quoteId is not one this service issued.
	QuoteMismatch Code = "quote mismatch"
	// AddressNotAllowed: screening found an address of the request (named in detail) on a
	// sanctions list and the partner's policy blocks it; nothing was created or counted.
	AddressNotAllowed Code = "address not allowed"
)

// statuses is the one place a code's HTTP status is decided.
var statuses = map[Code]int{
	OriginNotAllowed:     http.StatusForbidden,
	BodyTooLarge:         http.StatusRequestEntityTooLarge,
	UnknownAsset:         http.StatusBadRequest,
	UnsupportedPair:      http.StatusNotFound,
	AmountTooLow:         http.StatusBadRequest,
	AmountTooHigh:        http.StatusBadRequest,
	ProviderIDRequired:   http.StatusBadRequest,
	MissingTxHash:        http.StatusBadRequest,
	OrderNotFound:        http.StatusNotFound,
	OrderTerminal:        http.StatusGone,
	RateLimitExceeded:    http.StatusTooManyRequests,
	UpstreamTimeout:      http.StatusGatewayTimeout,
	UpstreamError:        http.StatusBadGateway,
	Internal:             http.StatusInternalServerError,
	Unauthorized:         http.StatusUnauthorized,
	InvalidRequest:       http.StatusBadRequest,
	NotFound:             http.StatusNotFound,
	MethodNotAllowed:     http.StatusMethodNotAllowed,
	IdempotencyKeyReused: http.StatusUnprocessableEntity,
	QuotaExceeded:        http.StatusTooManyRequests,
	ArchiveUnavailable:   http.StatusServiceUnavailable,
	Unavailable:          http.StatusServiceUnavailable,
	ClientReferenceInUse: http.StatusConflict,
	QuoteExpired:         http.StatusBadRequest,
	QuoteChanged:         http.StatusConflict,
	QuoteMismatch:        http.StatusBadRequest,
	AddressNotAllowed:    http.StatusForbidden,
}

// Status is the HTTP status every response with this code carries.
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	if strings.HasPrefix(string(c), providerIDRequiredPrefix) {
		return statuses[ProviderIDRequired]
	}
	return http.StatusInternalServerError
}

const providerIDRequiredPrefix = "providerId required ("

// ProviderIDRequiredFor is the providerId-required code of an installation whose enabled
// providers are ids, in the contract's form: "providerId required (route_A | route_B)" is
// ProviderIDRequired byte for byte. Partners match the code by its "providerId required ("
// prefix; the list tells a person what to choose.
func ProviderIDRequiredFor(ids []swapv1.ProviderID) Code {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = string(id)
	}
	slices.Sort(names)
	return Code(providerIDRequiredPrefix + strings.Join(names, " | ") + ")")
}

// Codes lists every code, in a stable order (for documentation checks).
func Codes() []Code {
	return []Code{
		OriginNotAllowed, BodyTooLarge, UnknownAsset, UnsupportedPair, AmountTooLow, AmountTooHigh,
		ProviderIDRequired, MissingTxHash, OrderNotFound, OrderTerminal, RateLimitExceeded,
		UpstreamTimeout, UpstreamError, Internal, Unauthorized, InvalidRequest, NotFound,
		MethodNotAllowed, IdempotencyKeyReused, QuotaExceeded, ArchiveUnavailable, ClientReferenceInUse,
		QuoteExpired, QuoteChanged, QuoteMismatch, Unavailable, AddressNotAllowed,
	}
}

// Upstream is the provider-side failure info of an error.
type Upstream struct {
	Status int    `json:"status"`
	Path   string `json:"path"`
}

// Error is an error response. It is also a Go error so handlers can return it.
type Error struct {
	Code     Code      `json:"error"`
	Detail   string    `json:"detail,omitempty"`
	Upstream *Upstream `json:"upstream,omitempty"`
	// OrderID names the existing order a conflict is about.
	OrderID string `json:"orderId,omitempty"`
	// Quote is the fresh candidate of a `quote changed` answer.
	Quote *swapv1.QuoteCandidate `json:"quote,omitempty"`
	// RetryAfterSeconds, when positive, is sent as the Retry-After header.
	RetryAfterSeconds int64 `json:"-"`
}

// New returns an error with a code and an optional detail.
func New(code Code, detail string) *Error { return &Error{Code: code, Detail: detail} }

// Newf returns an error whose detail is formatted.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Invalid is a 400 `invalid request` naming the offending field.
func Invalid(field, problem string) *Error {
	return &Error{Code: InvalidRequest, Detail: field + ": " + problem}
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Detail
}

// Status is the HTTP status of the response.
func (e *Error) Status() int { return e.Code.Status() }

// Write sends e as the response. Headers already set on w (rate-limit, CORS) are kept.
func Write(w http.ResponseWriter, e *Error) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	if e.RetryAfterSeconds > 0 {
		h.Set("Retry-After", fmt.Sprint(e.RetryAfterSeconds))
	}
	w.WriteHeader(e.Status())
	_ = json.NewEncoder(w).Encode(e)
}

// FromProvider maps a provider failure onto the contract's codes. The detail never carries
// request ids or raw upstream bodies, only what a partner can act on.
func FromProvider(pe *provider.Error) *Error {
	if pe == nil {
		return New(Internal, "")
	}
	e := &Error{Detail: pe.Detail}
	if pe.Upstream != nil {
		e.Upstream = &Upstream{Status: pe.Upstream.Status, Path: pe.Upstream.Path}
	}
	switch pe.Kind {
	case provider.KindAmountTooLow:
		e.Code = AmountTooLow
		e.Detail = limitDetail("minimum", pe)
	case provider.KindAmountTooHigh:
		e.Code = AmountTooHigh
		e.Detail = limitDetail("maximum", pe)
	case provider.KindUnsupportedPair:
		e.Code = UnsupportedPair
		e.Upstream = nil
	case provider.KindTimeout:
		e.Code = UpstreamTimeout
	case provider.KindRefused:
		// Any other provider 4xx: the request as sent will never succeed (e.g. an address the
		// provider rejects), so it is an input problem for the partner, not a retryable 5xx.
		e.Code = InvalidRequest
	default: // KindUpstream, KindNotFound and anything new: the provider misbehaved.
		e.Code = UpstreamError
	}
	return e
}

func limitDetail(which string, pe *provider.Error) string {
	if pe.Limit == "" {
		return pe.Detail
	}
	d := fmt.Sprintf("%s amount is %s", which, pe.Limit)
	if pe.Provider != "" {
		d += " (" + string(pe.Provider) + ")"
	}
	return d
}
