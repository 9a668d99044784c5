package devenv

import (
	"testing"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

func TestDescribeNamesDeclaredAndSpareAccounts(t *testing.T) {
	declared := DefaultProviders(simulator.Options{})
	if got, want := describe(declared, nil), "route_A: oneclick, route_B: channel, relay: relay"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
	spare := []simulator.Instance{SpareOneClick}
	if got, want := describe(declared, spare), "route_A: oneclick, route_B: channel, relay: relay; also oneclick_b: oneclick, for a RoutingProvider to apply"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
	withFourth := append(declared, Provider{ID: SpareOneClick.ID, Protocol: SpareOneClick.Protocol})
	if got, want := describe(withFourth, spare), "route_A: oneclick, route_B: channel, relay: relay, oneclick_b: oneclick"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
}
