package address

import (
	"strings"
	"testing"
)

// FuzzCheck: Check never panics, and whatever it accepts is plain ASCII without spaces, of a
// length an address has, and (on EVM chains) checksummed or single-case.
func FuzzCheck(f *testing.F) {
	for _, s := range []struct{ chain, addr string }{
		{"eth", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"},
		{"sol", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"},
		{"tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"},
		{"btc", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"},
		{"btc", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"},
		{"doge", "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L"},
		{"near", "app_1-x.alice.near"},
		{"near", "alice\u200b.near"},
		{"eth", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe\u202e"},
	} {
		f.Add(s.chain, s.addr)
	}
	f.Fuzz(func(t *testing.T, chain, addr string) {
		if Check(chain, addr) != nil {
			return
		}
		if addr == "" || len(addr) > maxLen {
			t.Fatalf("accepted %d bytes", len(addr))
		}
		for _, r := range addr {
			if r <= ' ' || r > '~' {
				t.Fatalf("accepted %q with %U", addr, r)
			}
		}
		if strings.HasPrefix(addr, "0x") && len(addr) == 42 && chain != "near" && checkEVM(addr) != nil {
			t.Fatalf("accepted %q on %s though its checksum fails", addr, chain)
		}
	})
}
