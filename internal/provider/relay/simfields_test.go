package relay

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
	"github.com/swaprouter/swaprouter/internal/testing/testclock"
)

// relayQuote is a /quote/v2 body for 100 USDC on Ethereum to SOL, with changes.
func relayQuote(change func(q map[string]any)) map[string]any {
	q := map[string]any{
		"user": from, "recipient": solDst, "originChainId": 1, "originCurrency": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
		"destinationChainId": 792703809, "destinationCurrency": "11111111111111111111111111111111",
		"amount": "100000000", "tradeType": "EXACT_INPUT", "refundTo": from,
	}
	if change != nil {
		change(q)
	}
	return q
}

type quoted struct {
	Steps []struct{ RequestID, DepositAddress string }
}

// TestSimulatorSpeaksTheModels: every field the simulated Relay answers exists in Relay's
// published types (the fixtures), for every call the adapter makes, through a fill that is
// delayed, a success, a refund and a failure.
func TestSimulatorSpeaksTheModels(t *testing.T) {
	opts := simtest.FastOptions()
	clock := &testclock.Clock{}
	opts.Now = clock.Now
	sim, url := simtest.Start(t, opts)
	base := url + "/relay"
	providertest.CheckFields(t, "chains", providertest.Fetch(t, "GET", base+"/chains", nil), providertest.ModelFields(t, "", "chains.json"))
	providertest.CheckFields(t, "currencies", providertest.Fetch(t, "POST", base+"/currencies/v2", currenciesRequest{ChainIDs: []int64{1, 792703809}, Limit: 100}),
		providertest.ModelFields(t, "", "currencies.json"))
	quoteModel := providertest.ModelFields(t, "", "quote.json")
	providertest.CheckFields(t, "quote without a deposit address", providertest.Fetch(t, "POST", base+"/quote/v2", relayQuote(nil)), quoteModel)

	statusModel := providertest.ModelFields(t, "", "status-waiting.json", "status-delayed.json", "status-success.json", "status-refund.json")
	open := func(change func(q map[string]any)) quoted {
		raw := providertest.Fetch(t, "POST", base+"/quote/v2", relayQuote(func(q map[string]any) {
			q["useDepositAddress"], q["strict"] = true, true
			if change != nil {
				change(q)
			}
		}))
		providertest.CheckFields(t, "deposit-address quote", raw, quoteModel)
		var out quoted
		_ = json.Unmarshal(raw, &out)
		return out
	}
	status := func(id string) string {
		raw := providertest.Fetch(t, "GET", base+"/intents/status/v3?requestId="+id, nil)
		var s struct{ Status string }
		_ = json.Unmarshal(raw, &s)
		providertest.CheckFields(t, "status "+s.Status, raw, statusModel)
		return s.Status
	}

	t0 := clock.Now()
	clock.HoldAt(t0)
	full := open(nil).Steps[0]
	lookup := providertest.Fetch(t, "GET", base+"/deposit-addresses/v1?address="+full.DepositAddress, nil)
	providertest.CheckFields(t, "deposit-address lookup", lookup, providertest.ModelFields(t, "", "deposit-address-strict.json", "deposit-address-open.json"))
	if got := status(full.RequestID); got != "waiting" {
		t.Fatalf("before the deposit: %s", got)
	}
	if !sim.SetDelayed(simulator.Relay, full.DepositAddress, 2) {
		t.Fatal("the simulator does not know the address")
	}
	if _, err := sim.Deposit(full.DepositAddress, "100000000"); err != nil {
		t.Fatal(err)
	}
	index := providertest.Fetch(t, "POST", base+"/transactions/index", indexRequest{ChainID: "1", TxHash: "0xabc", RequestID: full.RequestID})
	providertest.CheckFields(t, "index", index, providertest.ModelFields(t, "", "index.json"))
	step := opts.StepDelay
	for _, at := range []struct {
		after time.Duration
		want  string
	}{{step / 2, "waiting"}, {step + step/2, "pending"}, {2*step + step/2, "delayed"}, {4*step + step/2, "submitted"}, {6 * step, "success"}} {
		clock.HoldAt(t0.Add(at.after))
		if got := status(full.RequestID); got != at.want {
			t.Fatalf("%v after the deposit: %s; want %s", at.after, got, at.want)
		}
	}

	clock.Release()
	under := open(nil).Steps[0]
	if _, err := sim.Deposit(under.DepositAddress, "10000000"); err != nil {
		t.Fatal(err)
	}
	simtest.Eventually(t, "the under-payment refunded", func() bool { return status(under.RequestID) == "refund" })
	dust := open(nil).Steps[0]
	if _, err := sim.Deposit(dust.DepositAddress, "1"); err != nil {
		t.Fatal(err)
	}
	simtest.Eventually(t, "a refund too small for its gas ending in failure", func() bool { return status(dust.RequestID) == "failure" })
}
