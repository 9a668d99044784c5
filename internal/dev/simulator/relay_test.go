package simulator_test

import (
	"maps"
	"testing"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
)

// relayQuote is a Relay /quote/v2 body for 100 USDC on Ethereum to USDC on Arbitrum, with
// extra fields.
func relayQuote(extra map[string]any) map[string]any {
	q := map[string]any{
		"user": "0x1111111111111111111111111111111111111111", "recipient": "0x2222222222222222222222222222222222222222",
		"originChainId": 1, "originCurrency": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
		"destinationChainId": 42161, "destinationCurrency": "0xaf88d065e77c8cc2239327c5edb3a432268e5831",
		"amount": "100000000", "tradeType": "EXACT_INPUT", "refundTo": "0x1111111111111111111111111111111111111111",
	}
	maps.Copy(q, extra)
	return q
}

type relayError struct{ Message, ErrorCode string }

// Relay's rules for a quote, with its error codes.
func TestRelayQuoteRules(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	tests := []struct {
		name  string
		extra map[string]any
		want  int
		code  string
	}{
		{"plain quote", nil, 200, ""},
		{"strict deposit address", map[string]any{"useDepositAddress": true, "strict": true}, 200, ""},
		{"strict exact output", map[string]any{"useDepositAddress": true, "strict": true, "tradeType": "EXACT_OUTPUT"}, 200, ""},
		{"open exact output", map[string]any{"useDepositAddress": true, "tradeType": "EXACT_OUTPUT"}, 400, ""},
		{"strict without refundTo", map[string]any{"useDepositAddress": true, "strict": true, "refundTo": ""}, 400, ""},
		{"strict without a deposit address", map[string]any{"strict": true}, 400, ""},
		{"slippage out of range", map[string]any{"slippageTolerance": "10001"}, 400, "INVALID_SLIPPAGE_TOLERANCE"},
		{"app fee to a non-wallet", map[string]any{"appFees": []map[string]string{{"recipient": "acme.near", "fee": "10"}}}, 400, "INVALID_ADDRESS"},
		{"unknown chain", map[string]any{"originChainId": 31337}, 400, "UNSUPPORTED_CHAIN"},
		{"unlisted currency", map[string]any{"originCurrency": "0x912ce59144191c1204e64559fe8253a0e49e6548"}, 400, "INVALID_INPUT_CURRENCY"},
		{"below the minimum", map[string]any{"amount": "100000"}, 400, "AMOUNT_TOO_LOW"},
		{"above the liquidity", map[string]any{"amount": "5000000000000"}, 400, "INSUFFICIENT_LIQUIDITY"},
		{"a field Relay does not have", map[string]any{"dry": true}, 400, ""},
	}
	for _, tt := range tests {
		var e relayError
		if code := do(t, "POST", base+"/relay/quote/v2", relayQuote(tt.extra), &e); code != tt.want || e.ErrorCode != tt.code || (code != 200 && e.Message == "") {
			t.Errorf("%s: %d %+v; want %d %q with a message", tt.name, code, e, tt.want, tt.code)
		}
	}
	// The deprecated /quote is the same call.
	if code := do(t, "POST", base+"/relay/quote", relayQuote(nil), nil); code != 200 {
		t.Errorf("/quote: %d", code)
	}
}

// A strict address fills the quoted amount of an over-payment and refunds the excess in a leg
// of its own.
func TestRelayStrictOverpayment(t *testing.T) {
	sim, base := simtest.Start(t, simtest.FastOptions())
	var q struct {
		Steps []struct{ RequestID, DepositAddress string }
	}
	if code := do(t, "POST", base+"/relay/quote/v2", relayQuote(map[string]any{"useDepositAddress": true, "strict": true}), &q); code != 200 || len(q.Steps) != 1 {
		t.Fatalf("quote: %d %+v", code, q)
	}
	if _, err := sim.Deposit(q.Steps[0].DepositAddress, "150000000"); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Status               string
		InTxHashes, TxHashes []string
	}
	simtest.Eventually(t, "success", func() bool {
		do(t, "GET", base+"/relay/intents/status/v3?requestId="+q.Steps[0].RequestID, nil, &st)
		return st.Status == "success"
	})
	if len(st.InTxHashes) != 1 || len(st.TxHashes) != 2 || st.TxHashes[0] == st.TxHashes[1] {
		t.Fatalf("status %+v; want the fill and the refund of the excess", st)
	}
	if code := do(t, "GET", base+"/relay/intents/status/v3?requestId=0xnone", nil, nil); code != 404 {
		t.Fatalf("unknown request: %d", code)
	}
}

func TestRelayCurrencies(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	var all, some, usdc []struct {
		ChainID int64
		Symbol  string
	}
	do(t, "POST", base+"/relay/currencies/v2", map[string]any{"limit": 100}, &all)
	do(t, "POST", base+"/relay/currencies/v2", map[string]any{"limit": 100, "chainIds": []int{792703809}}, &some)
	do(t, "POST", base+"/relay/currencies/v2", map[string]any{"limit": 2, "term": "usd", "depositAddressOnly": true}, &usdc)
	if len(all) < 12 || len(some) != 2 || len(usdc) != 2 || usdc[0].Symbol != "USDC" {
		t.Fatalf("all %d, Solana %+v, limit 2 of usd %+v", len(all), some, usdc)
	}
	for _, c := range some {
		if c.ChainID != 792703809 {
			t.Errorf("a Solana filter answered %+v", c)
		}
	}
	if code := do(t, "POST", base+"/relay/currencies/v2", map[string]any{"limit": 0}, nil); code != 400 {
		t.Errorf("limit 0: %d", code)
	}
}

func TestRelayControl(t *testing.T) {
	sim, base := simtest.Start(t, simtest.FastOptions())
	var q struct {
		Steps []struct{ DepositAddress string }
	}
	do(t, "POST", base+"/relay/quote/v2", relayQuote(map[string]any{"useDepositAddress": true, "strict": true}), &q)
	addr := q.Steps[0].DepositAddress
	for _, tt := range []struct {
		body map[string]any
		want int
	}{
		{map[string]any{"provider": "relay", "depositAddress": addr, "steps": 2}, 204},
		{map[string]any{"provider": "relay", "depositAddress": "0xnobody", "steps": 2}, 404},
		{map[string]any{"provider": "route_A", "depositAddress": addr, "steps": 2}, 404},
		{map[string]any{"provider": "relay", "depositAddress": addr, "steps": -1}, 400},
	} {
		if code := do(t, "POST", base+"/control/delayed", tt.body, nil); code != tt.want {
			t.Errorf("delayed %v: %d; want %d", tt.body, code, tt.want)
		}
	}
	if code := do(t, "PUT", base+"/control/faults/relay/quote", map[string]any{"errorRate": 1, "status": 500}, nil); code != 204 {
		t.Fatalf("relay fault: %d", code)
	}
	if code := do(t, "POST", base+"/relay/quote/v2", relayQuote(nil), nil); code != 500 {
		t.Fatalf("faulted relay quote: %d", code)
	}
	if got := sim.Providers(); len(got) != 3 || got[2] != simulator.Relay {
		t.Fatalf("providers %v", got)
	}
}
