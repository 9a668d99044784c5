package simulator_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
)

// quoteAt posts a 1Click quote to the account under path with a bearer token and returns the
// status and the quote's amountOut.
func quoteAt(t *testing.T, base, path, token string) (int, string) {
	t.Helper()
	b, _ := json.Marshal(routeAQuote(false, nil))
	req, _ := http.NewRequest(http.MethodPost, base+"/"+path+"/v0/quote", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var q struct {
		Quote struct{ AmountOut, DepositAddress string }
	}
	_ = json.Unmarshal(raw, &q)
	return resp.StatusCode, q.Quote.AmountOut
}

// A second 1Click account is served beside route_A under its own id, with its own token, its
// own fee, its own orders and its own faults.
func TestASecondAccountOfAProtocolIsItsOwn(t *testing.T) {
	opts := simtest.FastOptions()
	opts.RouteAToken = "token-a"
	fee := int64(5)
	opts.Instances = []simulator.Instance{{ID: "oneclick_b", Protocol: swapv1.ProtocolOneClick, Token: "token-b", FeeBps: &fee}}
	sim, base := simtest.Start(t, opts)

	if got := sim.Providers(); !slices.Contains(got, "oneclick_b") || len(got) != 4 {
		t.Fatalf("Providers() = %v, want route_A, route_B, relay and oneclick_b", got)
	}
	if code, _ := quoteAt(t, base, "oneclick_b", "token-a"); code != http.StatusUnauthorized {
		t.Errorf("route_A's token at oneclick_b: %d, want 401", code)
	}
	if code, _ := quoteAt(t, base, "route_A", "token-b"); code != http.StatusUnauthorized {
		t.Errorf("oneclick_b's token at route_A: %d, want 401", code)
	}
	codeA, outA := quoteAt(t, base, "route_A", "token-a")
	codeB, outB := quoteAt(t, base, "oneclick_b", "token-b")
	if codeA != http.StatusOK || codeB != http.StatusOK {
		t.Fatalf("quotes: route_A %d, oneclick_b %d", codeA, codeB)
	}
	a, _ := new(big.Int).SetString(outA, 10)
	b, _ := new(big.Int).SetString(outB, 10)
	if a == nil || b == nil || b.Cmp(a) <= 0 {
		t.Errorf("oneclick_b (5 bps) quotes %s, route_A (30 bps) %s: want more from the lower fee", outB, outA)
	}

	stats := sim.Stats()
	if stats.Calls["oneclick_b"]["quote"] != 2 || stats.Calls["route_A"]["quote"] != 2 {
		t.Errorf("quote calls: %v, want 2 at each account (the refused one counted)", stats.Calls)
	}
	if len(stats.DepositAddressesCreated["oneclick_b"]) != 1 {
		t.Errorf("oneclick_b's addresses: %v, want its one order in its own book", stats.DepositAddressesCreated)
	}

	sim.SetFault("oneclick_b", simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable})
	if code, _ := quoteAt(t, base, "oneclick_b", "token-b"); code != http.StatusServiceUnavailable {
		t.Errorf("oneclick_b with its fault: %d, want 503", code)
	}
	if code, _ := quoteAt(t, base, "route_A", "token-a"); code != http.StatusOK {
		t.Errorf("route_A while oneclick_b is faulted: %d, want 200", code)
	}
}

func TestInstancesAreChecked(t *testing.T) {
	for _, tt := range []struct {
		name     string
		instance simulator.Instance
		want     string
	}{
		{"an id taken by a default account", simulator.Instance{ID: "route_A", Protocol: swapv1.ProtocolOneClick}, "taken"},
		{"the control API's path", simulator.Instance{ID: "control", Protocol: swapv1.ProtocolOneClick}, "taken"},
		{"an id off the pattern", simulator.Instance{ID: "one/click", Protocol: swapv1.ProtocolOneClick}, "must match"},
		{"a protocol it does not speak", simulator.Instance{ID: "x", Protocol: "carrier-pigeon"}, "does not speak"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := simtest.FastOptions()
			opts.Instances = []simulator.Instance{tt.instance}
			if _, err := simulator.Open(opts); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
