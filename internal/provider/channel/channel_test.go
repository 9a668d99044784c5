package channel

import (
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
)

func TestAgainstSimulator(t *testing.T) {
	providertest.Suite{
		Provider: swapv1.ProviderRouteB,
		New:      func(cfg provider.Config) (provider.Provider, error) { return New(cfg) },
		Calls: map[string]string{
			"Assets": simulator.CallNetworkInfo, "Quote": simulator.CallQuote, "CreateDeposit": simulator.CallOpen,
			"Status": simulator.CallStatus, "SubmitDeposit": simulator.CallStatus,
		},
		Unlisted: [2]string{"base:ETH", "eth:ETH"},
		Excluded: [2]string{"tron:TRX", "btc:BTC"},
		// Chainflip ignores a deposit below its minimum (the channel stays open for another
		// one), and rejects and refunds one to an expired channel.
		UnderDeposit: providertest.Want{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDepositRejected, Reason: "DepositIgnored"},
		// Half the amount is above the minimum: Chainflip swaps it, for half the output.
		HalfDeposit: providertest.Want{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialDeposit, Reason: "PartialDeposit"},
		LateDeposit: providertest.Want{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "DepositRejected"},
	}.Run(t)
}

func TestMapStatus(t *testing.T) {
	pending, processing := swapv1.OrderPending, swapv1.OrderProcessing
	tests := []struct {
		facts Facts
		want  provider.Outcome
	}{
		{Facts{State: "WAITING"}, provider.Outcome{Status: pending, Substatus: swapv1.SubstatusAwaitingDeposit, Reason: "AwaitingDeposit"}},
		{Facts{State: "WAITING", Expired: true}, provider.Outcome{Status: pending, Substatus: swapv1.SubstatusDepositWindowClosed, Reason: "DepositChannelExpired"}},
		{Facts{State: "RECEIVING"}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusDepositSeen, Reason: "DepositSeen"}},
		{Facts{State: "SWAPPING"}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusSwapping, Reason: "Swapping"}},
		{Facts{State: "SENDING", SwapOut: true}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusSending, Reason: "Sending"}},
		{Facts{State: "SENDING", Refund: true}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusRefunding, Reason: "Refunding"}},
		{Facts{State: "SENT", SwapOut: true, Refund: true}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusSending, Reason: "Sending"}},
		{Facts{State: "COMPLETED", SwapOut: true}, provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled, Reason: "Settled"}},
		// A partial fill: part swapped, the rest refunded. Success, with the refund shown.
		{Facts{State: "COMPLETED", SwapOut: true, Refund: true}, provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialRefund, Reason: "PartiallyRefunded"}},
		// Less than the channel's amount arrived and all of it was swapped: a success, but not
		// the quoted one.
		{Facts{State: "COMPLETED", SwapOut: true, DepositShort: true}, provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialDeposit, Reason: "PartialDeposit"}},
		// A refund beside it is what shows.
		{Facts{State: "COMPLETED", SwapOut: true, Refund: true, DepositShort: true}, provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialRefund, Reason: "PartiallyRefunded"}},
		{Facts{State: "SENDING", SwapOut: true, DepositShort: true}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusSending, Reason: "Sending"}},
		// Only a refund egress: never a success.
		{Facts{State: "COMPLETED", Refund: true}, provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}},
		{Facts{State: "COMPLETED"}, provider.Outcome{Status: swapv1.OrderUnknown, Reason: "CompletedWithoutEgress"}},
		// deposit.failure with the refund witnessed, still on its way, or none at all.
		{Facts{State: "FAILED", DepositFailed: true, Refund: true, RefundSent: true}, provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "DepositRejected"}},
		{Facts{State: "FAILED", DepositFailed: true, Refund: true}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusRefunding, Reason: "Refunding"}},
		// Ignored below the minimum: the open channel can still take a deposit that is swapped.
		{Facts{State: "FAILED", DepositFailed: true}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusDepositRejected, Reason: "DepositIgnored"}},
		{Facts{State: "FAILED", DepositFailed: true, Expired: true}, provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusDepositRejected, Reason: "DepositRejected"}},
		{Facts{State: "FAILED", Refund: true, RefundSent: true}, provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}},
		{Facts{State: "FAILED", Fallback: true, FallbackSent: true}, provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "FallbackRefund"}},
		{Facts{State: "FAILED", Fallback: true}, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusRefunding, Reason: "Refunding"}},
		{Facts{State: "FAILED", SwapOut: true, SwapOutFailed: true}, provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "EgressFailed"}},
		{Facts{State: "FAILED", Refund: true, RefundFailed: true}, provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "EgressFailed"}},
		{Facts{State: "FAILED"}, provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "ProviderFailed"}},
		{Facts{State: "BOOSTED"}, provider.Outcome{Status: swapv1.OrderUnknown, Reason: "UnrecognizedProviderStatus"}},
	}
	for _, tt := range tests {
		if got := MapStatus(tt.facts); got != tt.want {
			t.Errorf("MapStatus(%+v) = %+v; want %+v", tt.facts, got, tt.want)
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
		{"amount is lower than estimated ingress fee (1500)", provider.KindAmountTooLow, "1500", true},
		{"swap output amount is lower than the egress fee (99)", provider.KindAmountTooLow, "", true},
		{"egress amount (5) is lower than minimum egress amount (600)", provider.KindAmountTooLow, "", true},
		{"expected amount is above maximum swap amount (5)", provider.KindAmountTooHigh, "5", true},
		{"insufficient liquidity for the requested amount", provider.KindAmountTooHigh, "", true},
		{"Requested assets cannot be swapped", provider.KindUnsupportedPair, "", true},
		{"invalid request", 0, "", false},
		{"too many channels", 0, "", false},
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
	}{{&five, 1, 5}, {nil, 1.5, 150}, {nil, 0.5, 50}, {nil, 0, provider.DefaultSlippageBps}}
	for _, tt := range tests {
		if got := slippageBps(tt.requested, tt.recommended); got != tt.want {
			t.Errorf("slippageBps(%v, %v) = %d; want %d", tt.requested, tt.recommended, got, tt.want)
		}
	}
}

func TestPickQuote(t *testing.T) {
	regular, dca := quote{Type: "REGULAR", EgressAmount: "1"}, quote{Type: "DCA", EgressAmount: "2"}
	tests := []struct {
		name string
		in   []quote
		want string
		ok   bool
	}{
		{"regular and dca", []quote{regular, dca}, "REGULAR", true},
		{"dca first", []quote{dca, regular}, "REGULAR", true},
		{"dca only", []quote{dca}, "DCA", true},
		{"empty", nil, "", false},
	}
	for _, tt := range tests {
		got, ok := pickQuote(tt.in)
		if ok != tt.ok || got.Type != tt.want {
			t.Errorf("%s: pickQuote = %q %v", tt.name, got.Type, ok)
		}
	}
}

func TestAssetListing(t *testing.T) {
	tests := []struct{ id, want, key string }{
		{"Eth", "eip155:1/slip44:60", "eth"},
		{"ArbUsdc", "eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831", "arb"},
		{"Btc", "bip122:000000000019d6689c085ae165831e93/slip44:0", "btc"},
		{"TrxUsdt", "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "tron"},
		{"SolUsdc", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/spl:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "sol"},
	}
	for _, tt := range tests {
		a, ok := lookupCFAsset(tt.id)
		if !ok {
			t.Fatalf("%s not in the table", tt.id)
		}
		got, ok := a.listing()
		if !ok || got.AssetID != tt.want || got.Chain != tt.key || got.ProviderToken != tt.id {
			t.Errorf("%s listed as %+v %v; want %s on %s", tt.id, got, ok, tt.want, tt.key)
		}
	}
	hub, _ := lookupCFAsset("HubDot")
	if _, ok := hub.listing(); ok {
		t.Error("an Assethub asset was listed although the chain table has no Assethub")
	}
}
