// Package screening decides whether an order's addresses may be served: the key an address
// stands for on its chain (one key has a form on several chains), the OFAC SDN list as
// published (SDN.CSV joined with SDN_COMMENTS.CSV, or the compact extract the sanctions
// CronJob writes) read into a table of listed keys, the state of that list, and the pure
// decisions (a partner's policy over what the sources answered; what a held order's review
// does next).
package screening

import "strings"

// Canonical is addr as a screening service is asked about it on chain: EVM hex is
// case-insensitive (lower case), bech32 is case-insensitive (lower case), NEAR account ids
// are lower case; base58 (Bitcoin legacy, Tron, Solana, Dogecoin) is case-sensitive and
// stays exact.
func Canonical(chain, addr string) string {
	addr = strings.TrimSpace(addr)
	switch {
	case isEVM(chain), chain == "near":
		return strings.ToLower(addr)
	case chain == "btc" && len(addr) > 3 && strings.EqualFold(addr[:3], "bc1"):
		return strings.ToLower(addr)
	}
	return addr
}
