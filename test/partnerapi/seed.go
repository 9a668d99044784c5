package partnerapi

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// Declared is what Declare made: the partner's API key.
type Declared struct{ KeyID, Secret string }

// Declare declares what an operator declares in git for a whole-system run: two providers
// (route-a speaking 1Click, trusting quoteSigningKey, route-b the Chainflip protocol) at
// simulatorURL/<providerId>, polled every pollMin to pollMax, the partner with its webhook
// to receiverURL, signed with a fresh secret that receiver verifies, and the sanctions list;
// then it issues the partner's key. The suite that uses it (test/topology)
// holds replicas, restarts and pods to the orders they name, route_A's and route_B's; Relay's
// journeys are test/e2e's, against the dev system's three providers.
func Declare(ctx context.Context, c client.Client, namespace, partner, simulatorURL, quoteSigningKey, receiverURL string,
	pollMin, pollMax time.Duration, receiver *devenv.Receiver) (Declared, error) {
	whSecret, err := webhooks.NewSecret()
	if err != nil {
		return Declared{}, err
	}
	receiver.SetSecret(whSecret)
	if err := c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: partner + "-webhook", Namespace: namespace},
		Data:       map[string][]byte{"secret": []byte(whSecret)},
	}); err != nil {
		return Declared{}, err
	}
	for _, p := range []struct {
		name     string
		id       swapv1.ProviderID
		protocol swapv1.ProviderProtocol
	}{{"route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick}, {"route-b", swapv1.ProviderRouteB, swapv1.ProtocolChannel}} {
		rp := &swapv1.RoutingProvider{
			ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: namespace},
			Spec: swapv1.RoutingProviderSpec{
				ProviderID: p.id, Protocol: p.protocol, Endpoint: simulatorURL + "/" + string(p.id), Enabled: true,
				Timeout:              metav1.Duration{Duration: 5 * time.Second},
				PollInterval:         swapv1.PollInterval{Min: metav1.Duration{Duration: pollMin}, Max: metav1.Duration{Duration: pollMax}},
				AssetRefreshInterval: metav1.Duration{Duration: 5 * time.Minute},
			},
		}
		if p.protocol == swapv1.ProtocolOneClick {
			rp.Spec.QuoteSigningKey = quoteSigningKey
		}
		if err := c.Create(ctx, rp); err != nil {
			return Declared{}, err
		}
	}
	if err := c.Create(ctx, &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: partner, Namespace: namespace},
		Spec: swapv1.PartnerSpec{
			DisplayName: "Whole-system partner", RequestsPerMinute: 100000,
			Webhook: &swapv1.PartnerWebhook{URL: receiverURL, Enabled: true, SecretRef: swapv1.SecretKeyRef{Name: partner + "-webhook", Key: "secret"}},
		},
	}); err != nil {
		return Declared{}, err
	}
	if err := devenv.ApplySanctionsList(ctx, c, namespace); err != nil {
		return Declared{}, err
	}
	keyID, secret, err := auth.CreateKey(ctx, c, namespace, partner)
	return Declared{KeyID: keyID, Secret: secret}, err
}
