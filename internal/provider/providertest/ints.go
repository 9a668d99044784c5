package providertest

import "math/big"

func mustInt(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return n
}

func cmpInt(a, b string) int { return mustInt(a).Cmp(mustInt(b)) }
