package chainaddr

import (
	"regexp"
	"testing"
)

func TestShapes(t *testing.T) {
	tests := []struct {
		chain    string
		addr, tx *regexp.Regexp
	}{
		{"eth", regexp.MustCompile(`^0x[0-9a-f]{40}$`), regexp.MustCompile(`^0x[0-9a-f]{64}$`)},
		{"arb", regexp.MustCompile(`^0x[0-9a-f]{40}$`), regexp.MustCompile(`^0x[0-9a-f]{64}$`)},
		{"sol", regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{32,44}$`), regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{80,88}$`)},
		{"tron", regexp.MustCompile(`^T[1-9A-HJ-NP-Za-km-z]{33}$`), regexp.MustCompile(`^[0-9a-f]{64}$`)},
		{"btc", regexp.MustCompile(`^bc1q[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{38}$`), regexp.MustCompile(`^[0-9a-f]{64}$`)},
		{"doge", regexp.MustCompile(`^D[1-9A-HJ-NP-Za-km-z]{33}$`), regexp.MustCompile(`^[0-9a-f]{64}$`)},
		{"near", regexp.MustCompile(`^[0-9a-f]{64}$`), regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{40,44}$`)},
	}
	for _, tt := range tests {
		for _, seed := range []string{"a", "b", "ord_x"} {
			if a := Address(tt.chain, "route_A", seed); !tt.addr.MatchString(a) {
				t.Errorf("%s address %q has the wrong shape", tt.chain, a)
			}
			if h := TxHash(tt.chain, seed); !tt.tx.MatchString(h) {
				t.Errorf("%s tx hash %q has the wrong shape", tt.chain, h)
			}
		}
	}
}

func TestDeterministicAndDistinct(t *testing.T) {
	if Address("eth", "route_A", "x") != Address("eth", "route_A", "x") {
		t.Fatal("same seed gave different addresses")
	}
	if Address("eth", "route_A", "x") == Address("eth", "route_B", "x") {
		t.Fatal("different providers share an address")
	}
	if Address("eth", "a", "bc") == Address("eth", "ab", "c") {
		t.Fatal("seed parts are not separated")
	}
}
