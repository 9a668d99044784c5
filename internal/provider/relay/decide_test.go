package relay

import (
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestMapStatus(t *testing.T) {
	processing := swapv1.OrderProcessing
	tests := []struct {
		raw  string
		seen bool
		want provider.Outcome
	}{
		{"waiting", false, provider.Outcome{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit, Reason: "AwaitingDeposit"}},
		// Relay names the deposit before it confirms it: still PENDING, but nobody sends twice.
		{"waiting", true, provider.Outcome{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusDepositSeen, Reason: "DepositSeen"}},
		{"depositing", true, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusDepositSeen, Reason: "DepositSeen"}},
		{"pending", true, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusSwapping, Reason: "Swapping"}},
		{"submitted", true, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusSending, Reason: "Sending"}},
		// Late, still processing: its own substatus, nothing for the user to do.
		{"delayed", true, provider.Outcome{Status: processing, Substatus: swapv1.SubstatusDelayed, Reason: "FillDelayed"}},
		{"success", true, provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled, Reason: "Settled"}},
		{"refund", true, provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}},
		{"failure", true, provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "ProviderFailed"}},
		// v1's names are not v3's: unknown, never guessed.
		{"fallback", true, provider.Outcome{Status: swapv1.OrderUnknown, Reason: "UnrecognizedProviderStatus"}},
		{"", false, provider.Outcome{Status: swapv1.OrderUnknown, Reason: "UnrecognizedProviderStatus"}},
	}
	for _, tt := range tests {
		if got := MapStatus(tt.raw, tt.seen); got != tt.want {
			t.Errorf("MapStatus(%q, %v) = %+v; want %+v", tt.raw, tt.seen, got, tt.want)
		}
	}
}

func TestErrorKind(t *testing.T) {
	tests := []struct {
		code string
		kind provider.Kind
		ok   bool
	}{
		{"AMOUNT_TOO_LOW", provider.KindAmountTooLow, true},
		{"INSUFFICIENT_LIQUIDITY", provider.KindAmountTooHigh, true},
		{"SWAP_IMPACT_TOO_HIGH", provider.KindAmountTooHigh, true},
		{"NO_SWAP_ROUTES_FOUND", provider.KindUnsupportedPair, true},
		{"UNSUPPORTED_CURRENCY", provider.KindUnsupportedPair, true},
		{"CHAIN_DISABLED", provider.KindUnsupportedPair, true},
		{"SERVICE_UNAVAILABLE", provider.KindUpstream, true},
		{"RPC_HTTP_ERROR", provider.KindUpstream, true},
		{"UNAUTHORIZED", provider.KindCredentials, true},
		{"INVALID_ADDRESS", 0, false},
		{"SANCTIONED_WALLET_ADDRESS", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		if kind, ok := ErrorKind(tt.code); ok != tt.ok || kind != tt.kind {
			t.Errorf("ErrorKind(%q) = %v %v; want %v %v", tt.code, kind, ok, tt.kind, tt.ok)
		}
	}
}

func TestChainKeyAndAssetID(t *testing.T) {
	keys := []struct {
		id   int64
		vm   string
		want string
		ok   bool
	}{
		{1, "evm", "eth", true}, {42161, "evm", "arb", true}, {8453, "evm", "base", true}, {56, "evm", "bsc", true},
		{792703809, "svm", "sol", true}, {8253038, "bvm", "btc", true}, {728126428, "tvm", "tron", true},
		{7777777, "evm", "", false}, {9286185, "svm", "", false},
		// Relay's own ids are not EVM chain ids.
		{792703809, "evm", "", false},
	}
	for _, tt := range keys {
		if got, ok := ChainKey(tt.id, tt.vm); got != tt.want || ok != tt.ok {
			t.Errorf("ChainKey(%d, %s) = %q %v; want %q %v", tt.id, tt.vm, got, ok, tt.want, tt.ok)
		}
	}
	eth := knownChain{Key: "eth", VM: "evm", Native: "0x0000000000000000000000000000000000000000"}
	sol := knownChain{Key: "sol", VM: "svm", Native: "11111111111111111111111111111111"}
	native := func(c currency) currency { c.Metadata.IsNative = true; return c }
	ids := []struct {
		ch   knownChain
		c    currency
		want string
		ok   bool
	}{
		{eth, native(currency{Address: "0x0000000000000000000000000000000000000000"}), "eip155:1/slip44:60", true},
		{eth, currency{Address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"}, "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", true},
		{sol, currency{Address: "11111111111111111111111111111111"}, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", true},
		{sol, currency{Address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"}, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/spl:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", true},
		{eth, currency{Address: "not-an-address"}, "", false},
	}
	for _, tt := range ids {
		got, ok := AssetID(tt.ch, tt.c)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("AssetID(%s, %s) = %q %v; want %q %v", tt.ch.Key, tt.c.Address, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBound(t *testing.T) {
	const addr, req = "0xabcdef0000000000000000000000000000000001", "0xreq1"
	tests := []struct {
		name   string
		lookup depositAddressResponse
		vm     string
		want   bool
	}{
		{"strict, this request", depositAddressResponse{DepositAddress: addr, Type: "strict", RequestID: req}, "evm", true},
		{"checksummed spelling", depositAddressResponse{DepositAddress: "0xABCDEF0000000000000000000000000000000001", Type: "strict", RequestID: req}, "evm", true},
		{"open", depositAddressResponse{DepositAddress: addr, Type: "open", RequestID: req}, "evm", false},
		{"another request's", depositAddressResponse{DepositAddress: addr, Type: "strict", RequestID: "0xreq0"}, "evm", false},
		{"another address", depositAddressResponse{DepositAddress: "0xabcdef0000000000000000000000000000000002", Type: "strict", RequestID: req}, "evm", false},
		{"base58 is case-sensitive", depositAddressResponse{DepositAddress: "ABCDEF0000000000000000000000000000000001", Type: "strict", RequestID: req}, "svm", false},
		{"no answer", depositAddressResponse{}, "evm", false},
	}
	for _, tt := range tests {
		address := addr
		if tt.vm == "svm" {
			address = "abcdef0000000000000000000000000000000001"
		}
		if got := Bound(tt.lookup, tt.vm, address, req); got != tt.want {
			t.Errorf("%s: Bound = %v; want %v", tt.name, got, tt.want)
		}
	}
}
