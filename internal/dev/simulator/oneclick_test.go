package simulator_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math/big"
	"net/http"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/quotesig"
)

// routeAQuote is a 1Click QuoteRequest for 100 USDC on Ethereum to SOL, with extra fields.
func routeAQuote(dry bool, extra map[string]any) map[string]any {
	q := map[string]any{
		"dry": dry, "swapType": "EXACT_INPUT", "slippageTolerance": 100,
		"originAsset": "nep141:eth-0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.omft.near", "depositType": "ORIGIN_CHAIN",
		"destinationAsset": "nep141:sol.omft.near", "amount": "100000000", "refundTo": "0x1111111111111111111111111111111111111111",
		"refundType": "ORIGIN_CHAIN", "recipient": "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "recipientType": "DESTINATION_CHAIN",
		"deadline": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
	}
	maps.Copy(q, extra)
	return q
}

// postQuote returns the status and the raw body of POST /route_A/v0/quote.
func postQuote(t *testing.T, base string, body map[string]any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(base+"/route_A/v0/quote", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// Every quote, dry or with an address, verifies with the key the simulator serves, and with
// no other; the BadSignature fault makes it fail verification and nothing else.
func TestRouteAQuotesAreSigned(t *testing.T) {
	sim, base := simtest.Start(t, simtest.FastOptions())
	var served struct{ PublicKey string }
	if code := do(t, "GET", base+"/control/quote-signing-key", nil, &served); code != 200 || served.PublicKey != sim.QuotePublicKey() {
		t.Fatalf("GET /control/quote-signing-key: %d %+v, want %s", code, served, sim.QuotePublicKey())
	}
	key, err := quotesig.ParsePublicKey(served.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	published, _ := quotesig.ParsePublicKey(quotesig.PublishedKey)
	for _, dry := range []bool{true, false} {
		code, raw := postQuote(t, base, routeAQuote(dry, nil))
		if code != 200 {
			t.Fatalf("dry=%v: %d %s", dry, code, raw)
		}
		if err := quotesig.Verify(key, raw); err != nil {
			t.Errorf("dry=%v: %v\n%s", dry, err, raw)
		}
		if err := quotesig.Verify(published, raw); err == nil {
			t.Errorf("dry=%v: the simulator's quote verifies with 1Click's published key", dry)
		}
	}

	sim.SetFault(swapv1.ProviderRouteA, simulator.CallQuote, simulator.Fault{BadSignature: true})
	code, raw := postQuote(t, base, routeAQuote(false, nil))
	var forged struct {
		Quote struct{ DepositAddress string }
	}
	_ = json.Unmarshal(raw, &forged)
	if code != 200 || forged.Quote.DepositAddress == "" {
		t.Fatalf("under BadSignature: %d %s; want an otherwise intact quote", code, raw)
	}
	if err := quotesig.Verify(key, raw); !errors.Is(err, quotesig.ErrInvalid) {
		t.Fatalf("under BadSignature the quote verifies: %v", err)
	}
}

// Rebates are the SDK's Rebate model, {recipient, share} with shares in percent adding up to 100.
func TestRouteAAcceptsRebates(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	for _, tt := range []struct {
		rebates []map[string]any
		ok      bool
	}{
		{[]map[string]any{{"recipient": "rebate.near", "share": 100}}, true},
		{[]map[string]any{{"recipient": "a.near", "share": 33.5}, {"recipient": "b.near", "share": 66.5}}, true},
		{[]map[string]any{{"recipient": "a.near", "share": 50}}, false},
		{[]map[string]any{{"recipient": "", "share": 100}}, false},
		{[]map[string]any{{"recipient": "a.near", "percent": 100}}, false},
		{[]map[string]any{{"recipient": "a", "share": 25}, {"recipient": "b", "share": 25}, {"recipient": "c", "share": 25}, {"recipient": "d", "share": 25}}, false},
	} {
		code, raw := postQuote(t, base, routeAQuote(true, map[string]any{"rebates": tt.rebates}))
		if (code == 200) != tt.ok {
			t.Errorf("rebates %v: %d %s", tt.rebates, code, raw)
		}
	}
}

// FLEX_INPUT: slippage bounds both sides; any deposit of at least minAmountIn is swapped whole
// at the quoted rate, less than that is refunded.
func TestRouteAFlexInput(t *testing.T) {
	sim, base := simtest.Start(t, simtest.FastOptions())
	var q struct {
		Quote struct{ DepositAddress, AmountIn, MinAmountIn, AmountOut, MinAmountOut string }
	}
	open := func() {
		t.Helper()
		code, raw := postQuote(t, base, routeAQuote(false, map[string]any{"swapType": "FLEX_INPUT", "slippageTolerance": 200}))
		if code != 200 || json.Unmarshal(raw, &q) != nil {
			t.Fatalf("FLEX_INPUT quote: %d %s", code, raw)
		}
	}
	open()
	minOut, _ := new(big.Int).SetString(q.Quote.MinAmountOut, 10)
	out, _ := new(big.Int).SetString(q.Quote.AmountOut, 10)
	if q.Quote.MinAmountIn != "98000000" || q.Quote.AmountIn != "100000000" || minOut == nil || out == nil || minOut.Cmp(out) >= 0 {
		t.Fatalf("FLEX_INPUT quote %+v; want minAmountIn 98 USDC and minAmountOut below amountOut", q.Quote)
	}
	status := func(addr string) (s struct {
		Status      string
		SwapDetails struct{ AmountIn, AmountOut, RefundedAmount string }
	}) {
		do(t, "GET", base+"/route_A/v0/status?depositAddress="+addr, nil, &s)
		return s
	}
	if _, err := sim.Deposit(q.Quote.DepositAddress, q.Quote.MinAmountIn); err != nil {
		t.Fatal(err)
	}
	simtest.Eventually(t, "SUCCESS for minAmountIn", func() bool { return status(q.Quote.DepositAddress).Status == "SUCCESS" })
	if d := status(q.Quote.DepositAddress).SwapDetails; d.AmountIn != q.Quote.MinAmountIn || d.AmountOut != q.Quote.MinAmountOut || d.RefundedAmount != "" {
		t.Fatalf("swap details %+v; want minAmountIn swapped for minAmountOut, nothing refunded", d)
	}

	open()
	if _, err := sim.Deposit(q.Quote.DepositAddress, "97999999"); err != nil {
		t.Fatal(err)
	}
	simtest.Eventually(t, "REFUNDED below minAmountIn", func() bool { return status(q.Quote.DepositAddress).Status == "REFUNDED" })

	code, raw := postQuote(t, base, routeAQuote(true, map[string]any{"swapType": "ANY_INPUT"}))
	if code != 400 {
		t.Fatalf("ANY_INPUT: %d %s; want 400 (authorized partners only)", code, raw)
	}
}
