package oneclick

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
)

// TestSimulatorSpeaksTheModels: every field the simulated 1Click answers exists in 1Click's
// published models (the fixtures), through an incomplete deposit, its top-up and a success
// with an excess refunded.
func TestSimulatorSpeaksTheModels(t *testing.T) {
	opts := simtest.FastOptions()
	opts.RefundDelay = time.Minute
	sim, url := simtest.Start(t, opts)
	base := url + "/route_A"
	providertest.CheckFields(t, "tokens", providertest.Fetch(t, "GET", base+"/v0/tokens", nil), providertest.ModelFields(t, "", "tokens.json"))
	quoteModel := providertest.ModelFields(t, "", "quote.json")
	q := providertest.Fetch(t, "POST", base+"/v0/quote", map[string]any{
		"dry": false, "depositMode": "SIMPLE", "swapType": "EXACT_INPUT", "slippageTolerance": 100,
		"originAsset": "nep141:eth-0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.omft.near", "depositType": "ORIGIN_CHAIN",
		"destinationAsset": "nep141:sol.omft.near", "amount": "100000000", "refundTo": "0x1111111111111111111111111111111111111111",
		"refundType": "ORIGIN_CHAIN", "recipient": "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "recipientType": "DESTINATION_CHAIN",
		"deadline": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
	})
	providertest.CheckFields(t, "quote", q, quoteModel)
	var resp struct {
		Quote struct{ DepositAddress string }
	}
	_ = json.Unmarshal(q, &resp)
	addr := resp.Quote.DepositAddress

	statusModels := []map[string]bool{
		providertest.ModelFields(t, "", "status-incomplete.json", "status-success-refund.json", "status-refunded.json"),
		providertest.ModelFields(t, "quoteResponse", "quote.json"),
	}
	status := func() (string, []byte) {
		b := providertest.Fetch(t, "GET", base+"/v0/status?depositAddress="+addr, nil)
		var s struct{ Status string }
		_ = json.Unmarshal(b, &s)
		return s.Status, b
	}
	seen := map[string]bool{}
	check := func(want string) func() bool {
		return func() bool {
			s, b := status()
			if !seen[s] {
				seen[s] = true
				providertest.CheckFields(t, "status "+s, b, statusModels...)
			}
			return s == want
		}
	}
	check("PENDING_DEPOSIT")()
	if _, err := sim.Deposit(addr, "60000000"); err != nil {
		t.Fatal(err)
	}
	simtest.Eventually(t, "INCOMPLETE_DEPOSIT", check("INCOMPLETE_DEPOSIT"))
	if _, err := sim.Deposit(addr, "50000000"); err != nil {
		t.Fatal(err)
	}
	simtest.Eventually(t, "SUCCESS", check("SUCCESS"))
	_, b := status()
	var st struct {
		SwapDetails struct{ RefundedAmount, DepositedAmount string }
	}
	_ = json.Unmarshal(b, &st)
	if st.SwapDetails.DepositedAmount != "110000000" || st.SwapDetails.RefundedAmount != "10000000" {
		t.Fatalf("swap details %+v; want 110 USDC deposited and the 10 USDC excess refunded", st.SwapDetails)
	}
	sub := providertest.Fetch(t, "POST", base+"/v0/deposit/submit", map[string]string{"txHash": "0xabc", "depositAddress": addr})
	providertest.CheckFields(t, "submit", sub, statusModels...)
}
