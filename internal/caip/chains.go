// Package caip implements the CAIP-2 chain ids and CAIP-19 asset ids the service uses to name
// assets, and the table that maps the short chain keys partners filter by (eth, sol, ...) onto
// CAIP-2 ids.
package caip

import "slices"

// Chain is one entry of the chain table.
type Chain struct {
	// Key is the short chain key (eth, arb, sol, ...).
	Key string
	// ID is the CAIP-2 chain id.
	ID string
	// Name is a human-readable chain name.
	Name string
	// NativeSymbol and NativeDecimals describe the chain's native asset.
	NativeSymbol   string
	NativeDecimals int
	// SLIP44 is the SLIP-0044 coin type of the native asset; its CAIP-19 id is <ID>/slip44:<SLIP44>.
	SLIP44 int
	// TokenNamespace is the CAIP-19 asset namespace of the chain's fungible tokens
	// (erc20, spl, trc20, nep141); empty when the chain has no token standard.
	TokenNamespace string
}

// chains is ordered by key so Chains() is stable. BNB Smart Chain uses SLIP-44 714 (BNB), the
// EVM L2s use 60 (ETH) because their native asset is ether.
var chains = []Chain{
	{Key: "arb", ID: "eip155:42161", Name: "Arbitrum One", NativeSymbol: "ETH", NativeDecimals: 18, SLIP44: 60, TokenNamespace: "erc20"},
	{Key: "avax", ID: "eip155:43114", Name: "Avalanche C-Chain", NativeSymbol: "AVAX", NativeDecimals: 18, SLIP44: 9000, TokenNamespace: "erc20"},
	{Key: "base", ID: "eip155:8453", Name: "Base", NativeSymbol: "ETH", NativeDecimals: 18, SLIP44: 60, TokenNamespace: "erc20"},
	{Key: "bsc", ID: "eip155:56", Name: "BNB Smart Chain", NativeSymbol: "BNB", NativeDecimals: 18, SLIP44: 714, TokenNamespace: "erc20"},
	{Key: "btc", ID: "bip122:000000000019d6689c085ae165831e93", Name: "Bitcoin", NativeSymbol: "BTC", NativeDecimals: 8, SLIP44: 0},
	{Key: "doge", ID: "bip122:1a91e3dace36e2be3bf030a65679fe82", Name: "Dogecoin", NativeSymbol: "DOGE", NativeDecimals: 8, SLIP44: 3},
	{Key: "eth", ID: "eip155:1", Name: "Ethereum", NativeSymbol: "ETH", NativeDecimals: 18, SLIP44: 60, TokenNamespace: "erc20"},
	{Key: "near", ID: "near:mainnet", Name: "NEAR", NativeSymbol: "NEAR", NativeDecimals: 24, SLIP44: 397, TokenNamespace: "nep141"},
	{Key: "op", ID: "eip155:10", Name: "OP Mainnet", NativeSymbol: "ETH", NativeDecimals: 18, SLIP44: 60, TokenNamespace: "erc20"},
	{Key: "pol", ID: "eip155:137", Name: "Polygon PoS", NativeSymbol: "POL", NativeDecimals: 18, SLIP44: 966, TokenNamespace: "erc20"},
	{Key: "sol", ID: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", Name: "Solana", NativeSymbol: "SOL", NativeDecimals: 9, SLIP44: 501, TokenNamespace: "spl"},
	{Key: "tron", ID: "tron:0x2b6653dc", Name: "Tron", NativeSymbol: "TRX", NativeDecimals: 6, SLIP44: 195, TokenNamespace: "trc20"},
}

// Chains returns the chain table ordered by key. The slice is a copy.
func Chains() []Chain { return slices.Clone(chains) }

// LookupChain returns the chain with the short key.
func LookupChain(key string) (Chain, bool) {
	for _, c := range chains {
		if c.Key == key {
			return c, true
		}
	}
	return Chain{}, false
}

// LookupChainID returns the chain with the CAIP-2 id.
func LookupChainID(chainID string) (Chain, bool) {
	for _, c := range chains {
		if c.ID == chainID {
			return c, true
		}
	}
	return Chain{}, false
}

// ChainID maps a short chain key to its CAIP-2 id.
func ChainID(key string) (string, bool) {
	c, ok := LookupChain(key)
	return c.ID, ok
}

// ChainKey maps a CAIP-2 id to its short chain key.
func ChainKey(chainID string) (string, bool) {
	c, ok := LookupChainID(chainID)
	return c.Key, ok
}
