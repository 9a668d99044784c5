package screening

import (
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/btcsuite/btcd/btcutil/bech32"
	solbase58 "github.com/mr-tron/base58"

	"github.com/swaprouter/swaprouter/internal/caip"
)

// Key is what controls an address, whatever chain or spelling it appears in: the bytes every
// form of the address encodes, and the scheme that derives them. The list is looked up by
// key, so a listed key is refused in each of its forms:
//
//	scheme   bytes                             forms on the chains the service routes
//	evm      keccak-derived 20-byte address    0x… on every EVM chain (any case); Tron T…
//	                                           (base58check of 0x41 ‖ the 20 bytes); a NEAR
//	                                           eth-implicit account (0x + 40 lower-case hex)
//	ed25519  32-byte public key                Solana (base58); a NEAR implicit account (64 hex)
//	pkh      hash160 of a public key           Bitcoin 1… and bc1q… (20-byte program); Dogecoin D…
//	sh       hash160 of a script               Bitcoin 3…; Dogecoin 9… and A…
//	wsh      SHA-256 of a script               Bitcoin bc1q… (32-byte program)
//	tr       taproot output key                Bitcoin bc1p…
//	near     a named NEAR account              alice.near (lower case)
//
// A listing of another chain counts when it is a form of one of these keys: Litecoin, Bitcoin
// Cash (legacy and cashaddr), Bitcoin SV, Dash, Zcash (transparent), Bitcoin Gold and Omni
// (USDT) addresses are pkh or sh keys; Ethereum Classic and every 0x… listing is an evm key.
type Key struct {
	Scheme string
	// ID is the key's bytes in lower-case hex (a NEAR account's name for the near scheme).
	ID string
}

// String is scheme:id.
func (k Key) String() string { return k.Scheme + ":" + k.ID }

// Key schemes.
const (
	SchemeEVM     = "evm"
	SchemeEd25519 = "ed25519"
	SchemePKH     = "pkh"
	SchemeSH      = "sh"
	SchemeWSH     = "wsh"
	SchemeTaproot = "tr"
	SchemeNEAR    = "near"
)

// SubjectKey is the key of addr as an address of chain (a short chain key). An address that
// is no known form (it passed the chain's address check, so this is only a chain without a
// key table) is its own key: the chain and its canonical spelling.
func SubjectKey(chain, addr string) Key {
	addr = strings.TrimSpace(addr)
	if chain == "near" {
		switch id := strings.ToLower(addr); {
		case ethImplicit.MatchString(id):
			return Key{SchemeEVM, id[2:]}
		case nearImplicit.MatchString(id):
			return Key{SchemeEd25519, id}
		default:
			return Key{SchemeNEAR, id}
		}
	}
	if k, ok := keyOfForm(addr); ok {
		return k
	}
	return Key{chain, Canonical(chain, addr)}
}

// ListedKey is the key of an address as a sanctions list publishes it, read from its form
// (the ticker beside it is often a token's, not a chain's: USDT is listed on Ethereum, Tron
// and Omni); false when it is no form of a key any chain the service routes shares.
func ListedKey(addr string) (Key, bool) {
	return keyOfForm(strings.TrimSpace(addr))
}

var (
	evmHex       = regexp.MustCompile(`^0[xX][0-9a-fA-F]{40}$`)
	ethImplicit  = regexp.MustCompile(`^0x[0-9a-f]{40}$`)
	nearImplicit = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// tronVersion is the version byte of a Tron address.
const tronVersion = 0x41

// Base58check version bytes of public-key-hash and script-hash addresses: Bitcoin (also
// Bitcoin Cash and SV legacy, Omni), Dogecoin (also Verge), Litecoin, Dash, Bitcoin Gold.
var (
	pkhVersions = map[byte]bool{0x00: true, 0x1e: true, 0x30: true, 0x4c: true, 0x26: true}
	shVersions  = map[byte]bool{0x05: true, 0x16: true, 0x32: true, 0x10: true, 0x17: true}
)

// Zcash transparent addresses have two version bytes: 0x1c then 0xb8 (t1…) or 0xbd (t3…).
const (
	zcashVersion   = 0x1c
	zcashPKHSuffix = 0xb8
	zcashSHSuffix  = 0xbd
)

// segwitHRPs are the human-readable parts of the segwit addresses read as keys: Bitcoin,
// Litecoin, Bitcoin Gold.
var segwitHRPs = map[string]bool{"bc": true, "ltc": true, "btg": true}

// keyOfForm reads addr as one of the forms of the table above.
func keyOfForm(addr string) (Key, bool) {
	if evmHex.MatchString(addr) {
		return Key{SchemeEVM, strings.ToLower(addr[2:])}, true
	}
	if payload, version, err := base58.CheckDecode(addr); err == nil {
		if k, ok := base58checkKey(version, payload); ok {
			return k, true
		}
	}
	if k, ok := segwitKey(addr); ok {
		return k, true
	}
	if k, ok := cashAddrKey(addr); ok {
		return k, true
	}
	// A Solana address is a bare base58 ed25519 public key (base58check strings decode to 25
	// bytes, never 32).
	if b, err := solbase58.Decode(addr); err == nil && len(b) == 32 {
		return Key{SchemeEd25519, hex.EncodeToString(b)}, true
	}
	return Key{}, false
}

func base58checkKey(version byte, payload []byte) (Key, bool) {
	switch {
	case len(payload) == 20 && version == tronVersion:
		return Key{SchemeEVM, hex.EncodeToString(payload)}, true
	case len(payload) == 20 && pkhVersions[version]:
		return Key{SchemePKH, hex.EncodeToString(payload)}, true
	case len(payload) == 20 && shVersions[version]:
		return Key{SchemeSH, hex.EncodeToString(payload)}, true
	case len(payload) == 21 && version == zcashVersion && payload[0] == zcashPKHSuffix:
		return Key{SchemePKH, hex.EncodeToString(payload[1:])}, true
	case len(payload) == 21 && version == zcashVersion && payload[0] == zcashSHSuffix:
		return Key{SchemeSH, hex.EncodeToString(payload[1:])}, true
	}
	return Key{}, false
}

// segwitKey reads a segwit address (BIP 173 bech32 for version 0, BIP 350 bech32m after).
func segwitKey(addr string) (Key, bool) {
	hrp, data, enc, err := bech32.DecodeGeneric(addr)
	if err != nil || !segwitHRPs[hrp] || len(data) < 1 {
		return Key{}, false
	}
	witnessVersion := data[0]
	program, err := bech32.ConvertBits(data[1:], 5, 8, false)
	if err != nil {
		return Key{}, false
	}
	switch {
	case witnessVersion == 0 && enc == bech32.Version0 && len(program) == 20:
		return Key{SchemePKH, hex.EncodeToString(program)}, true
	case witnessVersion == 0 && enc == bech32.Version0 && len(program) == 32:
		return Key{SchemeWSH, hex.EncodeToString(program)}, true
	case witnessVersion == 1 && enc == bech32.VersionM && len(program) == 32:
		return Key{SchemeTaproot, hex.EncodeToString(program)}, true
	}
	return Key{}, false
}

// isEVM reports whether chain is an EVM chain (a CAIP-2 eip155 chain): one key controls the
// same address on all of them.
func isEVM(chain string) bool {
	c, ok := caip.LookupChain(chain)
	return ok && strings.HasPrefix(c.ID, "eip155:")
}
