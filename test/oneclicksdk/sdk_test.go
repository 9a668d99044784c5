// Package oneclicksdk holds the simulator to the real 1Click client: 1Click's official
// TypeScript SDK (npm, pinned by testdata/sdk/package-lock.json) drives the simulated
// route_A through every call swaprouter's oneclick adapter makes and verifies each quote's
// signature with the SDK's own code. It needs Node.js and npm (make tools installs them) and
// installs the SDK with npm ci.
package oneclicksdk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/quotesig"
	"github.com/swaprouter/swaprouter/internal/testing/nodescript"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

const token = "sdk-conformance-jwt"

type report struct {
	Steps []struct {
		Name              string   `json:"name"`
		SignatureVerified bool     `json:"signatureVerified"`
		DepositAddress    string   `json:"depositAddress"`
		Statuses          []string `json:"statuses"`
	} `json:"steps"`
	Hashes map[string]string `json:"hashes"`
	Error  string            `json:"error"`
}

func TestOfficialSDKDrivesTheSimulator(t *testing.T) {
	dir := filepath.Join("testdata", "sdk")
	nodescript.Install(t, dir)

	opts := simtest.FastOptions()
	opts.RouteAToken = token
	sim, url := simtest.Start(t, opts)
	golden, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "internal", "quotesig", "testdata", "*.json"))
	if err != nil || len(golden) == 0 {
		t.Fatalf("no quotesig testdata: %v", err)
	}

	var r report
	runErr, stderr := nodescript.Run(t, dir, "conformance.mjs", []string{"SIM_URL=" + url, "ROUTE_A_TOKEN=" + token, "SIGNING_KEY=" + sim.QuotePublicKey(),
		"HASH_FILES=" + strings.Join(golden, ",")}, &r)
	if runErr != nil || r.Error != "" {
		t.Fatalf("the SDK failed against the simulator: %s (%v)\nsteps so far: %+v\nstderr: %s", r.Error, runErr, r.Steps, stderr)
	}

	done := map[string]bool{}
	for _, s := range r.Steps {
		done[s.Name] = true
		t.Logf("%s: verified=%v address=%q statuses=%v", s.Name, s.SignatureVerified, s.DepositAddress, s.Statuses)
	}
	for _, want := range []string{
		"getTokens", "dry EXACT_INPUT quote", "dry EXACT_OUTPUT quote", "dry FLEX_INPUT quote with rebates",
		"non-dry EXACT_INPUT quote", "submitDepositTx", "full deposit to SUCCESS", "under-deposit to REFUNDED",
		"non-dry FLEX_INPUT quote with rebates", "FLEX_INPUT deposit of minAmountIn to SUCCESS",
	} {
		if !done[want] {
			t.Errorf("step %q did not run", want)
		}
	}
	calls := sim.Stats().Calls["route_A"]
	for _, call := range []string{"tokens", "quote", "status", "submit"} {
		if calls[call] == 0 {
			t.Errorf("the SDK never reached route_A's %s call (calls: %v)", call, calls)
		}
	}

	// The Go verifier hashes what the SDK hashes.
	for _, f := range golden {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := quotesig.Message(raw); err != nil || got != r.Hashes[f] {
			t.Errorf("%s: quotesig.Message = %q, %v; the SDK's quoteHash = %q", filepath.Base(f), got, err, r.Hashes[f])
		}
	}
}
