// Package quotebind makes a dry quote's candidate something an order can be bound to without
// storing anything: its quoteId is a sealed token (internal/tokenkeys: encrypted and
// authenticated, so it reveals nothing, not even the partner, to whoever holds it) of what the
// partner saw (partner, provider, pair, amount, swap type, slippage, partner fee, the amounts
// and the bound minimum output or maximum input, expiry). The frontend verifies the token when an
// order names it; the order then carries the bound, and the order reconciler refuses a
// provider's binding answer worse than it (Worse) before any deposit address is shown.
//
// The keys are the service's token keyset; a key is rotated as that package says, and the
// old one retired once its quotes expired.
package quotebind

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// prefix marks the token format; a new format gets a new prefix (q2 was sealed with the
// service's own XChaCha20-Poly1305 keyring, q3 with a Tink keyset).
const prefix = "q3"

// Claims is what a quoteId binds.
type Claims struct {
	Partner          string            `json:"p"`
	Provider         swapv1.ProviderID `json:"r"`
	OriginAsset      string            `json:"o"`
	DestinationAsset string            `json:"d"`
	Amount           string            `json:"a"`
	SwapType         swapv1.SwapType   `json:"t"`
	// SlippageBps is nil when the provider default applied.
	SlippageBps *int32 `json:"s,omitempty"`
	// FeeBps is the partner fee the quote included (0: none).
	FeeBps    int32  `json:"f,omitempty"`
	AmountIn  string `json:"i"`
	AmountOut string `json:"u"`
	// Bound is the minimum output (EXACT_INPUT) or maximum input (EXACT_OUTPUT) accepted.
	Bound string `json:"b"`
	// ExpiresAt is Unix seconds.
	ExpiresAt int64 `json:"e"`
}

// Expired reports whether the quote can no longer be accepted at now.
func (c Claims) Expired(now time.Time) bool { return now.Unix() >= c.ExpiresAt }

// Candidate is the quote candidate the claims describe, as an order records what it accepted.
func (c Claims) Candidate(quoteID string) swapv1.QuoteCandidate {
	q := swapv1.QuoteCandidate{ProviderID: c.Provider, AmountIn: c.AmountIn, AmountOut: c.AmountOut, QuoteID: quoteID}
	if c.SwapType == swapv1.ExactOutput {
		q.MaxAmountIn = c.Bound
	} else {
		q.MinAmountOut = c.Bound
	}
	return q
}

// BoundOf is the bound a candidate promises: its minimum output for EXACT_INPUT (the expected
// output when the provider gave no minimum), its maximum input for EXACT_OUTPUT.
func BoundOf(swapType swapv1.SwapType, q swapv1.QuoteCandidate) string {
	if swapType == swapv1.ExactOutput {
		if q.MaxAmountIn != "" {
			return q.MaxAmountIn
		}
		return q.AmountIn
	}
	if q.MinAmountOut != "" {
		return q.MinAmountOut
	}
	return q.AmountOut
}

// Worse reports whether a provider's binding answer fresh breaks bound. EXACT_INPUT: its
// minimum output is lower, or its expected output is (a provider that refunds below a floor
// would refund). EXACT_OUTPUT: its maximum input is higher. An answer without amounts cannot
// be compared and counts as worse: money first.
func Worse(swapType swapv1.SwapType, bound string, fresh swapv1.QuoteCandidate) bool {
	b, ok := new(big.Int).SetString(bound, 10)
	if !ok {
		return true
	}
	below := func(v string) bool {
		f, ok := new(big.Int).SetString(v, 10)
		return !ok || f.Cmp(b) < 0
	}
	if swapType == swapv1.ExactOutput {
		f, ok := new(big.Int).SetString(BoundOf(swapType, fresh), 10)
		return !ok || f.Cmp(b) > 0
	}
	return below(BoundOf(swapType, fresh)) || below(fresh.AmountOut)
}

// ErrInvalid: the token is not one this service issued (malformed, unknown key, altered).
var ErrInvalid = errors.New("not a quoteId issued by this service")

// Issuer signs quoteIds and verifies them.
type Issuer struct{ tokens *tokenkeys.Tokens }

// NewIssuer returns the issuer of quoteIds under keys: the primary seals, every key opens.
func NewIssuer(keys *tokenkeys.Keys) *Issuer { return &Issuer{tokens: keys.For("quoteId")} }

// Sign returns the quoteId of c: q3.<sealed claims>.
func (i *Issuer) Sign(c Claims) string {
	body, _ := json.Marshal(c)
	return prefix + "." + i.tokens.Seal(body)
}

// Verify returns the claims of a quoteId issued under any key of the issuer, or ErrInvalid.
// Expiry is the caller's check (Claims.Expired), so it can answer "expired" rather than
// "invalid".
func (i *Issuer) Verify(token string) (Claims, error) {
	sealed, ok := strings.CutPrefix(token, prefix+".")
	if !ok {
		return Claims{}, ErrInvalid
	}
	body, err := i.tokens.Open(sealed)
	if err != nil {
		return Claims{}, ErrInvalid
	}
	var c Claims
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Claims{}, ErrInvalid
	}
	return c, nil
}
