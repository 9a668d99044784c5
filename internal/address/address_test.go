package address

import (
	"testing"

	"github.com/swaprouter/swaprouter/internal/caip"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		chain, addr string
		ok          bool
	}{
		{"eth", "0x1111111111111111111111111111111111111111", true},
		{"eth", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", true},  // EIP-55 example
		{"arb", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", true},  // EIP-55 example
		{"eth", "0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed", false}, // one letter's case changed
		{"eth", "0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED", true},  // all caps carries no checksum
		{"eth", "0x11111111111111111111111111111111111111", false},   // 38 hex
		{"eth", "1111111111111111111111111111111111111111", false},
		{"eth", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", false},
		{"eth", " 0x1111111111111111111111111111111111111111", false},
		{"eth", "", false},
		{"sol", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", true},
		{"sol", "11111111111111111111111111111111", true}, // the system program
		{"sol", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFi0", false},
		{"sol", "0x1111111111111111111111111111111111111111", false},
		{"btc", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", true},
		{"btc", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", true},
		{"btc", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3", false}, // checksum
		{"btc", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", true},
		{"btc", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", true}, // taproot, bech32m
		{"btc", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", false},
		{"btc", "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", false}, // v1 with a bech32 checksum
		{"doge", "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", true},
		{"doge", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", false},
		{"tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", true},
		{"tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", false},
		{"tron", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", false},
		{"near", "alice.near", true},
		{"near", "app_1-x.alice.near", true},
		{"near", "98793cd91a3f870fb126f66285808c7e094afcfc4eda8a970f6648cdf0dbd6de", true},
		{"near", "Alice.near", false},
		{"near", "alice..near", false},
		{"near", "a", false},
		{"near", "-alice.near", false},
		{"unknownchain", "anything", false},
	}
	for _, tt := range tests {
		err := Check(tt.chain, tt.addr)
		if (err == nil) != tt.ok {
			t.Errorf("Check(%s, %q) = %v, want ok=%v", tt.chain, tt.addr, err, tt.ok)
		}
	}
}

func TestProblemsAreWords(t *testing.T) {
	err := Check("eth", "0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
	if err == nil || err.Error() != "The address's capital letters do not match its checksum: it has a typo. Copy it again from your wallet." {
		t.Errorf("checksum problem = %v", err)
	}
}

// Every chain of the chain table (so every chain the catalog can list) has a check: a valid
// address passes and another chain's address does not.
func TestEveryCatalogChainIsChecked(t *testing.T) {
	valid := map[string]string{
		"eth": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "arb": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"base": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "bsc": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"op": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "pol": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"avax": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"sol":  "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
		"tron": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
		"btc":  "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
		"doge": "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
		"near": "alice.near",
	}
	for _, c := range caip.Chains() {
		addr, ok := valid[c.Key]
		if !ok {
			t.Errorf("chain %s has no sample address here: add its check and a sample", c.Key)
			continue
		}
		if err := Check(c.Key, addr); err != nil {
			t.Errorf("Check(%s, %q) = %v", c.Key, addr, err)
		}
		if err := Check(c.Key, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6tx"); err == nil {
			t.Errorf("Check(%s) accepted a malformed address", c.Key)
		}
	}
}

func TestInvisibleAndForeignCharactersAreRefused(t *testing.T) {
	base := "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	for name, addr := range map[string]string{
		"zero-width space":   base[:10] + "\u200b" + base[10:],
		"zero-width joiner":  base + "\u200d",
		"right-to-left mark": "\u200f" + base,
		"bidi override":      base[:5] + "\u202e" + base[5:],
		"bidi isolate":       base + "\u2066",
		"byte order mark":    "\ufeff" + base,
		"cyrillic a":         "0x5\u0430Aeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"inner space":        "alice .near",
	} {
		if err := Check("eth", addr); err == nil {
			t.Errorf("%s: accepted %q", name, addr)
		}
		if err := CheckText(addr); err == nil {
			t.Errorf("%s: CheckText accepted %q", name, addr)
		}
	}
	if err := Check("eth", base[:10]+"\u200b"+base[10:]); err == nil || err.Error() != "The address contains invisible or direction-changing characters; type or paste it again." {
		t.Errorf("zero-width problem = %v", err)
	}
}

func TestWrongNetworkIsRefused(t *testing.T) {
	for _, addr := range []string{
		"tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", // Bitcoin testnet bech32
		"mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn",         // Bitcoin testnet P2PKH
		"bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs",       // witness v2: not a spendable type here
	} {
		if err := Check("btc", addr); err == nil {
			t.Errorf("btc accepted %q", addr)
		}
	}
	if err := Check("doge", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"); err == nil {
		t.Error("doge accepted a Bitcoin segwit address")
	}
}
