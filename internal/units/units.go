// Package units renders amounts kept in an asset's smallest unit (wei, lamports, satoshis) in
// the asset's own units, for people.
package units

import (
	"math/big"
	"strings"
)

// Format renders a smallest-unit amount as a decimal string with the asset's decimals and no
// trailing zeros (1500000 at 6 decimals -> "1.5").
//
// It places the point in the integer's digits: no power of ten or rational division, which
// cost a quote answer's amounts more than the rest of their formatting.
func Format(amount *big.Int, decimals int) string {
	digits := amount.String()
	if decimals <= 0 {
		return digits
	}
	sign := ""
	if amount.Sign() < 0 {
		sign, digits = "-", digits[1:]
	}
	if len(digits) <= decimals {
		digits = strings.Repeat("0", decimals-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-decimals], strings.TrimRight(digits[len(digits)-decimals:], "0")
	if frac == "" {
		return sign + whole
	}
	return sign + whole + "." + frac
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
