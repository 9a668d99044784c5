// Package relaysdk holds the simulator to the real Relay client: Relay's official SDK
// (@relayprotocol/relay-sdk on npm, pinned by testdata/sdk/package-lock.json) drives the
// simulated relay through every call swaprouter's relay adapter makes. It needs Node.js and npm
// (make tools installs them) and installs the SDK with npm ci.
package relaysdk

import (
	"path/filepath"
	"testing"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/testing/nodescript"
)

type report struct {
	Steps []struct {
		Name           string   `json:"name"`
		RequestID      string   `json:"requestId"`
		DepositAddress string   `json:"depositAddress"`
		Statuses       []string `json:"statuses"`
		TxHashes       []string `json:"txHashes"`
	} `json:"steps"`
	Error string `json:"error"`
}

func TestOfficialSDKDrivesTheSimulator(t *testing.T) {
	dir := filepath.Join("testdata", "sdk")
	nodescript.Install(t, dir)

	sim, url := simtest.Start(t, simtest.FastOptions())
	var r report
	runErr, stderr := nodescript.Run(t, dir, "conformance.mjs", []string{"SIM_URL=" + url}, &r)
	if runErr != nil || r.Error != "" {
		t.Fatalf("the SDK failed against the simulator: %s (%v)\nsteps so far: %+v\nstderr: %s", r.Error, runErr, r.Steps, stderr)
	}

	done := map[string]bool{}
	for _, s := range r.Steps {
		done[s.Name] = true
		t.Logf("%s: request=%q address=%q statuses=%v txs=%v", s.Name, s.RequestID, s.DepositAddress, s.Statuses, s.TxHashes)
	}
	for _, want := range []string{
		"chains", "currencies", "quote without a deposit address", "strict EXACT_OUTPUT quote", "deposit-address lookup",
		"strict EXACT_INPUT quote", "transactions/index", "full deposit to success", "under-deposit to refund", "quote below the minimum refused",
	} {
		if !done[want] {
			t.Errorf("step %q did not run", want)
		}
	}
	calls := sim.Stats().Calls[simulator.Relay]
	for _, call := range []string{simulator.CallChains, simulator.CallCurrencies, simulator.CallQuote, simulator.CallDepositAddress, simulator.CallIndex, simulator.CallStatus} {
		if calls[call] == 0 {
			t.Errorf("the SDK never reached relay's %s call (calls: %v)", call, calls)
		}
	}
	if n := sim.Stats().DepositSubmits[simulator.Relay]; n != 1 {
		t.Errorf("indexed deposits: %d; want 1", n)
	}
}
