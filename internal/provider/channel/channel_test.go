package channel

import (
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
	"github.com/swaprouter/swaprouter/internal/simulator"
)

func TestAgainstSimulator(t *testing.T) {
	providertest.Suite{
		Provider: swapv1.ProviderRouteB,
		New:      func(cfg provider.Config) (provider.Provider, error) { return New(cfg) },
		Calls: map[string]string{
			"Assets": simulator.CallAssets, "Quote": simulator.CallQuote, "CreateDeposit": simulator.CallQuote,
			"Status": simulator.CallStatus, "SubmitDeposit": simulator.CallStatus,
		},
		Unlisted: [2]string{"base:ETH", "eth:ETH"},
		Excluded: [2]string{"doge:DOGE", "tron:TRX"},
	}.Run(t)
}

func TestMapStatus(t *testing.T) {
	tests := []struct {
		facts  ChannelFacts
		want   swapv1.OrderStatus
		reason string
	}{
		{ChannelFacts{State: "WAITING"}, swapv1.OrderPending, "AwaitingDeposit"},
		{ChannelFacts{State: "WAITING", Expired: true}, swapv1.OrderPending, "DepositChannelExpired"},
		{ChannelFacts{State: "RECEIVING"}, swapv1.OrderProcessing, "DepositSeen"},
		{ChannelFacts{State: "SWAPPING"}, swapv1.OrderProcessing, "Swapping"},
		{ChannelFacts{State: "SENDING"}, swapv1.OrderProcessing, "Sending"},
		{ChannelFacts{State: "SENDING", Refunded: true}, swapv1.OrderProcessing, "Refunding"},
		{ChannelFacts{State: "SENT"}, swapv1.OrderProcessing, "Sent"},
		{ChannelFacts{State: "COMPLETED", SwapOutput: true}, swapv1.OrderSuccess, "Settled"},
		{ChannelFacts{State: "COMPLETED", SwapOutput: true, Refunded: true}, swapv1.OrderSuccess, "Settled"},
		{ChannelFacts{State: "COMPLETED", Refunded: true}, swapv1.OrderRefunded, "Refunded"},
		{ChannelFacts{State: "COMPLETED"}, swapv1.OrderUnknown, "CompletedWithoutEgress"},
		{ChannelFacts{State: "FAILED"}, swapv1.OrderFailed, "ProviderFailed"},
		{ChannelFacts{State: "BOOSTED"}, swapv1.OrderUnknown, "UnrecognizedProviderStatus"},
	}
	for _, tt := range tests {
		got, reason := MapStatus(tt.facts)
		if got != tt.want || reason != tt.reason {
			t.Errorf("MapStatus(%+v) = %s, %s; want %s, %s", tt.facts, got, reason, tt.want, tt.reason)
		}
	}
}

func TestRefine(t *testing.T) {
	tests := []struct {
		msg   string
		kind  provider.Kind
		limit string
		ok    bool
	}{
		{"expected amount is below minimum swap amount (20000000)", provider.KindAmountTooLow, "20000000", true},
		{"expected amount is above maximum swap amount (5)", provider.KindAmountTooHigh, "5", true},
		{"route not supported: Dogecoin.DOGE -> Tron.TRX", provider.KindUnsupportedPair, "", true},
		{"invalid request: destAddress is required", 0, "", false},
	}
	for _, tt := range tests {
		kind, limit, ok := refine(tt.msg)
		if ok != tt.ok || (ok && (kind != tt.kind || limit != tt.limit)) {
			t.Errorf("refine(%q) = %v %q %v", tt.msg, kind, limit, ok)
		}
	}
}

func TestSlippageBps(t *testing.T) {
	five := int32(5)
	tests := []struct {
		requested   *int32
		recommended float64
		want        int64
	}{{&five, 1, 5}, {nil, 1.5, 150}, {nil, 0, provider.DefaultSlippageBps}}
	for _, tt := range tests {
		if got := slippageBps(tt.requested, tt.recommended); got != tt.want {
			t.Errorf("slippageBps(%v, %v) = %d; want %d", tt.requested, tt.recommended, got, tt.want)
		}
	}
}

func TestAssetID(t *testing.T) {
	tests := []struct{ chain, contract, want, key string }{
		{"Ethereum", "", "eip155:1/slip44:60", "eth"},
		{"Arbitrum", "0xaf88d065e77c8cc2239327c5edb3a432268e5831", "eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831", "arb"},
		{"Bitcoin", "", "bip122:000000000019d6689c085ae165831e93/slip44:0", "btc"},
		{"Tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "tron"},
	}
	for _, tt := range tests {
		id, key, ok := AssetID(tt.chain, tt.contract)
		if !ok || id != tt.want || key != tt.key {
			t.Errorf("AssetID(%s, %s) = %q %q %v", tt.chain, tt.contract, id, key, ok)
		}
	}
	if _, _, ok := AssetID("Polkadot", ""); ok {
		t.Error("a chain outside the table mapped")
	}
}
