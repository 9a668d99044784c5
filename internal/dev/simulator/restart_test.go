package simulator_test

import (
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/testing/testclock"
)

// A simulator on a data folder is stopped with open orders, one of them paid; a new one on the
// same folder still knows both orders (by address and channel id), settles the paid one, and
// settles the other once it is paid.
func TestRestartKeepsOrdersAndDeposits(t *testing.T) {
	dir := t.TempDir()
	opts := simtest.FastOptions()
	opts.DataDir = dir
	// The first run's clock stands still, so nothing settles before the restart.
	clock := &testclock.Clock{}
	clock.HoldAt(time.Now())
	first := opts
	first.Now = clock.Now
	sim1, err := simulator.Open(first)
	if err != nil {
		t.Fatal(err)
	}
	srv1 := httptest.NewServer(sim1.Handler())
	base := srv1.URL

	var channel struct{ DepositAddress, ID string }
	if code := do(t, "POST", base+"/route_B/api/openSwapDepositChannel", openBody("0"), &channel); code != 201 {
		t.Fatalf("open channel: %d", code)
	}
	var quote struct {
		Quote struct{ DepositAddress string }
	}
	if code := do(t, "POST", base+"/route_A/v0/quote", map[string]any{
		"dry": false, "swapType": "EXACT_INPUT", "slippageTolerance": 100,
		"originAsset": "nep141:eth.omft.near", "depositType": "ORIGIN_CHAIN", "destinationAsset": "nep141:sol.omft.near", "amount": "1000000000000000000",
		"refundTo": "0x000000000000000000000000000000000000dEaD", "refundType": "ORIGIN_CHAIN",
		"recipient": "11111111111111111111111111111111", "recipientType": "DESTINATION_CHAIN", "deadline": "2030-01-01T00:00:00Z",
	}, &quote); code != 200 || quote.Quote.DepositAddress == "" {
		t.Fatalf("route_A order: %d %+v", code, quote)
	}
	var tx struct{ TxHash string }
	if code := do(t, "POST", base+"/chain/deposits", map[string]string{"depositAddress": channel.DepositAddress, "amount": "100000000"}, &tx); code != 200 {
		t.Fatalf("deposit: %d", code)
	}
	var st struct{ State string }
	if do(t, "GET", base+"/route_B/v2/swaps/"+channel.ID, nil, &st); st.State == "COMPLETED" {
		t.Fatal("settled before the restart; the test would prove nothing")
	}
	srv1.Close() // the first run ends

	sim2, err := simulator.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(sim2.Handler())
	t.Cleanup(srv2.Close)
	base = srv2.URL

	simtest.Eventually(t, "route_B's channel of the first run COMPLETED", func() bool {
		code := do(t, "GET", base+"/route_B/v2/swaps/"+channel.ID, nil, &st)
		return code == 200 && st.State == "COMPLETED"
	})
	statusA := func() (int, string) {
		var s struct{ Status string }
		code := do(t, "GET", base+"/route_A/v0/status?"+url.Values{"depositAddress": {quote.Quote.DepositAddress}}.Encode(), nil, &s)
		return code, s.Status
	}
	if code, s := statusA(); code != 200 || s != "PENDING_DEPOSIT" {
		t.Fatalf("route_A's order of the first run: %d %q", code, s)
	}
	var tx2 struct{ TxHash string }
	if code := do(t, "POST", base+"/chain/deposits", map[string]string{"depositAddress": quote.Quote.DepositAddress, "amount": "1000000000000000000"}, &tx2); code != 200 {
		t.Fatalf("deposit after restart: %d", code)
	}
	if tx2.TxHash == tx.TxHash {
		t.Errorf("the restarted chain repeated transaction hash %s", tx.TxHash)
	}
	simtest.Eventually(t, "route_A's order of the first run SUCCESS", func() bool {
		_, s := statusA()
		return s == "SUCCESS"
	})
	stats := sim2.Stats()
	if stats.Deposits != 2 || stats.DepositAddressesCreated["route_B"]["So1ana"] != 1 {
		t.Errorf("stats after restart: %+v", stats)
	}
}
