package caip

import (
	"strings"
	"testing"
)

func TestChainTableRoundTrip(t *testing.T) {
	want := map[string]string{
		"eth":  "eip155:1",
		"arb":  "eip155:42161",
		"base": "eip155:8453",
		"bsc":  "eip155:56",
		"sol":  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
		"tron": "tron:0x2b6653dc",
		"near": "near:mainnet",
		"btc":  "bip122:000000000019d6689c085ae165831e93",
	}
	for key, id := range want {
		got, ok := ChainID(key)
		if !ok || got != id {
			t.Errorf("ChainID(%q) = %q, %v; want %q", key, got, ok, id)
		}
	}
	seen := map[string]bool{}
	for _, c := range Chains() {
		if err := ValidateChainID(c.ID); err != nil {
			t.Errorf("%s: %v", c.Key, err)
		}
		if seen[c.ID] {
			t.Errorf("chain id %s listed twice", c.ID)
		}
		seen[c.ID] = true
		if key, ok := ChainKey(c.ID); !ok || key != c.Key {
			t.Errorf("ChainKey(%q) = %q, %v; want %q", c.ID, key, ok, c.Key)
		}
		native, ok := NativeAsset(c.Key)
		if !ok {
			t.Fatalf("NativeAsset(%q) missing", c.Key)
		}
		if _, err := ParseKnownAssetID(native.String()); err != nil {
			t.Errorf("native asset of %s: %v", c.Key, err)
		}
	}
	if _, ok := ChainID("nope"); ok {
		t.Error("ChainID(nope) found")
	}
	if _, ok := ChainKey("eip155:999999"); ok {
		t.Error("ChainKey(eip155:999999) found")
	}
}

func TestParseAssetID(t *testing.T) {
	tests := []struct {
		in      string
		want    AssetID
		wantErr string
	}{
		{in: "eip155:1/slip44:60", want: AssetID{"eip155:1", "slip44", "60"}},
		{in: "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", want: AssetID{"eip155:1", "erc20", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"}},
		{in: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", want: AssetID{"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "slip44", "501"}},
		{in: "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", want: AssetID{"tron:0x2b6653dc", "trc20", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}},
		{in: "near:mainnet/nep141:wrap.near", want: AssetID{"near:mainnet", "nep141", "wrap.near"}},
		{in: "bip122:000000000019d6689c085ae165831e93/slip44:0", want: AssetID{"bip122:000000000019d6689c085ae165831e93", "slip44", "0"}},
		{in: "", wantErr: "want <chainId>"},
		{in: "eip155:1", wantErr: "want <chainId>"},
		{in: "eip155/slip44:60", wantErr: "want <namespace>:<reference>"},
		{in: "EIP155:1/slip44:60", wantErr: "bad namespace"},
		{in: "eip155:1/slip44", wantErr: "after the chain id"},
		{in: "eip155:1/ab:60", wantErr: "bad asset namespace"},
		{in: "eip155:1/erc20:0xa0b8 6991", wantErr: "bad asset reference"},
		{in: "eip155:1/slip44:sixty", wantErr: "coin type number"},
		{in: "eip155:" + strings.Repeat("1", 33) + "/slip44:60", wantErr: "bad reference"},
		{in: "eip155:1/erc20:" + strings.Repeat("a", 129), wantErr: "bad asset reference"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAssetID(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseAssetID(%q) error = %v; want containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseAssetID(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("ParseAssetID(%q) = %+v; want %+v", tt.in, got, tt.want)
			}
			if got.String() != tt.in {
				t.Fatalf("round trip: %q -> %q", tt.in, got.String())
			}
		})
	}
}

func TestParseKnownAssetID(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{in: "eip155:56/slip44:714"},
		{in: "eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831"},
		{in: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/spl:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
		{in: "eip155:999/slip44:60", wantErr: "unknown chain"},
		{in: "eip155:1/slip44:501", wantErr: "native coin type is 60"},
		{in: "eip155:1/spl:abc", wantErr: `namespace "spl" is not used on eth`},
		{in: "bip122:000000000019d6689c085ae165831e93/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", wantErr: "not used on btc"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseKnownAssetID(tt.in)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error = %v; want containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestTokenAsset(t *testing.T) {
	tests := []struct {
		chain, contract string
		want            string
		wantErr         string
	}{
		{chain: "eth", contract: "0xA0b86991c6218b36c1D19D4a2e9Eb0cE3606eB48", want: "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"},
		{chain: "tron", contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", want: "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"},
		{chain: "near", contract: "wrap.near", want: "near:mainnet/nep141:wrap.near"},
		{chain: "eth", contract: "0x1234", wantErr: "not an EVM address"},
		{chain: "btc", contract: "x", wantErr: "no token standard"},
		{chain: "mars", contract: "x", wantErr: "unknown chain key"},
		{chain: "sol", contract: "bad mint", wantErr: "not a valid CAIP-19 reference"},
	}
	for _, tt := range tests {
		t.Run(tt.chain+"/"+tt.contract, func(t *testing.T) {
			got, err := TokenAsset(tt.chain, tt.contract)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v; want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("TokenAsset = %q, %v; want %q", got, err, tt.want)
			}
			if _, err := ParseKnownAssetID(got.String()); err != nil {
				t.Fatalf("token id does not parse back: %v", err)
			}
		})
	}
}
