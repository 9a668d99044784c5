package channel

import (
	"fmt"
	"math/big"
)

// two128 is 2^128, the fixed-point scale of Chainflip prices.
var two128 = new(big.Int).Lsh(big.NewInt(1), 128)

// MinPriceX128 is the fill-or-kill floor Chainflip compares every swap against: the price of one
// smallest source unit in smallest destination units, times 2^128. It follows the SDK's
// formula: a human price (destination per source) with destination-decimals precision, then
// shifted by the decimals difference onto the 2^128 scale. Both roundings go up, so a swap
// that meets the floor always pays at least minOut for amountIn (the SDK rounds half up).
func MinPriceX128(minOut, amountIn string, srcDecimals, destDecimals int) (string, error) {
	out, ok1 := new(big.Int).SetString(minOut, 10)
	in, ok2 := new(big.Int).SetString(amountIn, 10)
	if !ok1 || !ok2 || out.Sign() < 0 || in.Sign() <= 0 {
		return "", fmt.Errorf("minimum output %q and input %q must be integers, the input positive", minOut, amountIn)
	}
	if srcDecimals < 0 || destDecimals < 0 {
		return "", fmt.Errorf("negative decimals")
	}
	srcUnit := pow10(srcDecimals)
	// Human price with destDecimals places, as an integer count of 10^-destDecimals:
	// (out/10^dd) / (in/10^sd) * 10^dd = out * 10^sd / in.
	priceUnits := ceilDiv(new(big.Int).Mul(out, srcUnit), in)
	// priceX128 = priceUnits/10^dd * 2^128 * 10^(dd-sd) = priceUnits * 2^128 / 10^sd.
	return ceilDiv(new(big.Int).Mul(priceUnits, two128), srcUnit).String(), nil
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// ceilDiv is ⌈a/b⌉ for non-negative a and positive b.
func ceilDiv(a, b *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(a, b, new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// maxAmount is the larger of two amount strings; an empty or malformed b leaves a.
func maxAmount(a, b string) string {
	x, okA := new(big.Int).SetString(a, 10)
	y, okB := new(big.Int).SetString(b, 10)
	if okA && okB && y.Cmp(x) > 0 {
		return b
	}
	return a
}

// below reports whether amount a is less than b; false unless both are amounts.
func below(a, b string) bool {
	x, okA := new(big.Int).SetString(a, 10)
	y, okB := new(big.Int).SetString(b, 10)
	return okA && okB && x.Cmp(y) < 0
}
