package screening

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/btcsuite/btcd/chaincfg"
	solbase58 "github.com/mr-tron/base58"

	"github.com/swaprouter/swaprouter/internal/address"
	"github.com/swaprouter/swaprouter/internal/caip"
)

// Forms of one key, spelled as each chain spells it.
const (
	// An EVM address (Lazarus Group's, as SDN.CSV lists it) and the same 20 bytes on Tron and
	// as a NEAR eth-implicit account.
	evmChecksummed = "0x098B716B8Aaf21512996dC57EB0615e2383E2f96"
	evmLower       = "0x098b716b8aaf21512996dc57eb0615e2383e2f96"
	evmBytes       = "098b716b8aaf21512996dc57eb0615e2383e2f96"
	// Bitcoin's BIP 173 example key: P2PKH, P2WPKH, and the same hash160 on Dogecoin.
	pkhBytes = "751e76e8199196d454941c45d1b3a323f1433bd6"
	// The cashaddr specification's example: 1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu.
	cashAddr      = "qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"
	cashAddrBytes = "76a04053bda0a88bda5177b86a15c3b29f559873"
)

func TestKeysOfEachForm(t *testing.T) {
	tron := base58.CheckEncode(mustHex(t, evmBytes), tronVersion)
	sol := "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	solBytes := hex.EncodeToString(mustBase58(t, sol))
	tests := []struct {
		name, chain, addr string
		want              Key
	}{
		{"EVM, checksummed", "eth", evmChecksummed, Key{SchemeEVM, evmBytes}},
		{"EVM on an L2, upper case", "arb", "0x098B716B8AAF21512996DC57EB0615E2383E2F96", Key{SchemeEVM, evmBytes}},
		{"Tron: base58check of 0x41 and the 20 bytes", "tron", tron, Key{SchemeEVM, evmBytes}},
		{"NEAR eth-implicit account", "near", evmLower, Key{SchemeEVM, evmBytes}},
		{"NEAR implicit account: an ed25519 public key", "near", solBytes, Key{SchemeEd25519, solBytes}},
		{"Solana: the same public key in base58", "sol", sol, Key{SchemeEd25519, solBytes}},
		{"NEAR named account, any case", "near", "Alice.Near", Key{SchemeNEAR, "alice.near"}},
		{"Bitcoin P2PKH", "btc", "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH", Key{SchemePKH, pkhBytes}},
		{"Bitcoin P2WPKH, the same hash160", "btc", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", Key{SchemePKH, pkhBytes}},
		{"Dogecoin P2PKH, the same hash160", "doge", base58.CheckEncode(mustHex(t, pkhBytes), 0x1e), Key{SchemePKH, pkhBytes}},
		{"Bitcoin P2SH", "btc", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", Key{SchemeSH, "b472a266d0bd89c13706a4132ccfb16f7c3b9fcb"}},
		{"Bitcoin taproot", "btc", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
			Key{SchemeTaproot, "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SubjectKey(tt.chain, tt.addr); got != tt.want {
				t.Errorf("SubjectKey(%s, %s) = %v, want %v", tt.chain, tt.addr, got, tt.want)
			}
		})
	}
}

func TestListedKeys(t *testing.T) {
	tests := []struct {
		name, listed string
		want         Key
		ok           bool
	}{
		{"ETH", evmChecksummed, Key{SchemeEVM, evmBytes}, true},
		{"TRX (or USDT on Tron)", base58.CheckEncode(mustHex(t, evmBytes), tronVersion), Key{SchemeEVM, evmBytes}, true},
		{"XBT", "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH", Key{SchemePKH, pkhBytes}, true},
		{"BCH in cashaddr, no prefix", cashAddr, Key{SchemePKH, cashAddrBytes}, true},
		{"BCH in cashaddr, prefixed", "bitcoincash:" + cashAddr, Key{SchemePKH, cashAddrBytes}, true},
		{"BCH cashaddr of a script", "ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq", Key{SchemeSH, cashAddrBytes}, true},
		{"LTC", base58.CheckEncode(mustHex(t, pkhBytes), 0x30), Key{SchemePKH, pkhBytes}, true},
		{"LTC segwit", segwit(t, "ltc", pkhBytes), Key{SchemePKH, pkhBytes}, true},
		{"DASH", base58.CheckEncode(mustHex(t, pkhBytes), 0x4c), Key{SchemePKH, pkhBytes}, true},
		{"ZEC transparent", base58.CheckEncode(append([]byte{zcashPKHSuffix}, mustHex(t, pkhBytes)...), zcashVersion), Key{SchemePKH, pkhBytes}, true},
		{"SOL", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
			Key{SchemeEd25519, hex.EncodeToString(mustBase58(t, "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"))}, true},
		{"XMR has no form on these chains", "4AdUndXHHZ6cfufTMvppY6JwXNouMBzSkbLYfpAV5Usx3skxNgYeYTRj5UzqtReoS44qo9mtmXCqY45DJ852K5Jv2684Rge", Key{}, false},
		{"XRP has no form on these chains", "rnXyVQzgxZe7TR1EPzTkGj2jxH4LMJYh66", Key{}, false},
		{"a fragment of an address", "1B64QRxf", Key{}, false},
		{"a cashaddr with one character changed", "qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6b", Key{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ListedKey(tt.listed)
			if ok != tt.ok || got != tt.want {
				t.Errorf("ListedKey(%s) = %v %v, want %v %v", tt.listed, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// Every form a listed key takes on a chain the service routes is refused, each spelled as a
// wallet would, and each a valid address of its chain (the address check lets it through to
// screening): the forms are made here with the chains' own encoders, not with the decoder
// under test.
func TestEveryFormOfAListedKeyIsListed(t *testing.T) {
	evm := mustHex(t, evmBytes)
	ed := mustBase58(t, "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin")
	evmForms := map[string][]string{
		"tron": {base58.CheckEncode(evm, tronVersion)},
		"near": {"0x" + hex.EncodeToString(evm)},
	}
	for _, c := range caip.Chains() {
		if strings.HasPrefix(c.ID, "eip155:") {
			evmForms[c.Key] = []string{evmChecksummed, evmLower, "0x" + strings.ToUpper(evmBytes)}
		}
	}
	pkhForms := func(hash160 []byte) map[string][]string {
		p2pkh, err := btcutil.NewAddressPubKeyHash(hash160, &chaincfg.MainNetParams)
		if err != nil {
			t.Fatal(err)
		}
		p2wpkh, err := btcutil.NewAddressWitnessPubKeyHash(hash160, &chaincfg.MainNetParams)
		if err != nil {
			t.Fatal(err)
		}
		return map[string][]string{
			"btc":  {p2pkh.EncodeAddress(), p2wpkh.EncodeAddress(), strings.ToUpper(p2wpkh.EncodeAddress())},
			"doge": {base58.CheckEncode(hash160, 0x1e)},
		}
	}
	edForms := map[string][]string{
		"sol":  {solbase58.Encode(ed)},
		"near": {hex.EncodeToString(ed)},
	}
	pkh := mustHex(t, pkhBytes)
	bip173 := pkhForms(pkh)
	cash := pkhForms(mustHex(t, cashAddrBytes))
	// The cashaddr specification pairs its example with this legacy address.
	if cash["btc"][0] != "1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu" {
		t.Fatalf("the cashaddr example's key spells %s on Bitcoin", cash["btc"][0])
	}
	tests := []struct {
		name          string
		ticker, entry string
		forms         map[string][]string
	}{
		{"an ETH listing", "ETH", evmChecksummed, evmForms},
		{"an ETC listing", "ETC", evmLower, evmForms},
		{"a TRX listing", "TRX", base58.CheckEncode(evm, tronVersion), evmForms},
		{"a USDT listing on Tron", "USDT", base58.CheckEncode(evm, tronVersion), evmForms},
		{"an XBT listing", "XBT", bip173["btc"][1], bip173},
		{"a BCH listing in cashaddr", "BCH", cashAddr, cash},
		{"a BSV listing", "BSV", bip173["btc"][0], bip173},
		{"a USDT listing on Omni", "USDT", bip173["btc"][0], bip173},
		{"an LTC listing", "LTC", base58.CheckEncode(pkh, 0x30), bip173},
		{"a SOL listing", "SOL", solbase58.Encode(ed), edForms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewList([]Entry{{EntNum: 1, Name: "LISTED", Ticker: tt.ticker, Address: tt.entry}})
			if l.Len() != 1 {
				t.Fatalf("the listing is not read as a key")
			}
			for chain, forms := range tt.forms {
				for _, form := range forms {
					if err := address.Check(chain, form); err != nil {
						t.Fatalf("%s %s is no address of the chain: %v", chain, form, err)
					}
					if _, ok := l.Lookup(chain, form); !ok {
						t.Errorf("%s %s is not refused", chain, form)
					}
				}
			}
		})
	}
	// Other keys of the same chains are not.
	l := NewList([]Entry{{EntNum: 1, Ticker: "ETH", Address: evmChecksummed}, {EntNum: 1, Ticker: "XBT", Address: bip173["btc"][0]}})
	for chain, addr := range map[string]string{
		"eth": "0x1111111111111111111111111111111111111111", "near": "0x1111111111111111111111111111111111111111",
		"tron": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "btc": "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "doge": "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
		"sol": "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
	} {
		if e, ok := l.Lookup(chain, addr); ok {
			t.Errorf("%s %s matched %v", chain, addr, e)
		}
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func segwit(t *testing.T, hrp, program string) string {
	t.Helper()
	a, err := btcutil.NewAddressWitnessPubKeyHash(mustHex(t, program), &chaincfg.Params{Bech32HRPSegwit: hrp})
	if err != nil {
		t.Fatal(err)
	}
	return a.EncodeAddress()
}

func mustBase58(t *testing.T, s string) []byte {
	t.Helper()
	b, err := solbase58.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
