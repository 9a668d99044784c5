package devenv

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

// Provider is a RoutingProvider of the dev system: an account the simulator serves under
// /<ID>.
type Provider struct {
	// Name is the RoutingProvider's name; its credentials Secret is <Name>-credentials.
	Name        string
	DisplayName string
	ID          swapv1.ProviderID
	Protocol    swapv1.ProviderProtocol
	// Token is the account's credential (1Click's bearer token, Relay's API key); empty: none.
	Token string
}

// DefaultProviders are the dev system's three, in this order: route_A (1Click), route_B
// (Chainflip) and relay, with the credentials sim requires.
func DefaultProviders(sim simulator.Options) []Provider {
	return []Provider{
		{Name: "route-a", DisplayName: "NEAR Intents", ID: swapv1.ProviderRouteA, Protocol: swapv1.ProtocolOneClick, Token: sim.RouteAToken},
		{Name: "route-b", DisplayName: "Chainflip", ID: swapv1.ProviderRouteB, Protocol: swapv1.ProtocolChannel},
		{Name: "relay", DisplayName: "Relay", ID: simulator.Relay, Protocol: swapv1.ProtocolRelay, Token: sim.RelayAPIKey},
	}
}

// providers are the RoutingProviders Start declares.
func (o EnvOptions) providers() []Provider {
	if o.Providers == nil {
		return DefaultProviders(o.Simulator)
	}
	return o.Providers
}

// describe is "route_A: oneclick, route_B: channel, relay: relay", then the simulator's
// accounts no RoutingProvider declares yet ("; also oneclick_b: oneclick, for a RoutingProvider
// to apply").
func describe(ps []Provider, instances []simulator.Instance) string {
	var declared, spare []string
	for _, p := range ps {
		declared = append(declared, string(p.ID)+": "+string(p.Protocol))
	}
	for _, in := range instances {
		if !slices.ContainsFunc(ps, func(p Provider) bool { return p.ID == in.ID }) {
			spare = append(spare, string(in.ID)+": "+string(in.Protocol))
		}
	}
	out := strings.Join(declared, ", ")
	if len(spare) > 0 {
		out += "; also " + strings.Join(spare, ", ") + ", for a RoutingProvider to apply"
	}
	return out
}

// ApplyProvider declares p as an operator's `kubectl apply` would, pointed at the simulator's
// /<ID> (a running system picks it up without a restart): its credentials Secret, then the
// RoutingProvider, enabled.
func (e *Env) ApplyProvider(ctx context.Context, p Provider) error {
	credentials := p.Name + "-credentials"
	if p.Token != "" {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: credentials, Namespace: e.Namespace}}
		if _, err := controllerutil.CreateOrUpdate(ctx, e.Client, s, func() error {
			s.StringData = map[string]string{"token": p.Token}
			return nil
		}); err != nil {
			return fmt.Errorf("%s credentials: %w", p.ID, err)
		}
	}
	rp := &swapv1.RoutingProvider{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: e.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, e.Client, rp, func() error {
		rp.Spec = swapv1.RoutingProviderSpec{
			ProviderID:  p.ID,
			DisplayName: p.DisplayName,
			Protocol:    p.Protocol,
			Endpoint:    e.SimulatorURL + "/" + string(p.ID),
			Timeout:     metav1.Duration{Duration: 5 * time.Second},
			PollInterval: swapv1.PollInterval{
				Min: metav1.Duration{Duration: e.pollMin}, Max: metav1.Duration{Duration: e.pollMax},
			},
			AssetRefreshInterval: metav1.Duration{Duration: 5 * time.Minute},
			Enabled:              true,
		}
		if p.Protocol == swapv1.ProtocolOneClick {
			rp.Spec.QuoteSigningKey = e.Simulator.QuotePublicKey()
		}
		if p.Token != "" {
			rp.Spec.CredentialsSecretRef = &swapv1.SecretKeyRef{Name: credentials, Key: "token"}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("RoutingProvider %s: %w", p.Name, err)
	}
	return nil
}
