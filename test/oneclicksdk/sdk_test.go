// Package oneclicksdk holds the simulator to the real 1Click client: 1Click's official
// TypeScript SDK (npm, pinned by testdata/sdk/package-lock.json) drives each simulated 1Click
// account (route_A, and a second one with its own path, token and fee) through every call
// swaprouter's oneclick adapter makes and verifies each quote's signature with the SDK's own
// code. It needs Node.js and npm (make tools installs them) and installs the SDK with npm ci.
package oneclicksdk

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/quotesig"
	"github.com/swaprouter/swaprouter/internal/testing/nodescript"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// The simulator serves two 1Click accounts: route_A and a second account of the same
// protocol with its own token and a lower fee. The SDK must drive both alike.
const (
	token       = "sdk-conformance-jwt"
	second      = swapv1.ProviderID("oneclick_b")
	secondToken = "sdk-conformance-jwt-b"
	secondFee   = int64(10) // route_A's is 30
)

type report struct {
	Steps []struct {
		Name              string   `json:"name"`
		SignatureVerified bool     `json:"signatureVerified"`
		DepositAddress    string   `json:"depositAddress"`
		Statuses          []string `json:"statuses"`
		AmountOut         string   `json:"amountOut"`
	} `json:"steps"`
	Hashes map[string]string `json:"hashes"`
	Error  string            `json:"error"`
}

// amountOut is what the report's step quoted.
func (r report) amountOut(t *testing.T, step string) *big.Int {
	t.Helper()
	for _, s := range r.Steps {
		if s.Name == step {
			n, ok := new(big.Int).SetString(s.AmountOut, 10)
			if !ok {
				t.Fatalf("%s: amountOut %q", step, s.AmountOut)
			}
			return n
		}
	}
	t.Fatalf("no step %q", step)
	return nil
}

func TestOfficialSDKDrivesTheSimulator(t *testing.T) {
	dir := filepath.Join("testdata", "sdk")
	nodescript.Install(t, dir)

	opts := simtest.FastOptions()
	opts.RouteAToken = token
	fee := secondFee
	opts.Instances = []simulator.Instance{{ID: second, Protocol: swapv1.ProtocolOneClick, Token: secondToken, FeeBps: &fee}}
	sim, url := simtest.Start(t, opts)
	golden, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "internal", "quotesig", "testdata", "*.json"))
	if err != nil || len(golden) == 0 {
		t.Fatalf("no quotesig testdata: %v", err)
	}

	reports := map[swapv1.ProviderID]report{}
	for _, account := range []struct {
		id    swapv1.ProviderID
		token string
	}{{swapv1.ProviderRouteA, token}, {second, secondToken}} {
		t.Run(string(account.id), func(t *testing.T) {
			var r report
			runErr, stderr := nodescript.Run(t, dir, "conformance.mjs", []string{"SIM_URL=" + url, "PROVIDER_PATH=" + string(account.id),
				"TOKEN=" + account.token, "SIGNING_KEY=" + sim.QuotePublicKey(), "HASH_FILES=" + strings.Join(golden, ",")}, &r)
			if runErr != nil || r.Error != "" {
				t.Fatalf("the SDK failed against the simulator: %s (%v)\nsteps so far: %+v\nstderr: %s", r.Error, runErr, r.Steps, stderr)
			}
			reports[account.id] = r

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
			calls := sim.Stats().Calls[account.id]
			for _, call := range []string{"tokens", "quote", "status", "submit"} {
				if calls[call] == 0 {
					t.Errorf("the SDK never reached %s's %s call (calls: %v)", account.id, call, calls)
				}
			}
		})
	}
	if len(reports) != 2 {
		return // a subtest failed
	}
	const step = "dry EXACT_INPUT quote"
	if a, b := reports[swapv1.ProviderRouteA].amountOut(t, step), reports[second].amountOut(t, step); b.Cmp(a) <= 0 {
		t.Errorf("%s: %s's lower fee quotes %s, route_A's %s: the accounts' fees are not their own", step, second, b, a)
	}
	r := reports[swapv1.ProviderRouteA]

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
