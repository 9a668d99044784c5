package controllers

import (
	"errors"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/oneclick"
)

var errNoAdapter = errors.New("no adapter for this provider in the tree yet")

// newTestAdapter builds the adapter the RoutingProvider of id would get.
// TODO(registry): registry.New(protocol, cfg) once internal/provider/registry lands, with
// route_B on the channel adapter.
func newTestAdapter(id swapv1.ProviderID, cfg provider.Config) (provider.Provider, error) {
	if id == swapv1.ProviderRouteA {
		return oneclick.New(cfg)
	}
	return nil, errNoAdapter
}
