// Package address checks that an address belongs to the chain of the asset it is for: EVM hex
// (EIP-55 checksum when mixed case), Solana base58 of 32 bytes, Bitcoin and Dogecoin
// base58check or bech32/bech32m, Tron base58check, NEAR account ids. The partner API refuses
// an order whose sender, recipient or refundTo fails it; the consumer app says what is wrong
// before an order exists. Problems are worded for a person holding a wallet.
package address

import (
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/btcsuite/btcd/chaincfg"
	solbase58 "github.com/mr-tron/base58"
	"golang.org/x/crypto/sha3"
)

// Problem is why an address does not fit its chain, in words a user can act on.
type Problem string

func (p Problem) Error() string { return string(p) }

// maxLen bounds every address; no chain's is longer (bech32 stops at 90).
const maxLen = 128

// Check reports the problem with addr on chain (a short chain key of the chain table), or nil.
func Check(chain, addr string) error {
	if addr == "" {
		return Problem("Enter an address.")
	}
	if err := CheckText(addr); err != nil {
		return err
	}
	if len(addr) > maxLen {
		return Problem("This is too long to be an address.")
	}
	switch chain {
	case "eth", "arb", "base", "bsc", "op", "pol", "avax":
		return checkEVM(addr)
	case "sol":
		if b, err := solbase58.Decode(addr); err != nil || len(b) != 32 {
			return Problem("A Solana address is 32–44 base58 characters (no 0, O, I or l).")
		}
	case "tron":
		if payload, version, err := base58.CheckDecode(addr); err != nil || version != 0x41 || len(payload) != 20 {
			return Problem("A Tron address starts with T and is 34 characters; check it for typos.")
		}
	case "btc":
		return checkUTXO(addr, &chaincfg.MainNetParams, "A Bitcoin address starts with 1, 3 or bc1; check it for typos.")
	case "doge":
		return checkUTXO(addr, &dogeMainNet, "A Dogecoin address starts with D, A or 9; check it for typos.")
	case "near":
		if !nearAccount(addr) {
			return Problem("A NEAR account is like alice.near (lowercase letters, digits, - _ .) or 64 hex characters.")
		}
	default:
		return Problem("This chain's addresses cannot be checked here.")
	}
	return nil
}

// CheckText refuses what no address of any chain contains and what could make one address
// look like another: spaces, control characters and anything outside ASCII (zero-width
// joiners, bidi overrides, look-alike letters). Dry quotes, which accept placeholders,
// still pass this.
func CheckText(s string) error {
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			return Problem("Remove the spaces from the address.")
		case isInvisible(r):
			return Problem("The address contains invisible or direction-changing characters; type or paste it again.")
		case r < 0x21 || r > 0x7e:
			return Problem("An address has only letters, digits and punctuation of plain ASCII.")
		}
	}
	return nil
}

// isInvisible: zero-width characters, bidi controls and other format characters that change
// how the text reads without being seen.
func isInvisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, // zero-width space/joiners, LRM, RLM
		r >= 0x202a && r <= 0x202e, // bidi embeddings and overrides
		r >= 0x2060 && r <= 0x206f, // word joiner, invisible operators, bidi isolates
		r == 0x00ad, r == 0x061c, r == 0x180e, r == 0xfeff:
		return true
	}
	return false
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

// dogeMainNet is what btcutil needs to read Dogecoin addresses: its base58 versions (P2PKH
// 0x1e "D", P2SH 0x16 "9"/"A"); Dogecoin has no segwit.
var dogeMainNet = chaincfg.Params{Name: "doge", PubKeyHashAddrID: 0x1e, ScriptHashAddrID: 0x16}

// checkUTXO accepts a pay-to-pubkey-hash, pay-to-script-hash or segwit (bech32, bech32m for
// taproot) address of net, decoded by btcutil.
func checkUTXO(addr string, net *chaincfg.Params, msg string) error {
	a, err := btcutil.DecodeAddress(addr, net)
	if err != nil || !a.IsForNet(net) {
		return Problem(msg)
	}
	switch a.(type) {
	case *btcutil.AddressPubKeyHash, *btcutil.AddressScriptHash:
		return nil
	case *btcutil.AddressWitnessPubKeyHash, *btcutil.AddressWitnessScriptHash, *btcutil.AddressTaproot:
		if net.Bech32HRPSegwit != "" {
			return nil
		}
	}
	return Problem(msg)
}

var nearNamed = regexp.MustCompile(`^(([a-z\d]+[-_])*[a-z\d]+\.)*([a-z\d]+[-_])*[a-z\d]+$`)
var nearImplicit = regexp.MustCompile(`^[0-9a-f]{64}$`)

// nearAccount follows NEAR's account id rules: 2–64 characters, named or implicit (64 hex, or
// an EVM-style 0x + 40 lowercase hex).
func nearAccount(id string) bool {
	if len(id) < 2 || len(id) > 64 {
		return false
	}
	return nearImplicit.MatchString(id) || nearNamed.MatchString(id) || (evmHex.MatchString(id) && id == strings.ToLower(id))
}
