package units

import (
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

func TestFormatString(t *testing.T) {
	for _, c := range []struct {
		amount   string
		decimals int
		want     string
		ok       bool
	}{
		{"100000000000000000", 18, "0.1", true},
		{"1500000", 6, "1.5", true},
		{"1", 18, "0.000000000000000001", true},
		{"1000000", 6, "1", true},
		{"42", 0, "42", true},
		{"0", 8, "0", true},
		{"12x", 6, "", false},
		{"", 6, "", false},
		{"5", -1, "", false},
	} {
		got, ok := FormatString(c.amount, c.decimals)
		if got != c.want || ok != c.ok {
			t.Errorf("FormatString(%q, %d) = %q, %v; want %q, %v", c.amount, c.decimals, got, ok, c.want, c.ok)
		}
	}
}

func TestSignificantString(t *testing.T) {
	for _, c := range []struct {
		amount   string
		decimals int
		want     string
	}{
		{"1982345678", 9, "1.982"},
		{"1999999999", 9, "1.999"}, // cut, never rounded up
		{"100000000000000000", 18, "0.1"},
		{"123456789012345678", 18, "0.1234"},
		{"123456", 9, "0.0001234"},
		{"1234567891", 6, "1234"},
		{"123456789", 3, "123456"},
		{"1000000", 6, "1"},
		{"1230000", 6, "1.23"},
		{"0", 6, "0"},
		{"42", 0, "42"},
	} {
		got, ok := SignificantString(c.amount, c.decimals, 4)
		if got != c.want || !ok {
			t.Errorf("SignificantString(%q, %d, 4) = %q, %v; want %q", c.amount, c.decimals, got, ok, c.want)
		}
	}
	if _, ok := SignificantString("1.5", 6, 4); ok {
		t.Error("a non-integer amount was rendered")
	}
}

// Format agrees with the exact rational rendering it replaced (amount ÷ 10^decimals, every
// digit, trailing zeros trimmed), negative amounts included.
func TestFormatMatchesRationalRendering(t *testing.T) {
	reference := func(amount *big.Int, decimals int) string {
		s := new(big.Rat).SetFrac(amount, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)).FloatString(decimals)
		if decimals > 0 {
			s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	rnd := rand.New(rand.NewSource(1))
	for i := range 2000 {
		decimals := rnd.Intn(30)
		amount := new(big.Int).Rand(rnd, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(rnd.Intn(40))), nil))
		if i%3 == 0 {
			amount.Neg(amount)
		}
		if got, want := Format(amount, decimals), reference(amount, decimals); got != want {
			t.Fatalf("Format(%s, %d) = %q, want %q", amount, decimals, got, want)
		}
	}
	for _, c := range []struct {
		amount   int64
		decimals int
		want     string
	}{{-5, 1, "-0.5"}, {-1500000, 6, "-1.5"}, {-1000000, 6, "-1"}, {0, 0, "0"}, {7, 0, "7"}, {120, 1, "12"}} {
		if got := Format(big.NewInt(c.amount), c.decimals); got != c.want {
			t.Errorf("Format(%d, %d) = %q, want %q", c.amount, c.decimals, got, c.want)
		}
	}
}
