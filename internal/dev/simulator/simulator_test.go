package simulator_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
)

func do(t *testing.T, method, u string, body any, out any) int {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, u, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// The same pair gets different prices from the two providers.
func TestProvidersPriceDifferently(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	var a struct{ Quote struct{ AmountOut string } }
	code := do(t, "POST", base+"/route_A/v0/quote", map[string]any{
		"dry": true, "swapType": "EXACT_INPUT", "slippageTolerance": 100,
		"originAsset": "nep141:eth.omft.near", "depositType": "ORIGIN_CHAIN", "destinationAsset": "nep141:sol.omft.near", "amount": "1000000000000000000",
		"refundTo": "0x000000000000000000000000000000000000dEaD", "refundType": "ORIGIN_CHAIN",
		"recipient": "11111111111111111111111111111111", "recipientType": "DESTINATION_CHAIN", "deadline": "2030-01-01T00:00:00Z",
	}, &a)
	if code != 200 {
		t.Fatalf("route_A quote: %d", code)
	}
	var b []struct{ EgressAmount string }
	q := url.Values{"srcChain": {"Ethereum"}, "srcAsset": {"ETH"}, "destChain": {"Solana"}, "destAsset": {"SOL"}, "amount": {"1000000000000000000"}}
	if code := do(t, "GET", base+"/route_B/v2/quote?"+q.Encode(), nil, &b); code != 200 || len(b) != 1 {
		t.Fatalf("route_B quote: %d %v", code, b)
	}
	if a.Quote.AmountOut == "" || a.Quote.AmountOut == b[0].EgressAmount {
		t.Fatalf("route_A %q, route_B %q; want two different prices", a.Quote.AmountOut, b[0].EgressAmount)
	}
}

func TestChainAndControlAPI(t *testing.T) {
	sim, base := simtest.Start(t, simtest.FastOptions())
	var open struct{ DepositAddress, ID string }
	code := do(t, "POST", base+"/route_B/api/openSwapDepositChannel", openBody("0"), &open)
	if code != 201 || open.DepositAddress == "" {
		t.Fatalf("open channel: %d %+v", code, open)
	}
	var tx struct{ TxHash string }
	if code := do(t, "POST", base+"/chain/deposits", map[string]string{"depositAddress": open.DepositAddress, "amount": "100000000"}, &tx); code != 200 || tx.TxHash == "" {
		t.Fatalf("deposit: %d %+v", code, tx)
	}
	if code := do(t, "POST", base+"/chain/deposits", map[string]string{"depositAddress": "0xnobody", "amount": "1"}, nil); code != 404 {
		t.Fatalf("deposit to unknown address: %d", code)
	}
	if code := do(t, "POST", base+"/chain/deposits", map[string]string{"depositAddress": open.DepositAddress, "amount": "-5"}, nil); code != 400 {
		t.Fatalf("negative deposit: %d", code)
	}
	var st struct{ State string }
	simtest.Eventually(t, "COMPLETED", func() bool {
		do(t, "GET", base+"/route_B/v2/swaps/"+open.ID, nil, &st)
		return st.State == "COMPLETED"
	})

	if code := do(t, "PUT", base+"/control/faults/route_B/status", map[string]any{"errorRate": 1, "status": 500}, nil); code != 204 {
		t.Fatalf("set fault: %d", code)
	}
	if code := do(t, "GET", base+"/route_B/v2/swaps/"+open.ID, nil, nil); code != 500 {
		t.Fatalf("faulted status: %d", code)
	}
	var faults []map[string]any
	if do(t, "GET", base+"/control/faults", nil, &faults); len(faults) != 1 || faults[0]["call"] != "status" {
		t.Fatalf("faults = %v", faults)
	}
	if code := do(t, "PUT", base+"/control/faults/route_C/status", map[string]any{"hang": true}, nil); code != 404 {
		t.Fatalf("unknown provider: %d", code)
	}
	if code := do(t, "PUT", base+"/control/faults/route_B/status", map[string]any{"errorRate": 3}, nil); code != 400 {
		t.Fatalf("bad fault: %d", code)
	}
	if code := do(t, "DELETE", base+"/control/faults", nil, nil); code != 204 || len(sim.Faults()) != 0 {
		t.Fatalf("clear faults: %d %v", code, sim.Faults())
	}

	var stats simulator.Stats
	do(t, "GET", base+"/control/stats", nil, &stats)
	if stats.Calls["route_B"][simulator.CallOpen] != 1 || stats.DepositAddressesCreated["route_B"]["So1ana"] != 1 || stats.Deposits != 1 {
		t.Fatalf("stats = %+v", stats)
	}
	if code := do(t, "POST", base+"/control/forget", map[string]string{"provider": "route_B", "depositAddress": open.DepositAddress}, nil); code != 204 {
		t.Fatalf("forget: %d", code)
	}
	if code := do(t, "GET", base+"/route_B/v2/swaps/"+open.ID, nil, nil); code != 404 {
		t.Fatalf("status after forget: %d", code)
	}
	if code := do(t, "POST", base+"/control/forget", map[string]string{"provider": "route_B", "depositAddress": open.DepositAddress}, nil); code != 404 {
		t.Fatalf("second forget: %d", code)
	}
}

// openBody is a real openSwapDepositChannel body for 100 USDC on Ethereum to SOL.
func openBody(minPriceX128 string) map[string]any {
	return map[string]any{
		"srcAsset": map[string]string{"chain": "Ethereum", "asset": "USDC"}, "destAsset": map[string]string{"chain": "Solana", "asset": "SOL"},
		"amount": "100000000", "destAddress": "So1ana",
		"fillOrKillParams": map[string]any{"refundAddress": "0xabc", "retryDurationBlocks": 50, "minPriceX128": minPriceX128, "maxOraclePriceSlippage": nil},
	}
}

// A channel whose price floor the market cannot meet refunds the deposit instead of swapping.
func TestChannelPriceFloor(t *testing.T) {
	sim, base := simtest.Start(t, simtest.FastOptions())
	var open struct{ DepositAddress, ID string }
	// 2^200: far above any price.
	if code := do(t, "POST", base+"/route_B/api/openSwapDepositChannel", openBody("1606938044258990275541962092341162602522202993782792835301376"), &open); code != 201 {
		t.Fatalf("open channel: %d", code)
	}
	if _, err := sim.Deposit(open.DepositAddress, "100000000"); err != nil {
		t.Fatal(err)
	}
	var st struct {
		State        string
		SwapEgress   *struct{ Amount string }
		RefundEgress *struct{ Amount, TxRef string }
	}
	simtest.Eventually(t, "COMPLETED", func() bool {
		do(t, "GET", base+"/route_B/v2/swaps/"+open.ID, nil, &st)
		return st.State == "COMPLETED"
	})
	if st.SwapEgress != nil || st.RefundEgress == nil || st.RefundEgress.Amount != "100000000" || st.RefundEgress.TxRef == "" {
		t.Fatalf("status %+v; want the whole deposit refunded and nothing swapped", st)
	}
}

func TestDCAQuotesOnDemand(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	q := url.Values{"srcChain": {"Ethereum"}, "srcAsset": {"ETH"}, "destChain": {"Solana"}, "destAsset": {"SOL"}, "amount": {"1000000000000000000"}}
	for mode, want := range map[string][]string{"": {"REGULAR"}, "also": {"REGULAR", "DCA"}, "only": {"DCA"}} {
		if code := do(t, "PUT", base+"/control/dca", map[string]string{"mode": mode}, nil); code != 204 {
			t.Fatalf("set dca %q: %d", mode, code)
		}
		var quotes []struct {
			Type      string
			DcaParams *struct{ NumberOfChunks int }
		}
		if code := do(t, "GET", base+"/route_B/v2/quote?"+q.Encode(), nil, &quotes); code != 200 || len(quotes) != len(want) {
			t.Fatalf("mode %q: %d %+v", mode, code, quotes)
		}
		for i, qt := range quotes {
			if qt.Type != want[i] || (qt.Type == "DCA") != (qt.DcaParams != nil) {
				t.Fatalf("mode %q: quote %d is %+v; want %s", mode, i, qt, want[i])
			}
		}
	}
	if code := do(t, "PUT", base+"/control/dca", map[string]string{"mode": "sometimes"}, nil); code != 400 {
		t.Fatalf("bad mode: %d", code)
	}
}

func TestTooManyRequestsCarriesRetryAfter(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	if code := do(t, "PUT", base+"/control/faults/route_A/*", map[string]any{"errorRate": 1, "status": 429, "retryAfter": "4s"}, nil); code != 204 {
		t.Fatalf("set fault: %d", code)
	}
	resp, err := http.Get(base + "/route_A/v0/tokens")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Message string }
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "4" || body.Message != "Too many requests, please try again later" {
		t.Fatalf("got %d Retry-After %q body %+v", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

func TestUnfilledControl(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	var open struct{ DepositAddress string }
	do(t, "POST", base+"/route_B/api/openSwapDepositChannel", openBody("0"), &open)
	body := map[string]any{"provider": "route_B", "depositAddress": open.DepositAddress, "unfilledBps": 2500}
	if code := do(t, "POST", base+"/control/unfilled", body, nil); code != 204 {
		t.Fatalf("unfilled: %d", code)
	}
	body["depositAddress"] = "nowhere"
	if code := do(t, "POST", base+"/control/unfilled", body, nil); code != 404 {
		t.Fatalf("unfilled of an unknown address: %d", code)
	}
	body["unfilledBps"] = 10001
	if code := do(t, "POST", base+"/control/unfilled", body, nil); code != 400 {
		t.Fatalf("unfilled out of range: %d", code)
	}
}

func TestDefaultsSettleForAPersonWatching(t *testing.T) {
	if 4*simulator.DefaultStepDelay > 10*time.Second {
		t.Fatalf("a full deposit takes %v by default; want <= 10s", 4*simulator.DefaultStepDelay)
	}
	if simulator.DefaultRefundDelay > 30*time.Second {
		t.Fatalf("an under-deposit refunds after %v by default; want <= 30s", simulator.DefaultRefundDelay)
	}
}
