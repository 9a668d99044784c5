// Package units renders amounts kept in an asset's smallest unit (wei, lamports, satoshis) in
// the asset's own units, for people.
package units

import (
	"math/big"
	"strings"
)

// Format renders a smallest-unit amount as a decimal string with the asset's decimals and no
// trailing zeros (1500000 at 6 decimals -> "1.5").
func Format(amount *big.Int, decimals int) string {
	r := new(big.Rat).SetFrac(amount, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
	s := r.FloatString(decimals)
	if decimals > 0 {
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	return s
}

// FormatString is Format for a base-10 integer string; ok is false when amount is not one.
func FormatString(amount string, decimals int) (s string, ok bool) {
	n, ok := new(big.Int).SetString(amount, 10)
	if !ok || decimals < 0 {
		return "", false
	}
	return Format(n, decimals), true
}

// Significant renders a smallest-unit amount as Format does, cut to digits significant
// digits: every digit before the point is kept, and fractional digits only up to digits in
// all. The cut is toward zero, so the text never shows more than the amount (1982345678 at 9
// decimals, 4 digits -> "1.982"; 123456789 at 3 decimals -> "123456").
func Significant(amount *big.Int, decimals, digits int) string {
	s := Format(amount, decimals)
	whole, frac, ok := strings.Cut(s, ".")
	if !ok {
		return s
	}
	keep := digits - len(strings.TrimLeft(whole, "-0"))
	if strings.TrimLeft(whole, "-0") == "" {
		keep = len(frac) - len(strings.TrimLeft(frac, "0")) + digits // leading zeros are not significant
	}
	if keep <= 0 {
		return whole
	}
	if keep < len(frac) {
		frac = strings.TrimRight(frac[:keep], "0")
	}
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// SignificantString is Significant for a base-10 integer string; ok is false when amount is
// not one.
func SignificantString(amount string, decimals, digits int) (s string, ok bool) {
	n, ok := new(big.Int).SetString(amount, 10)
	if !ok || decimals < 0 {
		return "", false
	}
	return Significant(n, decimals, digits), true
}
