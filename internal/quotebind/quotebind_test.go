package quotebind

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/seal"
)

var (
	keyA = strings.Repeat("a", 32)
	keyB = strings.Repeat("b", 32)
)

func claims() Claims {
	return Claims{Partner: "acme", Provider: swapv1.ProviderRouteA, OriginAsset: "eip155:1/slip44:60",
		DestinationAsset: "eip155:1/erc20:0xa0b8", Amount: "1000", SwapType: swapv1.ExactInput,
		AmountIn: "1000", AmountOut: "990", Bound: "980", ExpiresAt: 1_900_000_000}
}

func issuer(t *testing.T, pairs ...[2]string) *Issuer {
	t.Helper()
	k, err := seal.NewKeyring(pairs...)
	if err != nil {
		t.Fatal(err)
	}
	return NewIssuer(k)
}

func TestSignVerifyAndRotation(t *testing.T) {
	old := issuer(t, [2]string{"k1", keyA})
	rotating := issuer(t, [2]string{"k1", keyA}, [2]string{"k2", keyB})
	rotated := issuer(t, [2]string{"k2", keyB}, [2]string{"k1", keyA})
	done := issuer(t, [2]string{"k2", keyB})

	tok := old.Sign(claims())
	for name, k := range map[string]*Issuer{"old": old, "rotating": rotating, "rotated": rotated} {
		if c, err := k.Verify(tok); err != nil || c != claims() {
			t.Errorf("%s keyring: %v %+v", name, err, c)
		}
	}
	if _, err := done.Verify(tok); !errors.Is(err, ErrInvalid) {
		t.Errorf("a removed key still verifies: %v", err)
	}
	if _, err := old.Verify(rotated.Sign(claims())); !errors.Is(err, ErrInvalid) {
		t.Errorf("a key the replica does not have verifies: %v", err)
	}
	if !strings.HasPrefix(rotated.Sign(claims()), "q2.k2.") {
		t.Error("the first key does not sign")
	}
}

func TestTamperingIsRefused(t *testing.T) {
	k := issuer(t, [2]string{"k1", keyA})
	tok := k.Sign(claims())
	parts := strings.Split(tok, ".")
	better := claims()
	better.Bound = "1"
	forged := strings.Split(k.Sign(better), ".")
	flipped := []byte(tok)
	flipped[len(flipped)-5] ^= 1
	plain, _ := json.Marshal(better)
	for name, bad := range map[string]string{
		"other body's sealed bytes under a copied kid": parts[0] + "." + parts[1] + "." + forged[2][:len(forged[2])/2] + parts[2][len(parts[2])/2:],
		"one bit changed":   string(flipped),
		"unknown kid":       parts[0] + ".k9." + parts[2],
		"truncated":         tok[:len(tok)-3],
		"empty":             "",
		"other format":      "q1." + strings.Join(parts[1:], "."),
		"other key":         issuer(t, [2]string{"k1", keyB}).Sign(claims()),
		"plain claims":      "q2.k1." + base64.RawURLEncoding.EncodeToString(plain),
		"another purpose's": "q2." + mustKeyring(t, [2]string{"k1", keyA}).Sealer("listing cursor").Seal(plain),
	} {
		if _, err := k.Verify(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: verified", name)
		}
	}
}

func mustKeyring(t *testing.T, pairs ...[2]string) *seal.Keyring {
	t.Helper()
	k, err := seal.NewKeyring(pairs...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestQuoteIDRevealsNothing: nothing a quoteId carries, decoded however a browser might, names
// the partner or shows the quote's amounts or assets.
func TestQuoteIDRevealsNothing(t *testing.T) {
	c := claims()
	c.Partner = "internal-partner-name"
	tok := issuer(t, [2]string{"k1", keyA}).Sign(c)
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
	if tok == issuer(t, [2]string{"k1", keyA}).Sign(c) {
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
