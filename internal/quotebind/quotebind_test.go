package quotebind

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

func claims() Claims {
	return Claims{Partner: "acme", Provider: swapv1.ProviderRouteA, OriginAsset: "eip155:1/slip44:60",
		DestinationAsset: "eip155:1/erc20:0xa0b8", Amount: "1000", SwapType: swapv1.ExactInput,
		AmountIn: "1000", AmountOut: "990", Bound: "980", ExpiresAt: 1_900_000_000}
}

// keyset is a Tink JSON keyset of one fresh key, as `swaprouter quote-keys create` writes it.
func keyset(t *testing.T) []byte {
	t.Helper()
	raw, err := tokenkeys.Create()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func keys(t *testing.T, raw []byte) *tokenkeys.Keys {
	t.Helper()
	k, err := tokenkeys.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSignVerify: a quoteId verifies on every replica holding the keyset it was signed with
// (rotation is tokenkeys' own test), as the claims it was signed with, and on no other.
func TestSignVerify(t *testing.T) {
	raw := keyset(t)
	tok := NewIssuer(keys(t, raw)).Sign(claims())
	if !strings.HasPrefix(tok, "q3.") {
		t.Errorf("quoteId %s is not of format q3", tok)
	}
	if c, err := NewIssuer(keys(t, raw)).Verify(tok); err != nil || c != claims() {
		t.Errorf("another replica: %v %+v", err, c)
	}
	if _, err := NewIssuer(keys(t, keyset(t))).Verify(tok); !errors.Is(err, ErrInvalid) {
		t.Errorf("another installation's quoteId verifies: %v", err)
	}
}

func TestTamperingIsRefused(t *testing.T) {
	k := keys(t, keyset(t))
	iss := NewIssuer(k)
	tok := iss.Sign(claims())
	sealed := strings.TrimPrefix(tok, "q3.")
	better := claims()
	better.Bound = "1"
	forged := strings.TrimPrefix(iss.Sign(better), "q3.")
	flipped := []byte(tok)
	flipped[len(flipped)-5] ^= 1
	plain, _ := json.Marshal(better)
	for name, bad := range map[string]string{
		"halves of two tokens": "q3." + forged[:len(forged)/2] + sealed[len(sealed)/2:],
		"one bit changed":      string(flipped),
		"truncated":            tok[:len(tok)-3],
		"empty":                "",
		"no format":            sealed,
		"other format":         "q2." + sealed,
		"other key":            NewIssuer(keys(t, keyset(t))).Sign(claims()),
		"plain claims":         "q3." + base64.RawURLEncoding.EncodeToString(plain),
		"another purpose's":    "q3." + k.For("listing cursor").Seal(plain),
	} {
		if _, err := iss.Verify(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: verified", name)
		}
	}
}

// TestQuoteIDRevealsNothing: nothing a quoteId carries, decoded however a browser might, names
// the partner or shows the quote's amounts or assets.
func TestQuoteIDRevealsNothing(t *testing.T) {
	c := claims()
	c.Partner = "internal-partner-name"
	iss := NewIssuer(keys(t, keyset(t)))
	tok := iss.Sign(c)
	texts := []string{tok}
	for _, part := range strings.Split(tok, ".") {
		for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.StdEncoding} {
			if b, err := enc.DecodeString(part); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	for _, secret := range []string{c.Partner, c.OriginAsset, c.DestinationAsset, c.AmountOut, c.Bound, `"p"`} {
		for _, text := range texts {
			if strings.Contains(text, secret) {
				t.Errorf("the quoteId shows %q", secret)
			}
		}
	}
	if tok == iss.Sign(c) {
		t.Error("two quoteIds of the same quote are equal: the token is deterministic, so comparable")
	}
}

func TestExpired(t *testing.T) {
	c := claims()
	if c.Expired(time.Unix(c.ExpiresAt-1, 0)) || !c.Expired(time.Unix(c.ExpiresAt, 0)) {
		t.Error("expiry is the instant expiresAt")
	}
}

func TestWorse(t *testing.T) {
	tests := []struct {
		name  string
		st    swapv1.SwapType
		bound string
		fresh swapv1.QuoteCandidate
		worse bool
	}{
		{"same minimum", swapv1.ExactInput, "980", swapv1.QuoteCandidate{AmountOut: "990", MinAmountOut: "980"}, false},
		{"better", swapv1.ExactInput, "980", swapv1.QuoteCandidate{AmountOut: "1000", MinAmountOut: "990"}, false},
		{"lower minimum", swapv1.ExactInput, "980", swapv1.QuoteCandidate{AmountOut: "990", MinAmountOut: "979"}, true},
		{"floor kept but expected output below it", swapv1.ExactInput, "980", swapv1.QuoteCandidate{AmountOut: "970", MinAmountOut: "980"}, true},
		{"no minimum: expected output counts", swapv1.ExactInput, "980", swapv1.QuoteCandidate{AmountOut: "985"}, false},
		{"no amounts", swapv1.ExactInput, "980", swapv1.QuoteCandidate{}, true},
		{"exact output same", swapv1.ExactOutput, "1010", swapv1.QuoteCandidate{AmountIn: "1000", MaxAmountIn: "1010"}, false},
		{"exact output costs more", swapv1.ExactOutput, "1010", swapv1.QuoteCandidate{AmountIn: "1005", MaxAmountIn: "1011"}, true},
		{"uint256-sized amounts", swapv1.ExactInput, "115792089237316195423570985008687907853269984665640564039457584007913129639935",
			swapv1.QuoteCandidate{AmountOut: "115792089237316195423570985008687907853269984665640564039457584007913129639935"}, false},
	}
	for _, tt := range tests {
		if got := Worse(tt.st, tt.bound, tt.fresh); got != tt.worse {
			t.Errorf("%s: Worse = %v", tt.name, got)
		}
	}
}
