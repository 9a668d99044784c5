// Package registry is the table of the wire protocols the service speaks: one row per
// protocol, naming its adapter and what partners are told about it.
package registry

import (
	"fmt"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/channel"
	"github.com/swaprouter/swaprouter/internal/provider/oneclick"
	"github.com/swaprouter/swaprouter/internal/provider/relay"
)

// row is one protocol.
type row struct {
	build func(provider.Config) (provider.Provider, error)
	// signsQuotes: the provider signs the quote behind each deposit address and the adapter
	// verifies it (GET /v1/providers says so).
	signsQuotes bool
}

var rows = map[swapv1.ProviderProtocol]row{
	swapv1.ProtocolOneClick: {build: func(c provider.Config) (provider.Provider, error) { return oneclick.New(c) }, signsQuotes: true},
	swapv1.ProtocolChannel:  {build: func(c provider.Config) (provider.Provider, error) { return channel.New(c) }},
	swapv1.ProtocolRelay:    {build: func(c provider.Config) (provider.Provider, error) { return relay.New(c) }},
}

// New returns the adapter for protocol, configured by cfg.
func New(protocol swapv1.ProviderProtocol, cfg provider.Config) (provider.Provider, error) {
	r, ok := rows[protocol]
	if !ok {
		return nil, fmt.Errorf("provider %s: unknown protocol %q", cfg.ID, protocol)
	}
	return r.build(cfg)
}

// SignsQuotes reports whether providers of protocol sign their quotes (and their addresses
// are shown only once the signature verified).
func SignsQuotes(protocol swapv1.ProviderProtocol) bool { return rows[protocol].signsQuotes }
