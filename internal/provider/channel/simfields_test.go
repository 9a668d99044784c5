package channel

import (
	"encoding/json"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
)

// TestSimulatorSpeaksTheModels: every field the simulated Chainflip backend answers exists in
// the backend's published schemas (the fixtures), in every state the simulator reaches.
func TestSimulatorSpeaksTheModels(t *testing.T) {
	sim, url := simtest.Start(t, simtest.FastOptions())
	base := url + "/route_B"
	sim.SetDCA(simulator.DCAAlso)
	providertest.CheckFields(t, "networkInfo", providertest.Fetch(t, "GET", base+"/api/networkInfo", nil), providertest.ModelFields(t, "", "networkInfo.json"))
	quotes := providertest.Fetch(t, "GET", base+"/v2/quote?srcChain=Ethereum&srcAsset=USDC&destChain=Arbitrum&destAsset=USDC&amount=100000000", nil)
	providertest.CheckFields(t, "quote", quotes, providertest.ModelFields(t, "", "quote.json"))

	statusModels := providertest.ModelFields(t, "", "status-partial.json", "status-completed.json", "status-short-deposit.json", "status-swapping-dca.json", "status-rejected.json", "status-waiting-expired.json")
	for _, dca := range []bool{false, true} {
		body := map[string]any{
			"srcAsset": map[string]string{"chain": "Ethereum", "asset": "USDC"}, "destAsset": map[string]string{"chain": "Arbitrum", "asset": "USDC"},
			"amount": "100000000", "destAddress": "0x2222222222222222222222222222222222222222",
			"fillOrKillParams": map[string]any{"retryDurationBlocks": 50, "refundAddress": "0x1111111111111111111111111111111111111111", "minPriceX128": "1", "maxOraclePriceSlippage": nil},
		}
		if dca {
			body["dcaParams"] = map[string]int{"numberOfChunks": 3, "chunkIntervalBlocks": 2}
		}
		opened := providertest.Fetch(t, "POST", base+"/api/openSwapDepositChannel", body)
		providertest.CheckFields(t, "open", opened, providertest.ModelFields(t, "", "open.json"))
		var ch struct{ ID, DepositAddress string }
		_ = json.Unmarshal(opened, &ch)
		sim.SetUnfilled(swapv1.ProviderRouteB, ch.DepositAddress, 2500)
		providertest.CheckFields(t, "status WAITING", providertest.Fetch(t, "GET", base+"/v2/swaps/"+ch.ID, nil), statusModels)
		if _, err := sim.Deposit(ch.DepositAddress, "100000000"); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		simtest.Eventually(t, "COMPLETED", func() bool {
			st := providertest.Fetch(t, "GET", base+"/v2/swaps/"+ch.ID, nil)
			var s struct{ State string }
			_ = json.Unmarshal(st, &s)
			if !seen[s.State] {
				seen[s.State] = true
				providertest.CheckFields(t, "status "+s.State, st, statusModels)
			}
			return s.State == "COMPLETED"
		})
	}
}
