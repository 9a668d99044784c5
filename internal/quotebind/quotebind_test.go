package quotebind

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
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

func TestSignVerifyAndRotation(t *testing.T) {
	old, _ := NewKeyring([2]string{"k1", keyA})
	rotating, _ := NewKeyring([2]string{"k1", keyA}, [2]string{"k2", keyB})
	rotated, _ := NewKeyring([2]string{"k2", keyB}, [2]string{"k1", keyA})
	done, _ := NewKeyring([2]string{"k2", keyB})

	tok := old.Sign(claims())
	for name, k := range map[string]*Keyring{"old": old, "rotating": rotating, "rotated": rotated} {
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
}

func TestTamperingIsRefused(t *testing.T) {
	k, _ := NewKeyring([2]string{"k1", keyA})
	tok := k.Sign(claims())
	parts := strings.Split(tok, ".")
	better := claims()
	better.Bound = "1"
	forged := k.Sign(better)
	for name, bad := range map[string]string{
		"other body":   parts[0] + "." + parts[1] + "." + strings.Split(forged, ".")[2] + "." + parts[3],
		"unknown kid":  parts[0] + ".k9." + parts[2] + "." + parts[3],
		"no signature": strings.Join(parts[:3], "."),
		"empty":        "",
		"other format": "q2." + strings.Join(parts[1:], "."),
		"other key":    func() string { o, _ := NewKeyring([2]string{"k1", keyB}); return o.Sign(claims()) }(),
	} {
		if _, err := k.Verify(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: verified", name)
		}
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

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keys")
	enc := base64.StdEncoding.EncodeToString
	_ = os.WriteFile(p, []byte("# signing key first\nk2 "+enc([]byte(keyB))+"\n\nk1 "+enc([]byte(keyA))+"\n"), 0o600)
	k, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.Sign(claims()), "q1.k2.") {
		t.Error("the first line does not sign")
	}
	_ = os.WriteFile(p, []byte("k1 "+enc([]byte("short"))+"\n"), 0o600)
	if _, err := Load(p); err == nil {
		t.Error("a short key was accepted")
	}
}
