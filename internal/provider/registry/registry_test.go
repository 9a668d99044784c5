package registry

import (
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/channel"
	"github.com/swaprouter/swaprouter/internal/provider/oneclick"
	"github.com/swaprouter/swaprouter/internal/provider/relay"
)

func TestNew(t *testing.T) {
	cfg := provider.Config{ID: swapv1.ProviderRouteA, Endpoint: "http://127.0.0.1:18080/route_A"}
	p, err := New(swapv1.ProtocolOneClick, cfg)
	if _, ok := p.(*oneclick.Adapter); err != nil || !ok || p.ID() != swapv1.ProviderRouteA {
		t.Fatalf("oneclick: %T, %v", p, err)
	}
	cfg.ID = swapv1.ProviderRouteB
	p, err = New(swapv1.ProtocolChannel, cfg)
	if _, ok := p.(*channel.Adapter); err != nil || !ok || p.ID() != swapv1.ProviderRouteB {
		t.Fatalf("channel: %T, %v", p, err)
	}
	cfg.ID = "relay"
	p, err = New(swapv1.ProtocolRelay, cfg)
	if _, ok := p.(*relay.Adapter); err != nil || !ok || p.ID() != "relay" {
		t.Fatalf("relay: %T, %v", p, err)
	}
	if _, err := New("smoke-signals", cfg); err == nil {
		t.Fatal("unknown protocol accepted")
	}
	if _, err := New(swapv1.ProtocolChannel, provider.Config{Endpoint: "not a url"}); err == nil {
		t.Fatal("bad endpoint accepted")
	}
}

func TestSignsQuotes(t *testing.T) {
	for protocol, want := range map[swapv1.ProviderProtocol]bool{
		swapv1.ProtocolOneClick: true, swapv1.ProtocolChannel: false, swapv1.ProtocolRelay: false, "smoke-signals": false,
	} {
		if got := SignsQuotes(protocol); got != want {
			t.Errorf("SignsQuotes(%s) = %v, want %v", protocol, got, want)
		}
	}
}
