package market

import (
	"slices"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Provider is one simulated provider's economics.
type Provider struct {
	ID swapv1.ProviderID
	// Assets are the keys of the assets it routes.
	Assets []string
	// Excluded pairs ("from>to") it refuses although it lists both assets.
	Excluded []string
	// FeeBps is the protocol fee, taken from the input.
	FeeBps int64
	// SpreadBps adds a per-destination-asset spread (by asset key) on top of FeeBps.
	SpreadBps map[string]int64
	// NetworkFeeUSD is a flat fee per swap, taken from the output.
	NetworkFeeUSD string
	// Limits gives the USD bounds on the input of a pair.
	Limits func(from, to Asset) USDLimits
	// EstimatedSeconds is the advertised settlement time after the deposit.
	EstimatedSeconds int64
}

// USDLimits are the bounds on a swap's input value in USD, as decimal strings.
type USDLimits struct{ Min, Max string }

// Lists reports whether the provider lists the asset.
func (p Provider) Lists(key string) bool { return slices.Contains(p.Assets, key) }

// Routes reports whether the provider routes from -> to.
func (p Provider) Routes(from, to string) bool {
	return from != to && p.Lists(from) && p.Lists(to) && !slices.Contains(p.Excluded, from+">"+to)
}

// RouteA is the oneclick provider: broad coverage, per-pair limits, a higher percentage fee
// and a small flat fee (best for small swaps).
var RouteA = Provider{
	ID: swapv1.ProviderRouteA,
	Assets: []string{
		"eth:ETH", "eth:USDC", "eth:USDT", "eth:WBTC", "arb:ETH", "arb:USDC", "arb:ARB",
		"base:ETH", "base:USDC", "bsc:BNB", "bsc:USDT", "sol:SOL", "sol:USDC",
		"near:wNEAR", "near:USDC", "btc:BTC", "tron:USDT",
	},
	Excluded:      []string{"tron:USDT>btc:BTC", "btc:BTC>tron:USDT"},
	FeeBps:        30,
	SpreadBps:     map[string]int64{"sol:SOL": 40, "sol:USDC": 25},
	NetworkFeeUSD: "0.50",
	Limits: func(from, to Asset) USDLimits {
		// Per pair: bitcoin legs need more to cover miner fees; stable-to-stable goes higher.
		switch {
		case from.Chain == "btc" || to.Chain == "btc":
			return USDLimits{Min: "50", Max: "200000"}
		case isStable(from) && isStable(to):
			return USDLimits{Min: "5", Max: "1000000"}
		}
		return USDLimits{Min: "10", Max: "250000"}
	},
	EstimatedSeconds: 30,
}

// RouteB is the Chainflip provider: only Chainflip's assets (fewer EVM chains, but Tron),
// per-source-asset limits in the Chainflip style, a lower percentage fee and a larger flat fee (best for large
// swaps).
var RouteB = Provider{
	ID: swapv1.ProviderRouteB,
	Assets: []string{
		"eth:ETH", "eth:USDC", "eth:USDT", "arb:ETH", "arb:USDC", "sol:SOL", "sol:USDC",
		"btc:BTC", "tron:TRX", "tron:USDT",
	},
	Excluded:      []string{"tron:TRX>btc:BTC", "btc:BTC>tron:TRX"},
	FeeBps:        15,
	SpreadBps:     map[string]int64{"eth:USDT": 20, "btc:BTC": 10},
	NetworkFeeUSD: "3",
	Limits: func(from, _ Asset) USDLimits {
		// Per source asset, like Chainflip's minimumSwapAmount / maximumSwapAmount.
		switch from.Chain {
		case "btc":
			return USDLimits{Min: "100", Max: "500000"}
		case "tron":
			return USDLimits{Min: "20", Max: "50000"}
		}
		return USDLimits{Min: "20", Max: "1000000"}
	},
	EstimatedSeconds: 60,
}

// RelayID is the id of the simulated Relay.
const RelayID swapv1.ProviderID = "relay"

// Relay is the Relay provider: EVM chains, Solana and Bitcoin through deposit addresses,
// fast fills, a small percentage fee and gas paid by the relayer (cheapest for small swaps).
var Relay = Provider{
	ID: RelayID,
	Assets: []string{
		"eth:ETH", "eth:USDC", "eth:USDT", "arb:ETH", "arb:USDC", "base:ETH", "base:USDC",
		"bsc:BNB", "bsc:USDT", "sol:SOL", "sol:USDC", "btc:BTC",
	},
	Excluded:      []string{"bsc:USDT>btc:BTC", "btc:BTC>bsc:USDT"},
	FeeBps:        10,
	SpreadBps:     map[string]int64{"btc:BTC": 15},
	NetworkFeeUSD: "0.25",
	Limits: func(from, to Asset) USDLimits {
		// Bitcoin legs cost more gas to sweep and settle; otherwise the solver's liquidity
		// bounds the amount.
		if from.Chain == "btc" || to.Chain == "btc" {
			return USDLimits{Min: "25", Max: "100000"}
		}
		return USDLimits{Min: "2", Max: "500000"}
	},
	EstimatedSeconds: 12,
}

// Providers are the simulated providers, by id.
var Providers = map[swapv1.ProviderID]Provider{RouteA.ID: RouteA, RouteB.ID: RouteB, Relay.ID: Relay}

// ForProtocol is the economics of an account of protocol (1Click's, Chainflip's or Relay's),
// under that provider's id; false for a protocol the simulator does not speak.
func ForProtocol(protocol swapv1.ProviderProtocol) (Provider, bool) {
	switch protocol {
	case swapv1.ProtocolOneClick:
		return RouteA, true
	case swapv1.ProtocolChannel:
		return RouteB, true
	case swapv1.ProtocolRelay:
		return Relay, true
	}
	return Provider{}, false
}

func isStable(a Asset) bool { return strings.HasPrefix(a.Symbol, "USD") }
