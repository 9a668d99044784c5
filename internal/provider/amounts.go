package provider

import (
	"fmt"
	"math/big"
)

// DefaultSlippageBps applies when a request leaves slippage to the provider and the provider
// has no recommendation.
const DefaultSlippageBps = 100

// ApplySlippage moves an integer amount string by bps basis points: down (for a minimum
// output) or up (for a maximum input), rounding so the bound is never tighter than exact.
func ApplySlippage(amount string, bps int64, up bool) (string, error) {
	n, ok := new(big.Int).SetString(amount, 10)
	if !ok || n.Sign() < 0 {
		return "", fmt.Errorf("amount %q is not a non-negative integer", amount)
	}
	if bps < 0 || bps > 10000 {
		return "", fmt.Errorf("slippage %d bps is outside 0..10000", bps)
	}
	factor := int64(10000 - bps)
	if up {
		factor = 10000 + bps
	}
	out := new(big.Int).Mul(n, big.NewInt(factor))
	if up {
		out.Add(out, big.NewInt(9999)) // round up
	}
	return out.Quo(out, big.NewInt(10000)).String(), nil
}

// IsAmount reports whether s is a non-negative integer string, the contract's amount form.
func IsAmount(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// BpsOf is bps basis points of amount (a smallest-unit integer string), rounded down; "0"
// when amount is not an amount.
func BpsOf(amount string, bps int32) string {
	n, ok := new(big.Int).SetString(amount, 10)
	if !ok || n.Sign() < 0 {
		return "0"
	}
	n.Mul(n, big.NewInt(int64(bps)))
	return n.Quo(n, big.NewInt(10000)).String()
}
