package chainalysis

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/resilience"
	"github.com/swaprouter/swaprouter/internal/screening"
)

const (
	listed = "0x8589427373d6d84e98730d7795d8f6f8731fda16"
	clean  = "0x1111111111111111111111111111111111111111"
)

func rig(t *testing.T) (*simulator.Simulator, *Client) {
	t.Helper()
	sim := simulator.New(simulator.Options{SanctionsAPIKey: "k1"})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	sim.SetSanctioned(listed)
	c := &Client{BaseURL: srv.URL + "/sanctions", APIKey: "k1", Timeout: 500 * time.Millisecond,
		Breaker: resilience.Policy{Threshold: 2, Cooldown: time.Hour, MaxCooldown: time.Hour}}
	return sim, c
}

func calls(sim *simulator.Simulator) int {
	return sim.Stats().Calls[simulator.SanctionsService][simulator.SanctionsCall]
}

func TestScreen(t *testing.T) {
	sim, c := rig(t)
	// A checksummed spelling of a listed EVM address is asked in its canonical form.
	a, ok := c.Screen(context.Background(), []screening.Subject{
		{Field: "sender", Chain: "eth", Address: clean},
		{Field: "refundTo", Chain: "arb", Address: "0x8589427373D6D84E98730D7795D8f6f8731FDA16"},
	})
	if !ok || a.Source.Unavailable != "" {
		t.Fatalf("answer %+v", a)
	}
	if len(a.Matches) != 1 || a.Matches[0].Field != "refundTo" || !strings.Contains(a.Matches[0].Entry, "sanctions: SANCTIONS") {
		t.Fatalf("matches %+v", a.Matches)
	}
	if calls(sim) != 2 {
		t.Fatalf("%d calls, want 2", calls(sim))
	}
	// Cached: the same addresses again ask nothing.
	if again, _ := c.Screen(context.Background(), []screening.Subject{{Field: "sender", Chain: "eth", Address: listed}}); len(again.Matches) != 1 || calls(sim) != 2 {
		t.Fatalf("a cached answer asked again (%d calls) or changed: %+v", calls(sim), again)
	}
	if _, ok := (&Client{}).Screen(context.Background(), nil); ok {
		t.Errorf("a client without a base URL is consulted")
	}
}

func TestScreenUnavailable(t *testing.T) {
	sim, c := rig(t)
	sub := []screening.Subject{{Field: "sender", Chain: "eth", Address: clean}}

	c.APIKey = "wrong"
	if a, _ := c.Screen(context.Background(), sub); !strings.Contains(a.Source.Unavailable, "refused the API key") {
		t.Fatalf("a refused key: %+v", a.Source)
	}
	c.APIKey = "k1"
	sim.SetFault(simulator.SanctionsService, simulator.SanctionsCall, simulator.Fault{Hang: true})
	a, _ := c.Screen(context.Background(), sub)
	if !strings.Contains(a.Source.Unavailable, "did not answer") {
		t.Fatalf("a hanging service: %+v", a.Source)
	}
	// Two failures in a row opened the breaker: the service is not asked any more.
	before := calls(sim)
	sim.SetFault(simulator.SanctionsService, simulator.SanctionsCall, simulator.Fault{})
	a, _ = c.Screen(context.Background(), sub)
	if !strings.Contains(a.Source.Unavailable, "kept failing") || calls(sim) != before {
		t.Fatalf("open breaker: %+v after %d calls (before %d)", a.Source, calls(sim), before)
	}
}

// The addresses of an order are asked in parallel: three answers that each take most of the
// timeout still fit in it.
func TestScreenAsksInParallel(t *testing.T) {
	sim, c := rig(t)
	c.Timeout = 900 * time.Millisecond
	sim.SetFault(simulator.SanctionsService, simulator.SanctionsCall, simulator.Fault{Latency: 400 * time.Millisecond})
	a, _ := c.Screen(context.Background(), []screening.Subject{
		{Field: "sender", Chain: "eth", Address: clean},
		{Field: "recipient", Chain: "eth", Address: "0x2222222222222222222222222222222222222222"},
		{Field: "refundTo", Chain: "eth", Address: listed},
	})
	if a.Source.Unavailable != "" || len(a.Matches) != 1 {
		t.Fatalf("answer %+v", a)
	}
}
