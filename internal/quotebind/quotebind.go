// Package quotebind makes a dry quote's candidate something an order can be bound to without
// storing anything: its quoteId is a token signed with HMAC-SHA256 over what the partner saw
// (partner, provider, pair, amount, swap type, slippage, partner fee, the amounts and the
// bound minimum output or maximum input, expiry). The frontend verifies the token when an
// order names it; the order then carries the bound, and the order reconciler refuses a
// provider's binding answer worse than it (Worse) before any deposit address is shown.
//
// Keys come from a file (one "<kid> <base64 secret>" per line). The first line signs, every
// line verifies, so a key is rotated by adding the new one as a second line on every replica,
// then moving it first, then removing the old one once its quotes expired.
package quotebind

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"strings"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// prefix marks the token format; a new format gets a new prefix.
const prefix = "q1"

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

// ErrInvalid: the token is not one this service signed (malformed, unknown key, bad signature).
var ErrInvalid = errors.New("not a quoteId issued by this service")

// Keyring signs with its first key and verifies with any.
type Keyring struct {
	ids  []string
	keys map[string][]byte
}

var kidRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// minKeyLen: shorter HMAC keys are guessable.
const minKeyLen = 32

// NewKeyring returns a keyring of (kid, secret) pairs; the first signs.
func NewKeyring(pairs ...[2]string) (*Keyring, error) {
	k := &Keyring{keys: map[string][]byte{}}
	for _, p := range pairs {
		kid, secret := p[0], []byte(p[1])
		if !kidRE.MatchString(kid) {
			return nil, fmt.Errorf("quote key id %q: want 1-32 of A-Z a-z 0-9 _ -", kid)
		}
		if len(secret) < minKeyLen {
			return nil, fmt.Errorf("quote key %s: want at least %d bytes", kid, minKeyLen)
		}
		if _, dup := k.keys[kid]; dup {
			return nil, fmt.Errorf("quote key id %s listed twice", kid)
		}
		k.ids = append(k.ids, kid)
		k.keys[kid] = secret
	}
	if len(k.ids) == 0 {
		return nil, errors.New("no quote keys")
	}
	return k, nil
}

// Random is a keyring of one fresh key: quoteIds then only verify in this process (dev, tests).
func Random() *Keyring {
	b := make([]byte, minKeyLen)
	_, _ = rand.Read(b)
	k, _ := NewKeyring([2]string{"local", string(b)})
	return k
}

// Load reads a key file: one "<kid> <base64 secret>" per line, # comments and blank lines ignored.
func Load(path string) (*Keyring, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pairs [][2]string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kid, enc, ok := strings.Cut(line, " ")
		secret, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
		if !ok || err != nil {
			return nil, fmt.Errorf("%s line %d: want <kid> <base64 secret>", path, n)
		}
		pairs = append(pairs, [2]string{kid, string(secret)})
	}
	k, err := NewKeyring(pairs...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

var b64 = base64.RawURLEncoding

// Sign returns the quoteId of c: q1.<kid>.<claims>.<mac>.
func (k *Keyring) Sign(c Claims) string {
	kid := k.ids[0]
	body, _ := json.Marshal(c)
	head := prefix + "." + kid + "." + b64.EncodeToString(body)
	return head + "." + b64.EncodeToString(mac(k.keys[kid], head))
}

// Verify returns the claims of a quoteId signed by any key of k, or ErrInvalid. Expiry is
// the caller's check (Claims.Expired), so it can answer "expired" rather than "invalid".
func (k *Keyring) Verify(token string) (Claims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 4 || parts[0] != prefix {
		return Claims{}, ErrInvalid
	}
	key, ok := k.keys[parts[1]]
	sig, err := b64.DecodeString(parts[3])
	if !ok || err != nil || !hmac.Equal(sig, mac(key, strings.Join(parts[:3], "."))) {
		return Claims{}, ErrInvalid
	}
	body, err := b64.DecodeString(parts[2])
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

func mac(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}
