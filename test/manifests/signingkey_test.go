package manifests

import (
	"strings"
	"testing"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

// config/dev's route-a trusts the key its provider-sim signs quotes with; without it every
// route_A order there would fail ProviderSignatureInvalid.
func TestDevRoutingProviderTrustsTheSimulatorKey(t *testing.T) {
	objs := renderObjects(t, "config/dev")
	sim := find(objs, "Deployment", "provider-sim")
	if sim == nil {
		t.Fatal("config/dev renders no provider-sim")
	}
	for _, arg := range field(sim, "spec", "template", "spec", "containers", 0, "args").([]any) {
		if s, _ := arg.(string); strings.HasPrefix(s, "--seed") {
			t.Fatalf("provider-sim runs with %s; the test (and route-a's key) assume the default seed", s)
		}
	}
	route := find(objs, "RoutingProvider", "route-a")
	if got, want := field(route, "spec", "quoteSigningKey"), simulator.SeedQuotePublicKey(1); got != want {
		t.Errorf("config/dev route-a spec.quoteSigningKey = %v, want the simulator's %s", got, want)
	}
	if samples := find(renderObjects(t, "config/samples"), "RoutingProvider", "route-a"); field(samples, "spec", "quoteSigningKey") == simulator.SeedQuotePublicKey(1) {
		t.Error("config/samples' route-a (the real 1Click) trusts the simulator's key")
	}
}
