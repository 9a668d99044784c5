// Package units renders amounts kept in an asset's smallest unit (wei, lamports, satoshis) in
// the asset's own units, for people.
package units

import "math/big"

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
