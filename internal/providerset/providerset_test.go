package providerset

import (
	"slices"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

type named struct {
	provider.Provider
	id swapv1.ProviderID
}

func (n named) ID() swapv1.ProviderID { return n.id }

func TestSet(t *testing.T) {
	s := New()
	s.Put("route_C", Entry{Provider: named{id: "route_C"}, Enabled: true})
	s.Put(swapv1.ProviderRouteB, Entry{Provider: named{id: swapv1.ProviderRouteB}, Enabled: true})
	s.Put(swapv1.ProviderRouteA, Entry{Provider: named{id: swapv1.ProviderRouteA}, Enabled: false})

	enabledIDs := func() []swapv1.ProviderID {
		var out []swapv1.ProviderID
		for _, e := range s.Enabled() {
			out = append(out, e.Provider.ID())
		}
		return out
	}
	if got := enabledIDs(); !slices.Equal(got, []swapv1.ProviderID{swapv1.ProviderRouteB, "route_C"}) {
		t.Errorf("Enabled() = %v, want [route_B route_C] in id order, without disabled route_A", got)
	}
	if e, ok := s.Get(swapv1.ProviderRouteA); !ok || e.Enabled {
		t.Errorf("Get(route_A) = %+v, %v: disabled entries stay readable", e, ok)
	}
	s.Put(swapv1.ProviderRouteA, Entry{Provider: named{id: swapv1.ProviderRouteA}, Enabled: true})
	s.Delete("route_C")
	if got := enabledIDs(); !slices.Equal(got, []swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB}) {
		t.Errorf("after Put/Delete: Enabled() = %v", got)
	}
	if _, ok := s.Get("route_C"); ok {
		t.Error("deleted entry still present")
	}
}

func TestLoadGate(t *testing.T) {
	s := New()
	if !s.Loaded() {
		t.Fatal("a hand-filled set is not loaded")
	}
	s.ExpectLoad()
	if s.Loaded() {
		t.Fatal("loaded before the RoutingProviders were")
	}
	s.MarkLoaded()
	if !s.Loaded() {
		t.Fatal("not loaded after MarkLoaded")
	}
}
