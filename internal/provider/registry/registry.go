// Package registry builds the adapter a RoutingProvider's protocol names.
package registry

import (
	"fmt"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/channel"
	"github.com/swaprouter/swaprouter/internal/provider/oneclick"
	"github.com/swaprouter/swaprouter/internal/provider/relay"
)

// New returns the adapter for protocol, configured by cfg.
func New(protocol swapv1.ProviderProtocol, cfg provider.Config) (provider.Provider, error) {
	switch protocol {
	case swapv1.ProtocolOneClick:
		return oneclick.New(cfg)
	case swapv1.ProtocolChannel:
		return channel.New(cfg)
	case swapv1.ProtocolRelay:
		return relay.New(cfg)
	}
	return nil, fmt.Errorf("provider %s: unknown protocol %q", cfg.ID, protocol)
}
