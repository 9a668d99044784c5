// Package screening decides whether an order's addresses may be served: the canonical form of
// an address on its chain, the OFAC SDN list as published (SDN.CSV) read into a lookup table,
// and the pure decisions (a partner's policy over what the sources answered; what a held
// order's review does next).
package screening

import "strings"

// evmNamespace holds every EVM chain's addresses: one key controls the same address on all
// of them, so a listing on one is a listing on each.
const evmNamespace = "evm"

// Namespace is where an address of chain (a short chain key) is listed.
func Namespace(chain string) string {
	switch chain {
	case "eth", "arb", "base", "bsc", "op", "pol", "avax":
		return evmNamespace
	}
	return chain
}

// Canonical is addr as the list stores it for chain, so that every spelling of one address
// finds the same entry: EVM hex is case-insensitive (lower case), bech32 is case-insensitive
// (lower case), NEAR account ids are lower case; base58 (Bitcoin legacy, Tron, Solana,
// Dogecoin) is case-sensitive and stays exact.
func Canonical(chain, addr string) string {
	addr = strings.TrimSpace(addr)
	switch Namespace(chain) {
	case evmNamespace, "near":
		return strings.ToLower(addr)
	case "btc":
		if len(addr) > 3 && strings.EqualFold(addr[:3], "bc1") {
			return strings.ToLower(addr)
		}
	}
	return addr
}
