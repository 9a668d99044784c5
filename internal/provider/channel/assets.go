package channel

import (
	"github.com/swaprouter/swaprouter/internal/caip"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// cfAsset is one of Chainflip's internal assets as its SDK's constants define it: the backend's
// network info names assets only by internal id ("Eth", "ArbUsdc", ...), so chain, symbol,
// decimals and the contract come from this table.
type cfAsset struct {
	// ID is the internal id the backend's network info lists.
	ID string
	// Chain and Symbol are the {chain, asset} pair quotes, channels and status use.
	Chain, Symbol string
	Decimals      int
	// Name is the SDK's display name.
	Name string
	// Contract is the mainnet token contract; empty for a chain's native asset.
	Contract string
}

// cfAssets: Chainflip's assets. Assethub assets have no chain in the CAIP table and are skipped
// when listing.
var cfAssets = []cfAsset{
	{ID: "Eth", Chain: "Ethereum", Symbol: "ETH", Decimals: 18, Name: "Ether"},
	{ID: "Flip", Chain: "Ethereum", Symbol: "FLIP", Decimals: 18, Name: "FLIP", Contract: "0x826180541412D574cf1336d22c0C0a287822678A"},
	{ID: "Usdc", Chain: "Ethereum", Symbol: "USDC", Decimals: 6, Name: "USDC", Contract: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
	{ID: "Usdt", Chain: "Ethereum", Symbol: "USDT", Decimals: 6, Name: "USDT", Contract: "0xdAC17F958D2ee523a2206206994597C13D831ec7"},
	{ID: "Wbtc", Chain: "Ethereum", Symbol: "WBTC", Decimals: 8, Name: "WBTC", Contract: "0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599"},
	{ID: "Cbbtc", Chain: "Ethereum", Symbol: "CBBTC", Decimals: 8, Name: "Coinbase Wrapped BTC", Contract: "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf"},
	{ID: "Btc", Chain: "Bitcoin", Symbol: "BTC", Decimals: 8, Name: "Bitcoin"},
	{ID: "ArbEth", Chain: "Arbitrum", Symbol: "ETH", Decimals: 18, Name: "Arbitrum Ether"},
	{ID: "ArbUsdc", Chain: "Arbitrum", Symbol: "USDC", Decimals: 6, Name: "Arbitrum USDC", Contract: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"},
	{ID: "ArbUsdt", Chain: "Arbitrum", Symbol: "USDT", Decimals: 6, Name: "Arbitrum USDT", Contract: "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9"},
	{ID: "Sol", Chain: "Solana", Symbol: "SOL", Decimals: 9, Name: "Solana"},
	{ID: "SolUsdc", Chain: "Solana", Symbol: "USDC", Decimals: 6, Name: "Solana USDC", Contract: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
	{ID: "SolUsdt", Chain: "Solana", Symbol: "USDT", Decimals: 6, Name: "Solana USDT", Contract: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"},
	{ID: "HubDot", Chain: "Assethub", Symbol: "DOT", Decimals: 10, Name: "Assethub DOT"},
	{ID: "HubUsdc", Chain: "Assethub", Symbol: "USDC", Decimals: 6, Name: "Assethub USDC"},
	{ID: "HubUsdt", Chain: "Assethub", Symbol: "USDT", Decimals: 6, Name: "Assethub USDT"},
	{ID: "Trx", Chain: "Tron", Symbol: "TRX", Decimals: 6, Name: "Tron"},
	{ID: "TrxUsdt", Chain: "Tron", Symbol: "USDT", Decimals: 6, Name: "Tron USDT", Contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"},
	{ID: "Bnb", Chain: "Bsc", Symbol: "BNB", Decimals: 18, Name: "BNB"},
	{ID: "BscUsdt", Chain: "Bsc", Symbol: "USDT", Decimals: 18, Name: "Binance Bridged USDT", Contract: "0x55d398326f99059fF775485246999027B3197955"},
}

// chainKeys maps Chainflip's chain names onto the chain table's short keys.
var chainKeys = map[string]string{
	"Ethereum": "eth", "Arbitrum": "arb", "Solana": "sol", "Bitcoin": "btc", "Tron": "tron", "Bsc": "bsc",
}

// lookupCFAsset finds an internal asset by id.
func lookupCFAsset(id string) (cfAsset, bool) {
	for _, a := range cfAssets {
		if a.ID == id {
			return a, true
		}
	}
	return cfAsset{}, false
}

// listing maps an internal asset onto the service's asset record; ok is false for chains
// outside the CAIP table.
func (a cfAsset) listing() (provider.Asset, bool) {
	key, ok := chainKeys[a.Chain]
	if !ok {
		return provider.Asset{}, false
	}
	var id caip.AssetID
	if a.Contract == "" {
		if id, ok = caip.NativeAsset(key); !ok {
			return provider.Asset{}, false
		}
	} else {
		var err error
		if id, err = caip.TokenAsset(key, a.Contract); err != nil {
			return provider.Asset{}, false
		}
	}
	return provider.Asset{AssetID: id.String(), Chain: key, Symbol: a.Symbol, Name: a.Name, Decimals: a.Decimals, ProviderToken: a.ID}, true
}

// pair is the {chain, asset} form of the asset.
func (a cfAsset) pair() chainAsset { return chainAsset{Chain: a.Chain, Asset: a.Symbol} }
