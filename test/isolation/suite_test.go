// Package isolation proves, over real HTTP against the /v1 frontend running in a manager on a
// real kube-apiserver (envtest), that partners cannot see or touch each other's orders,
// deliveries or quota, that every authentication failure looks the same, and that origin
// rules, rate limits, body limits and slow-client protection hold.
package isolation

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver"
	"github.com/swaprouter/swaprouter/controllers"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/routing"
	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// The frontend's slow-client settings in this suite: short, so the specs that wait for them
// stay quick.
const (
	readHeaderTimeout = 500 * time.Millisecond
	readTimeout       = 3 * time.Second
	maxHeaderBytes    = 8 << 10
)

var (
	testEnv   *envtest.Environment
	k8sClient client.Client
	namespace string
	// baseURL is the frontend, e.g. http://127.0.0.1:41234.
	baseURL string
	// frontendOptions built that frontend; specs start further replicas from them.
	frontendOptions apiserver.Options
)

func TestIsolation(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "isolation and abuse suite")
}

var _ = BeforeSuite(func() {
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(50 * time.Millisecond)
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))

	plane, err := testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(plane.Env.Stop)
	testEnv, k8sClient = plane.Env, plane.Client
	cfg := plane.Config

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "isolation-"}}
	Expect(k8sClient.Create(context.Background(), ns)).To(Succeed())
	namespace = ns.Name

	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 scheme.New(),
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(index.Register(context.Background(), mgr.GetFieldIndexer())).To(Succeed())

	frontendOptions = apiserver.Options{
		Addr:               "127.0.0.1:0",
		Namespace:          namespace,
		Client:             mgr.GetClient(),
		APIReader:          mgr.GetAPIReader(),
		Informers:          mgr.GetCache(),
		Catalog:            newCatalog(),
		Router:             quoteEverything{},
		Log:                ctrl.Log.WithName("apiserver"),
		WaitTimeout:        15 * time.Second,
		QuotaFlushInterval: 200 * time.Millisecond,
		ReadHeaderTimeout:  readHeaderTimeout,
		ReadTimeout:        readTimeout,
		MaxHeaderBytes:     maxHeaderBytes,
	}
	srv, err := apiserver.New(frontendOptions)
	Expect(err).NotTo(HaveOccurred())
	Expect(mgr.Add(srv)).To(Succeed())
	Expect(ctrl.NewControllerManagedBy(mgr).Named("stand-in-swaporder").For(&swapv1.SwapOrder{}).
		Complete(&issueAddress{client: mgr.GetClient()})).To(Succeed())
	// Partners' redeliveries are answered by the controllers' own reconciler.
	Expect((&controllers.RedeliveryRequestReconciler{}).SetupWithManager(mgr)).To(Succeed())

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	DeferCleanup(func() {
		cancel()
		Expect(<-done).To(Succeed())
	})
	Eventually(func(g Gomega) {
		g.Expect(srv.Addr()).NotTo(BeEmpty())
		resp, err := http.Get("http://" + srv.Addr() + "/readyz")
		g.Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}).Should(Succeed())
	baseURL = "http://" + srv.Addr()
})

// Assets of the stand-in catalog; route_B routes every pair of them.
const (
	eth  = "eip155:1/slip44:60"
	usdc = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
	sol  = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
)

func newCatalog() *catalog.Catalog {
	c := catalog.New(nil)
	c.SetProviderAssets(swapv1.ProviderRouteB, []provider.Asset{
		{AssetID: eth, Chain: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18},
		{AssetID: usdc, Chain: "eth", Symbol: "USDC", Name: "USD Coin", Decimals: 6},
		{AssetID: sol, Chain: "sol", Symbol: "SOL", Name: "Solana", Decimals: 9},
	})
	return c
}

// quoteEverything answers every quote with one route_B candidate. Isolation is about who sees
// what, not about prices; the real router has its own suites.
type quoteEverything struct{}

func (quoteEverything) Quote(_ context.Context, req provider.QuoteRequest) routing.Result {
	q := provider.Quote{ProviderID: swapv1.ProviderRouteB, AmountIn: req.Amount, AmountOut: req.Amount,
		MinAmountOut: req.Amount, EstimatedTimeSeconds: 60}
	return routing.Result{Candidates: []provider.Quote{q}, Best: &q}
}

func (r quoteEverything) Rates(ctx context.Context, base provider.QuoteRequest, targets []string) []routing.Rate {
	out := make([]routing.Rate, 0, len(targets))
	for _, to := range targets {
		req := base
		req.DestinationAsset = to
		out = append(out, routing.Rate{To: to, Result: r.Quote(ctx, req)})
	}
	return out
}

// issueAddress stands in for the order reconciler (its own suites cover it): a new order gets
// a deposit address and one recorded transition, whose WebhookDelivery it creates, so every
// order of this suite has an order record and a delivery to probe.
type issueAddress struct{ client client.Client }

func (r *issueAddress) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	o := &swapv1.SwapOrder{}
	if err := r.client.Get(ctx, req.NamespacedName, o); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if o.Status.Status == "" {
		now := swapv1.NewPreciseTime(time.Now())
		o.Status.Status = swapv1.OrderPending
		o.Status.StatusReason = "DepositAddressIssued"
		o.Status.DepositAddress = fmt.Sprintf("0xdeposit%s", o.Spec.OrderID[4:16])
		o.Status.LastSeq = 1
		o.Status.History = []swapv1.StatusTransition{{Seq: 1, Status: swapv1.OrderPending, Reason: "DepositAddressIssued", At: now}}
		if err := r.client.Status().Update(ctx, o); err != nil {
			return reconcile.Result{}, err
		}
	}
	for _, t := range o.Status.History {
		d, err := delivery.NewDelivery(o, delivery.EventFor(o, t), 0)
		if err != nil {
			return reconcile.Result{}, err
		}
		if err := r.client.Create(ctx, d); client.IgnoreAlreadyExists(err) != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}
