// Package privilege shows, on a real kube-apiserver with config/default applied as shipped
// (RBAC, ServiceAccounts and the admission policies of config/admission), what each identity
// of the service can and cannot change: the frontend's and the controllers' ServiceAccounts
// (each running its half of the service), an operator bound to the shipped
// swaprouter-operator role, and a user who may patch orders but is no operator.
package privilege

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/system"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// namespace is config/default's.
const namespace = "swaprouter-system"

// routeAToken is the simulated 1Click JWT: the frontend quotes route_A with it, read from the
// one Secret it may read.
const routeAToken = "route-a-jwt"

var (
	plane *testenv.Plane
	// admin is the envtest administrator (system:masters).
	admin    client.Client
	sim      *simulator.Simulator
	receiver *devenv.Receiver
	// partner calls /v1 with the partner's key, as a partner would.
	partner *partnerapi.Client
	// frontendConfig and controllersConfig authenticate as the shipped ServiceAccounts with
	// TokenRequest tokens; each runs its half of the service.
	frontendConfig, controllersConfig *rest.Config
)

func TestPrivilege(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Privilege")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	SetDefaultEventuallyTimeout(time.Minute)
	SetDefaultEventuallyPollingInterval(50 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	DeferCleanup(cancel)

	var err error
	plane, err = testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(plane.Env.Stop)
	admin, err = client.New(plane.Config, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "admin.kubeconfig")
	Expect(testenv.WriteKubeconfig(kubeconfig, plane.Config)).To(Succeed())
	Expect(testenv.ApplyOverlay(kubeconfig, "config/default")).To(Succeed())

	simOpts := simtest.FastOptions()
	simOpts.RouteAToken = routeAToken
	sim = simulator.New(simOpts)
	simSrv := httptest.NewServer(sim.Handler())
	DeferCleanup(simSrv.Close)
	whsec, err := webhooks.NewSecret()
	Expect(err).NotTo(HaveOccurred())
	receiver = &devenv.Receiver{}
	receiver.SetSecret(whsec)
	receiverSrv := httptest.NewServer(receiver)
	DeferCleanup(receiverSrv.Close)

	// What an operator declares: route_A (its token in the frontend's Secret), a
	// partner whose webhook secret is its own Secret, the sanctions list, and a key.
	Expect(admin.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: auth.FrontendSecret, Namespace: namespace},
		Data:       map[string][]byte{"route-a-token": []byte(routeAToken)},
	})).To(Succeed())
	Expect(admin.Create(ctx, &swapv1.RoutingProvider{
		ObjectMeta: metav1.ObjectMeta{Name: "route-a", Namespace: namespace},
		Spec: swapv1.RoutingProviderSpec{
			ProviderID: swapv1.ProviderRouteA, Protocol: swapv1.ProtocolOneClick, Enabled: true,
			Endpoint:             simSrv.URL + "/" + string(swapv1.ProviderRouteA),
			CredentialsSecretRef: &swapv1.SecretKeyRef{Name: auth.FrontendSecret, Key: "route-a-token"},
			QuoteSigningKey:      sim.QuotePublicKey(),
			Timeout:              metav1.Duration{Duration: 5 * time.Second},
			PollInterval: swapv1.PollInterval{
				Min: metav1.Duration{Duration: 200 * time.Millisecond}, Max: metav1.Duration{Duration: 300 * time.Millisecond},
			},
			AssetRefreshInterval: metav1.Duration{Duration: 5 * time.Minute},
		},
	})).To(Succeed())
	Expect(admin.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "acme-webhook", Namespace: namespace},
		Data:       map[string][]byte{"secret": []byte(whsec)},
	})).To(Succeed())
	Expect(admin.Create(ctx, &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: namespace},
		Spec: swapv1.PartnerSpec{
			RequestsPerMinute: 10000,
			Webhook: &swapv1.PartnerWebhook{
				URL: receiverSrv.URL, Enabled: true, SecretRef: swapv1.SecretKeyRef{Name: "acme-webhook", Key: "secret"},
			},
		},
	})).To(Succeed())
	Expect(devenv.ApplySanctionsList(ctx, admin, namespace)).To(Succeed())
	keyID, secret, err := auth.CreateKey(ctx, admin, namespace, "acme")
	Expect(err).NotTo(HaveOccurred())

	controllersConfig, err = testenv.ServiceAccountConfig(ctx, plane.Config, namespace, "swaprouter-controllers")
	Expect(err).NotTo(HaveOccurred())
	frontendConfig, err = testenv.ServiceAccountConfig(ctx, plane.Config, namespace, "swaprouter-frontend")
	Expect(err).NotTo(HaveOccurred())

	o := system.DefaultOptions()
	o.Namespace = namespace
	o.ProbeAddr, o.MetricsAddr, o.MetricsSecure = "0", "0", false
	o.AllowLoopbackWebhooks = true
	o.OrderTTL = time.Hour
	controllers, frontend := o, o
	controllers.Frontend = false
	frontend.Controllers, frontend.FrontendAddr = false, "127.0.0.1:0"
	run(ctx, controllersConfig, controllers)
	fe := run(ctx, frontendConfig, frontend)
	Eventually(fe.Frontend.Addr).ShouldNot(BeEmpty())
	partner = partnerapi.New("http://"+fe.Frontend.Addr(), keyID, secret)
	Eventually(func(g Gomega) int {
		r, err := partner.API.SwappableTargetsWithResponse(ctx, &swapclient.SwappableTargetsParams{From: partnerapi.ETH})
		g.Expect(err).NotTo(HaveOccurred())
		return r.StatusCode()
	}).Should(Equal(http.StatusOK), "the frontend knows the key and the providers")
})

// run starts a manager as cfg's identity until the suite ends.
func run(ctx context.Context, cfg *rest.Config, o system.Options) *system.System {
	GinkgoHelper()
	sys, err := system.New(cfg, o)
	Expect(err).NotTo(HaveOccurred())
	ctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sys.Manager.Start(ctx) }()
	DeferCleanup(func() {
		stop()
		Expect(<-done).To(Succeed())
	})
	return sys
}

// requests are an order's annotations beyond the creation time the frontend stamps on it:
// what anyone asked of the order since.
func requests(o *swapv1.SwapOrder) map[string]string {
	out := maps.Clone(o.Annotations)
	delete(out, swapv1.AnnotationCreatedAt)
	return out
}
