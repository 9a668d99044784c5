// Package market is the simulator's economy: the assets it knows with their USD prices, and
// each simulated provider's coverage, fees and limits. Quote is a pure function of these.
package market

import (
	"fmt"
	"math/big"
	"sync"

	"github.com/swaprouter/swaprouter/internal/caip"
)

// Asset is one asset the simulated chains carry.
type Asset struct {
	// Key is the simulator's own name of the asset: "<chain>:<symbol>".
	Key string
	// Chain is the short chain key (caip table).
	Chain    string
	Symbol   string
	Name     string
	Decimals int
	// Contract is the token contract (mint, account); empty for the chain's native asset.
	Contract string
	// PriceUSD is the price of one whole unit, as a decimal string.
	PriceUSD string
}

// IsNative reports whether the asset is its chain's native coin.
func (a Asset) IsNative() bool { return a.Contract == "" }

// AssetID is the asset's CAIP-19 id.
func (a Asset) AssetID() string {
	if a.IsNative() {
		id, _ := caip.NativeAsset(a.Chain)
		return id.String()
	}
	id, err := caip.TokenAsset(a.Chain, a.Contract)
	if err != nil {
		panic(fmt.Sprintf("market asset %s: %v", a.Key, err)) // the table below is static and tested
	}
	return id.String()
}

// price is PriceUSD as a rational. The table's prices are parsed once: a quote values
// several amounts, and parsing and raising to a power for each was a third of what the
// simulator allocated. The value may be shared, so callers only read it.
func (a Asset) price() *big.Rat {
	if r, ok := tablePrices[a.PriceUSD]; ok {
		return r
	}
	return parsePrice(a)
}

// USD is a decimal amount of dollars from the simulator's static tables (fees, limits, gas),
// parsed once like the prices; the value is shared, so callers only read it. A malformed
// table entry is a programming error.
func USD(s string) *big.Rat {
	if r, ok := usdAmounts.Load(s); ok {
		return r.(*big.Rat)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(fmt.Sprintf("market: bad USD amount %q", s))
	}
	usdAmounts.Store(s, r)
	return r
}

var usdAmounts sync.Map // string → *big.Rat

func parsePrice(a Asset) *big.Rat {
	r, ok := new(big.Rat).SetString(a.PriceUSD)
	if !ok || r.Sign() <= 0 {
		panic(fmt.Sprintf("market asset %s: bad price %q", a.Key, a.PriceUSD))
	}
	return r
}

// Unit is 10^Decimals, the smallest units of one whole unit; shared like price, so callers
// only read it.
func (a Asset) Unit() *big.Int {
	if a.Decimals >= 0 && a.Decimals < len(powersOf10) {
		return powersOf10[a.Decimals]
	}
	return pow10(a.Decimals)
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// tablePrices are the prices of the asset table, parsed; powersOf10 cover its decimals.
var (
	tablePrices = func() map[string]*big.Rat {
		m := map[string]*big.Rat{}
		for _, a := range assets {
			m[a.PriceUSD] = parsePrice(a)
		}
		return m
	}()
	powersOf10 = func() []*big.Int {
		out := make([]*big.Int, 25) // up to NEAR's 24 decimals
		for n := range out {
			out[n] = pow10(n)
		}
		return out
	}()
)

// assets: real contracts and decimals (BSC's USDT has 18 decimals, NEAR 24).
var assets = []Asset{
	{Key: "eth:ETH", Chain: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18, PriceUSD: "3000"},
	{Key: "eth:USDC", Chain: "eth", Symbol: "USDC", Name: "USD Coin", Decimals: 6, Contract: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", PriceUSD: "1"},
	{Key: "eth:USDT", Chain: "eth", Symbol: "USDT", Name: "Tether USD", Decimals: 6, Contract: "0xdac17f958d2ee523a2206206994597c13d831ec7", PriceUSD: "1"},
	{Key: "eth:WBTC", Chain: "eth", Symbol: "WBTC", Name: "Wrapped Bitcoin", Decimals: 8, Contract: "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", PriceUSD: "60000"},
	{Key: "arb:ETH", Chain: "arb", Symbol: "ETH", Name: "Ether (Arbitrum)", Decimals: 18, PriceUSD: "3000"},
	{Key: "arb:USDC", Chain: "arb", Symbol: "USDC", Name: "USD Coin (Arbitrum)", Decimals: 6, Contract: "0xaf88d065e77c8cc2239327c5edb3a432268e5831", PriceUSD: "1"},
	{Key: "arb:ARB", Chain: "arb", Symbol: "ARB", Name: "Arbitrum", Decimals: 18, Contract: "0x912ce59144191c1204e64559fe8253a0e49e6548", PriceUSD: "0.80"},
	{Key: "base:ETH", Chain: "base", Symbol: "ETH", Name: "Ether (Base)", Decimals: 18, PriceUSD: "3000"},
	{Key: "base:USDC", Chain: "base", Symbol: "USDC", Name: "USD Coin (Base)", Decimals: 6, Contract: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", PriceUSD: "1"},
	{Key: "bsc:BNB", Chain: "bsc", Symbol: "BNB", Name: "BNB", Decimals: 18, PriceUSD: "600"},
	{Key: "bsc:USDT", Chain: "bsc", Symbol: "USDT", Name: "Tether USD (BSC)", Decimals: 18, Contract: "0x55d398326f99059ff775485246999027b3197955", PriceUSD: "1"},
	{Key: "sol:SOL", Chain: "sol", Symbol: "SOL", Name: "Solana", Decimals: 9, PriceUSD: "150"},
	{Key: "sol:USDC", Chain: "sol", Symbol: "USDC", Name: "USD Coin (Solana)", Decimals: 6, Contract: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", PriceUSD: "1"},
	{Key: "tron:TRX", Chain: "tron", Symbol: "TRX", Name: "TRON", Decimals: 6, PriceUSD: "0.12"},
	{Key: "tron:USDT", Chain: "tron", Symbol: "USDT", Name: "Tether USD (Tron)", Decimals: 6, Contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", PriceUSD: "1"},
	{Key: "near:wNEAR", Chain: "near", Symbol: "wNEAR", Name: "Wrapped NEAR", Decimals: 24, Contract: "wrap.near", PriceUSD: "5"},
	{Key: "near:USDC", Chain: "near", Symbol: "USDC", Name: "USD Coin (NEAR)", Decimals: 6, Contract: "17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1", PriceUSD: "1"},
	{Key: "btc:BTC", Chain: "btc", Symbol: "BTC", Name: "Bitcoin", Decimals: 8, PriceUSD: "60000"},
	{Key: "doge:DOGE", Chain: "doge", Symbol: "DOGE", Name: "Dogecoin", Decimals: 8, PriceUSD: "0.15"},
}

// Assets returns every asset of the simulated chains.
func Assets() []Asset { return append([]Asset(nil), assets...) }

// Native finds a chain's native asset, without copying the table as Assets does.
func Native(chain string) (Asset, bool) {
	for _, a := range assets {
		if a.Chain == chain && a.IsNative() {
			return a, true
		}
	}
	return Asset{}, false
}

// Lookup finds an asset by key.
func Lookup(key string) (Asset, bool) {
	for _, a := range assets {
		if a.Key == key {
			return a, true
		}
	}
	return Asset{}, false
}

// LookupAssetID finds an asset by CAIP-19 id.
func LookupAssetID(id string) (Asset, bool) {
	for _, a := range assets {
		if a.AssetID() == id {
			return a, true
		}
	}
	return Asset{}, false
}
