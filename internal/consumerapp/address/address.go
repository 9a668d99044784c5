// Package address checks that a user's address belongs to the chain of the asset it is for,
// so the page can say what is wrong before an order exists: EVM hex (EIP-55 checksum when
// mixed case), Solana base58 of 32 bytes, Bitcoin and Dogecoin base58check or bech32/bech32m,
// Tron base58check, NEAR account ids.
package address

import (
	"encoding/hex"
	"regexp"
	"strings"

	"golang.org/x/crypto/sha3"
)

// Problem is why an address does not fit its chain, in words a user can act on.
type Problem string

func (p Problem) Error() string { return string(p) }

// Check reports the problem with addr on chain (a short chain key from the asset list), or nil.
func Check(chain, addr string) error {
	if addr == "" {
		return Problem("Enter an address.")
	}
	if strings.TrimSpace(addr) != addr {
		return Problem("Remove the spaces around the address.")
	}
	switch chain {
	case "eth", "arb", "base", "bsc", "op", "pol", "avax":
		return checkEVM(addr)
	case "sol":
		if b, ok := base58Decode(addr); !ok || len(b) != 32 {
			return Problem("A Solana address is 32–44 base58 characters (no 0, O, I or l).")
		}
	case "tron":
		if v, ok := base58Check(addr); !ok || v != 0x41 {
			return Problem("A Tron address starts with T and is 34 characters; check it for typos.")
		}
	case "btc":
		return checkUTXO(addr, "bc", []byte{0x00, 0x05}, "A Bitcoin address starts with 1, 3 or bc1; check it for typos.")
	case "doge":
		return checkUTXO(addr, "", []byte{0x1e, 0x16}, "A Dogecoin address starts with D, A or 9; check it for typos.")
	case "near":
		if !nearAccount(addr) {
			return Problem("A NEAR account is like alice.near (lowercase letters, digits, - _ .) or 64 hex characters.")
		}
	default:
		return Problem("This chain's addresses cannot be checked here.")
	}
	return nil
}

var evmHex = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// checkEVM accepts all-lowercase or all-uppercase hex, and mixed case only with a valid
// EIP-55 checksum (mixed case that fails it is a typo).
func checkEVM(addr string) error {
	if !evmHex.MatchString(addr) {
		return Problem("An address on this chain is 0x followed by 40 hexadecimal characters.")
	}
	body := addr[2:]
	if body == strings.ToLower(body) || body == strings.ToUpper(body) {
		return nil
	}
	if eip55(body) != body {
		return Problem("The address's capital letters do not match its checksum: it has a typo. Copy it again from your wallet.")
	}
	return nil
}

// eip55 is the checksummed spelling of 40 hex characters.
func eip55(body string) string {
	lower := strings.ToLower(body)
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(lower))
	sum := hex.EncodeToString(h.Sum(nil))
	out := []byte(lower)
	for i, c := range out {
		if c >= 'a' && sum[i] >= '8' {
			out[i] = c - 'a' + 'A'
		}
	}
	return string(out)
}

// checkUTXO accepts base58check with one of versions, or a segwit address with hrp.
func checkUTXO(addr, hrp string, versions []byte, msg string) error {
	if hrp != "" && strings.HasPrefix(strings.ToLower(addr), hrp+"1") {
		if segwit(addr, hrp) {
			return nil
		}
		return Problem(msg)
	}
	if v, ok := base58Check(addr); ok {
		for _, want := range versions {
			if v == want {
				return nil
			}
		}
	}
	return Problem(msg)
}

var nearNamed = regexp.MustCompile(`^(([a-z\d]+[-_])*[a-z\d]+\.)*([a-z\d]+[-_])*[a-z\d]+$`)
var nearImplicit = regexp.MustCompile(`^[0-9a-f]{64}$`)

// nearAccount follows NEAR's account id rules: 2–64 characters, named or implicit.
func nearAccount(id string) bool {
	if len(id) < 2 || len(id) > 64 {
		return false
	}
	return nearImplicit.MatchString(id) || nearNamed.MatchString(id) || (evmHex.MatchString(id) && id == strings.ToLower(id))
}
