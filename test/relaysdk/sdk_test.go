// Package relaysdk holds the simulator to the real Relay client: Relay's official SDK
// (@relayprotocol/relay-sdk on npm, pinned by testdata/sdk/package-lock.json) drives the
// simulated relay through every call swaprouter's relay adapter makes. It needs Node.js and npm
// (make tools installs them) and installs the SDK with npm ci.
package relaysdk

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
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
	npm(t, dir, "ci", "--no-audit", "--no-fund", "--loglevel=error")

	sim, url := simtest.Start(t, simtest.FastOptions())
	cmd := exec.Command("node", "conformance.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SIM_URL="+url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var r report
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		t.Fatalf("node conformance.mjs: %v, %v\nstdout: %s\nstderr: %s", runErr, err, out, stderr.String())
	}
	if runErr != nil || r.Error != "" {
		t.Fatalf("the SDK failed against the simulator: %s (%v)\nsteps so far: %+v\nstderr: %s", r.Error, runErr, r.Steps, stderr.String())
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

func npm(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is needed (Node.js 18 or later; make tools installs it)")
	}
	cmd := exec.Command("npm", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
