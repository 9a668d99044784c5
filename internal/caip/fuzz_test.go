package caip

import (
	"strconv"
	"strings"
	"testing"
)

// Fuzz targets for the CAIP-19 parser. The oracle is a hand-written reading of the CAIP-2 and
// CAIP-19 grammar (no regular expressions), so the parser and the oracle can only agree by
// both being right.

// charsetOK reports whether s has min..max characters, each from lower, upper, digits or extra.
func charsetOK(s string, min, max int, upper bool, extra string) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', upper && c >= 'A' && c <= 'Z':
		case strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}

// grammarOK is CAIP-19: <chain namespace>:<chain reference>/<asset namespace>:<asset reference>,
// plus this package's rule that a slip44 reference is a 32-bit coin type number.
func grammarOK(s string) bool {
	slash := strings.IndexByte(s, '/')
	if slash < 0 {
		return false
	}
	chain, asset := s[:slash], s[slash+1:]
	c := strings.IndexByte(chain, ':')
	a := strings.IndexByte(asset, ':')
	if c < 0 || a < 0 {
		return false
	}
	ok := charsetOK(chain[:c], 3, 8, false, "-") && charsetOK(chain[c+1:], 1, 32, true, "-_") &&
		charsetOK(asset[:a], 3, 8, false, "-") && charsetOK(asset[a+1:], 1, 128, true, "-.%")
	if ok && asset[:a] == "slip44" {
		n, err := strconv.ParseUint(asset[a+1:], 10, 64)
		ok = err == nil && n <= 1<<32-1
	}
	return ok
}

func FuzzParseAssetID(f *testing.F) {
	for _, s := range []string{
		"eip155:1/slip44:60", "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
		"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
		"near:mainnet/nep141:wrap.near", "near:mainnet/slip44:397", "eip155:1/slip44:060", "eip155:1/slip44:4294967296",
		"eip155:1/slip44:-1", "eip155:1/slip44:+60", "eip155:1", "eip155:1/", "/slip44:60", "eip155:1/slip44:60/x",
		"EIP155:1/slip44:60", "eip155:1/erc20:0x%2F", "ab:1/slip44:60", "eip155:" + strings.Repeat("1", 33) + "/slip44:60",
		"eip155:1/erc20:" + strings.Repeat("a", 129), "eip155:1/slip44:60\n", "eip155:1/slip44:٦٠", "bip122:000000000019d6689c085ae165831e93/slip44:0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseAssetID(s)
		if (err == nil) != grammarOK(s) {
			t.Fatalf("ParseAssetID(%q) error %v, but the grammar says valid=%v", s, err, grammarOK(s))
		}
		known, kerr := ParseKnownAssetID(s)
		if err != nil {
			if id != (AssetID{}) {
				t.Fatalf("ParseAssetID(%q) failed but returned %+v", s, id)
			}
			if kerr == nil {
				t.Fatalf("ParseKnownAssetID(%q) accepted what ParseAssetID refuses", s)
			}
			return
		}
		if id.String() != s {
			t.Fatalf("ParseAssetID(%q).String() = %q: not the same id", s, id.String())
		}
		again, err := ParseAssetID(id.String())
		if err != nil || again != id {
			t.Fatalf("re-parsing %q gave %+v, %v", id, again, err)
		}
		// Every parsed id fits the SwapOrder CRD's asset fields (3 to 256 characters).
		if len(s) < 3 || len(s) > 256 {
			t.Fatalf("valid id %q has length %d", s, len(s))
		}
		if kerr != nil {
			return
		}
		if known != id {
			t.Fatalf("ParseKnownAssetID(%q) = %+v, ParseAssetID = %+v", s, known, id)
		}
		c, ok := LookupChainID(known.ChainID)
		if !ok {
			t.Fatalf("known id %q on a chain outside the table", s)
		}
		if key, ok := known.ChainKey(); !ok || key != c.Key {
			t.Fatalf("ChainKey of %q = %q, %v; want %q", s, key, ok, c.Key)
		}
		switch {
		case known.IsNative():
			if want, _ := NativeAsset(c.Key); want != known {
				t.Fatalf("known native id %q is not %s's native asset %s", s, c.Key, want)
			}
		case known.Namespace != c.TokenNamespace:
			t.Fatalf("known id %q uses namespace %q on %s (tokens are %q)", s, known.Namespace, c.Key, c.TokenNamespace)
		}
	})
}

func FuzzTokenAsset(f *testing.F) {
	for _, tc := range [][2]string{
		{"eth", "0xA0b86991c6218b36c1D19D4a2e9Eb0cE3606eB48"}, {"eth", "0xa0b8"}, {"sol", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
		{"tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}, {"near", "wrap.near"}, {"btc", "x"}, {"nope", "x"},
		{"near", "a/b"}, {"sol", ""}, {"arb", "0x" + strings.Repeat("g", 40)},
	} {
		f.Add(tc[0], tc[1])
	}
	f.Fuzz(func(t *testing.T, key, contract string) {
		id, err := TokenAsset(key, contract)
		if err != nil {
			return
		}
		c, ok := LookupChain(key)
		if !ok || c.TokenNamespace == "" || id.Namespace != c.TokenNamespace || id.ChainID != c.ID {
			t.Fatalf("TokenAsset(%q, %q) = %+v on a chain that has no such tokens", key, contract, id)
		}
		parsed, err := ParseKnownAssetID(id.String())
		if err != nil || parsed != id {
			t.Fatalf("TokenAsset(%q, %q) = %q, which does not parse back: %+v, %v", key, contract, id, parsed, err)
		}
		if c.TokenNamespace == "erc20" {
			if id.Reference != strings.ToLower(contract) {
				t.Fatalf("erc20 reference %q is not the lower-cased contract %q", id.Reference, contract)
			}
			// EIP-55 casing must not make a second id for the same token.
			other, err := TokenAsset(key, "0x"+strings.ToUpper(contract[2:]))
			if err != nil || other != id {
				t.Fatalf("upper-cased contract %q gave %+v, %v; want %+v", contract, other, err, id)
			}
		} else if id.Reference != contract {
			t.Fatalf("reference %q is not the contract %q", id.Reference, contract)
		}
	})
}
