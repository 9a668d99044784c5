package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/budget"
	"github.com/swaprouter/swaprouter/internal/provider/registry"
	"github.com/swaprouter/swaprouter/internal/providerset"
)

// scriptedAdapter stands in for a real adapter where a spec tests the reconciler's own
// decisions: its endpoint says how the provider behaves, and it lists three assets when it
// answers.
type scriptedAdapter struct {
	provider.Provider // only ID and Assets are called by the reconciler
	cfg               provider.Config
}

const scriptedToken = "good-token"

func newScriptedAdapter(_ swapv1.ProviderProtocol, cfg provider.Config) (provider.Provider, error) {
	if strings.Contains(cfg.Endpoint, "invalid-config") {
		return nil, fmt.Errorf("provider %s: endpoint %q is not usable", cfg.ID, cfg.Endpoint)
	}
	return &scriptedAdapter{cfg: cfg}, nil
}

func (a *scriptedAdapter) ID() swapv1.ProviderID { return a.cfg.ID }

func (a *scriptedAdapter) Quote(context.Context, provider.QuoteRequest) (provider.Quote, error) {
	return provider.Quote{ProviderID: a.cfg.ID, AmountIn: "1", AmountOut: "1"}, nil
}

func (a *scriptedAdapter) Assets(context.Context) ([]provider.Asset, error) {
	path := &provider.Upstream{Path: "GET /assets"}
	switch {
	case strings.Contains(a.cfg.Endpoint, "unreachable"):
		return nil, &provider.Error{Provider: a.cfg.ID, Kind: provider.KindUpstream, Detail: "provider unreachable", Upstream: path}
	case strings.Contains(a.cfg.Endpoint, "needs-token") && a.cfg.Token != scriptedToken:
		path.Status = 401
		return nil, &provider.Error{Provider: a.cfg.ID, Kind: provider.KindRefused, Detail: "invalid token", Upstream: path}
	}
	return []provider.Asset{
		{AssetID: "eip155:1/slip44:60", Chain: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18},
		{AssetID: "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", Chain: "eth", Symbol: "USDC", Name: "USD Coin", Decimals: 6},
		{AssetID: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", Chain: "sol", Symbol: "SOL", Name: "Solana", Decimals: 9},
	}, nil
}

// unwrapAdapter looks through wrappers such as the metrics one.
func unwrapAdapter(p provider.Provider) provider.Provider {
	for {
		u, ok := p.(interface{ Unwrap() provider.Provider })
		if !ok {
			return p
		}
		p = u.Unwrap()
	}
}

// providerHarness is a manager running only the RoutingProvider reconciler, with the
// in-memory state it fills.
type providerHarness struct {
	providers *providerset.Set
	catalog   *catalog.Catalog
	*timers[*swapv1.RoutingProvider]
}

func startRoutingProviderManager(factory ProviderFactory) *providerHarness {
	mgr := newTestManager()
	h := &providerHarness{providers: providerset.New(), catalog: catalog.New(nil), timers: newTimers[*swapv1.RoutingProvider](nil)}
	r := &RoutingProviderReconciler{Providers: h.providers, Catalog: h.catalog, NewProvider: factory, Budgets: budget.New(nil),
		Client: h.client(mgr.GetClient()), Now: h.clock.Now, Wake: h.wake.source()}
	Expect(r.SetupWithManager(mgr)).To(Succeed())
	runTestManager(mgr)
	return h
}

// assetsOf counts the catalog's assets that provider id routes.
func (h *providerHarness) assetsOf(id swapv1.ProviderID) int {
	n := 0
	for _, a := range h.catalog.List("", "") {
		if slices.Contains(a.Providers, id) {
			n++
		}
	}
	return n
}

// sharedAssets counts the catalog's assets that both a and b route.
func (h *providerHarness) sharedAssets(a, b swapv1.ProviderID) int {
	n := 0
	for _, as := range h.catalog.List("", "") {
		if slices.Contains(as.Providers, a) && slices.Contains(as.Providers, b) {
			n++
		}
	}
	return n
}

func (h *providerHarness) enabledIDs() []swapv1.ProviderID {
	var ids []swapv1.ProviderID
	for _, e := range h.providers.Enabled() {
		ids = append(ids, e.Provider.ID())
	}
	return ids
}

// catalogProviders is every provider id the catalog lists an asset for.
func (h *providerHarness) catalogProviders() []swapv1.ProviderID {
	seen := map[swapv1.ProviderID]bool{}
	var ids []swapv1.ProviderID
	for _, a := range h.catalog.List("", "") {
		for _, p := range a.Providers {
			if !seen[p] {
				seen[p] = true
				ids = append(ids, p)
			}
		}
	}
	return ids
}

func newProviderNamespace() string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "rp-"}}
	Expect(k8sClient.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}

// createRoutingProvider creates rp and deletes it when the spec ends. RoutingProviders claim
// provider ids cluster-wide, so none may outlive its spec (envtest has no namespace cleanup).
func createRoutingProvider(rp *swapv1.RoutingProvider) {
	ctx := context.Background()
	Expect(k8sClient.Create(ctx, rp)).To(Succeed())
	DeferCleanup(func() {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, rp))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(rp), &swapv1.RoutingProvider{}))
		}).Should(BeTrue())
	})
}

func routingProvider(ns, name string, id swapv1.ProviderID, protocol swapv1.ProviderProtocol, endpoint string) *swapv1.RoutingProvider {
	return &swapv1.RoutingProvider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: swapv1.RoutingProviderSpec{
			ProviderID: id, Protocol: protocol, Endpoint: endpoint, Enabled: true,
			Timeout: metav1.Duration{Duration: 2 * time.Second},
		},
	}
}

// setEnabled updates spec.enabled on the latest version (status writes race with the test).
func setEnabled(rp *swapv1.RoutingProvider, enabled bool) {
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(rp), rp)).To(Succeed())
		rp.Spec.Enabled = enabled
		g.Expect(k8sClient.Update(context.Background(), rp)).To(Succeed())
	}).Should(Succeed())
}

// readyOf returns the Ready condition of the stored object (nil until there is one).
func readyOf(g Gomega, rp *swapv1.RoutingProvider) *metav1.Condition {
	var got swapv1.RoutingProvider
	g.Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(rp), &got)).To(Succeed())
	*rp = got
	return meta.FindStatusCondition(got.Status.Conditions, swapv1.ConditionReady)
}

func haveReady(status metav1.ConditionStatus, reason string) OmegaMatcher {
	return And(Not(BeNil()),
		HaveField("Status", status), HaveField("Reason", reason))
}

var _ = Describe("RoutingProvider reconciler", func() {
	ctx := context.Background()

	Context("with a scripted provider", func() {
		var h *providerHarness
		var ns string
		BeforeEach(func() {
			h = startRoutingProviderManager(newScriptedAdapter)
			ns = newProviderNamespace()
		})

		It("probes the provider, fills set and catalog, and reports Ready with the asset count", func() {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://provider.example/route_A")
			createRoutingProvider(rp)

			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionTrue, ReasonProviderAssetsListed))
			}).Should(Succeed())
			Expect(rp.Status.AssetCount).To(BeEquivalentTo(3))
			Expect(rp.Status.LastRefresh).NotTo(BeNil())
			Expect(rp.Status.ObservedGeneration).To(Equal(rp.Generation))
			Expect(meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady).Message).To(Equal("3 assets listed"))

			Expect(h.enabledIDs()).To(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))
			e, ok := h.providers.Get(swapv1.ProviderRouteA)
			Expect(ok).To(BeTrue())
			Expect(e.Timeout).To(Equal(2 * time.Second))
			Expect(e.PollMin).To(Equal(10 * time.Second)) // CRD default
			Expect(e.PollMax).To(Equal(15 * time.Second))
			Expect(h.catalog.List("", "")).To(HaveLen(3))
			Expect(h.catalog.ProvidersFor("eip155:1/slip44:60", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501")).
				To(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))
		})

		It("enforces spec.callBudget on the adapter's calls and lifts it when the budget is removed", func() {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://provider.example/route_A")
			rp.Spec.CallBudget = &swapv1.ProviderCallBudget{RequestsPerSecond: 1, Burst: 1}
			createRoutingProvider(rp)
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionTrue, ReasonProviderAssetsListed))
			}).Should(Succeed())
			// Ten quotes back to back: one token, then refusals that say why.
			refused := func() int {
				e, _ := h.providers.Get(swapv1.ProviderRouteA)
				n := 0
				for range 10 {
					if _, err := e.Provider.Quote(ctx, provider.QuoteRequest{}); err != nil {
						Expect(err).To(MatchError(budget.ErrExhausted))
						Expect(provider.IsKind(err, provider.KindUnavailable)).To(BeTrue())
						n++
					}
				}
				return n
			}
			Expect(refused()).To(BeNumerically(">", 0))

			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(rp), rp)).To(Succeed())
				rp.Spec.CallBudget = nil
				g.Expect(k8sClient.Update(ctx, rp)).To(Succeed())
			}).Should(Succeed())
			Eventually(refused).Should(BeZero())
		})

		It("reports an unreachable provider with a stable reason and keeps it out of the catalog", func() {
			rp := routingProvider(ns, "route-b", swapv1.ProviderRouteB, swapv1.ProtocolChannel, "http://unreachable.example/route_B")
			createRoutingProvider(rp)

			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionFalse, ReasonProviderUnavailable))
			}).Should(Succeed())
			cond := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady)
			Expect(cond.Message).To(Equal("listing assets failed: upstream error (GET /assets): provider unreachable"))
			Expect(rp.Status.LastRefresh).To(BeNil())
			Expect(h.catalogProviders()).To(BeEmpty())
			// The adapter stays in the set: orders already with this provider are still tracked.
			_, ok := h.providers.Get(swapv1.ProviderRouteB)
			Expect(ok).To(BeTrue())

			// The retry (due 5 s later) fails the same way and rewrites nothing.
			rv := rp.ResourceVersion
			h.look(rp, minProviderProbeRetry)
			readyOf(Default, rp)
			Expect(rp.ResourceVersion).To(Equal(rv))
		})

		It("reports a spec the adapter cannot use as InvalidConfiguration", func() {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://invalid-config.example/")
			createRoutingProvider(rp)
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionFalse, ReasonProviderInvalidConfiguration))
			}).Should(Succeed())
			Expect(h.catalogProviders()).To(BeEmpty())
		})

		It("takes a disabled provider out of Enabled() and the catalog, and back in when enabled", func() {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://provider.example/route_A")
			createRoutingProvider(rp)
			Eventually(h.enabledIDs).Should(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))
			Eventually(h.catalogProviders).Should(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))

			setEnabled(rp, false)
			Eventually(h.enabledIDs).Should(BeEmpty())
			Eventually(h.catalogProviders).Should(BeEmpty())
			e, ok := h.providers.Get(swapv1.ProviderRouteA)
			Expect(ok).To(BeTrue(), "a disabled provider still tracks its orders")
			Expect(e.Enabled).To(BeFalse())
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionFalse, ReasonProviderDisabled))
			}).Should(Succeed())

			setEnabled(rp, true)
			Eventually(h.enabledIDs).Should(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))
			Eventually(h.catalogProviders).Should(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))
		})

		It("keeps the last known assets, marked stale, while a provider that listed them fails", func() {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://provider.example/route_A")
			createRoutingProvider(rp)
			Eventually(func() int { return h.assetsOf(swapv1.ProviderRouteA) }).Should(Equal(3))

			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(rp), rp)).To(Succeed())
				rp.Spec.Endpoint = "http://unreachable.example/route_A"
				g.Expect(k8sClient.Update(ctx, rp)).To(Succeed())
			}).Should(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionFalse, ReasonProviderUnavailable))
			}).Should(Succeed())
			// Partners still find every asset it listed, flagged stale; no outage is reported
			// because its assets are known.
			Expect(h.assetsOf(swapv1.ProviderRouteA)).To(Equal(3))
			for _, a := range h.catalog.List("", "") {
				Expect(a.Stale).To(BeTrue(), a.AssetID)
			}
			_, outage := h.catalog.Outage()
			Expect(outage).NotTo(HaveOccurred())
		})

		It("removes a deleted provider from set and catalog", func() {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://provider.example/route_A")
			createRoutingProvider(rp)
			Eventually(h.catalogProviders).Should(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))

			Expect(k8sClient.Delete(ctx, rp)).To(Succeed())
			Eventually(func() bool {
				_, ok := h.providers.Get(swapv1.ProviderRouteA)
				return ok
			}).Should(BeFalse())
			Expect(h.catalogProviders()).To(BeEmpty())
		})

		It("holds a deleted provider until its live orders end, tracking them but taking no new ones", func() {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://provider.example/route_A")
			createRoutingProvider(rp)
			Eventually(h.catalogProviders).Should(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))
			id := newOrderID()
			live := &swapv1.SwapOrder{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: orderid.ObjectName(id)},
				Spec: swapv1.SwapOrderSpec{OrderID: id, Partner: "acme", ProviderID: swapv1.ProviderRouteA,
					OriginAsset: "eip155:1/slip44:60", DestinationAsset: "eip155:42161/slip44:60", Amount: "1", Sender: "a", Recipient: "b"},
			}
			Expect(k8sClient.Create(ctx, live)).To(Succeed())
			Eventually(func(g Gomega) []string {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(rp), rp)).To(Succeed())
				return rp.Finalizers
			}).Should(ContainElement(FinalizerLiveOrders))

			Expect(k8sClient.Delete(ctx, rp)).To(Succeed())
			Eventually(func(g Gomega) *metav1.Condition { return readyOf(g, rp) }).Should(And(
				haveReady(metav1.ConditionFalse, ReasonProviderDeletionWaits), HaveField("Message", ContainSubstring(id))))
			entry, ok := h.providers.Get(swapv1.ProviderRouteA)
			Expect(ok).To(BeTrue(), "its orders are still tracked")
			Expect(entry.Enabled).To(BeFalse(), "no quotes, no new orders")
			Expect(h.catalogProviders()).To(BeEmpty())

			patch := client.MergeFrom(live.DeepCopy())
			live.Status.Status, live.Status.StatusReason = swapv1.OrderFailed, "ProviderRefused"
			Expect(k8sClient.Status().Patch(ctx, live, patch)).To(Succeed())
			Eventually(func() bool {
				return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(rp), &swapv1.RoutingProvider{}))
			}).Should(BeTrue())
			Eventually(func() bool { _, ok := h.providers.Get(swapv1.ProviderRouteA); return ok }).Should(BeFalse())
		})

		It("follows its credentials Secret", func() {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://needs-token.example/route_A")
			rp.Spec.CredentialsSecretRef = &swapv1.SecretKeyRef{Name: "route-a-token", Key: "token"}
			createRoutingProvider(rp)
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionFalse, ReasonProviderCredentialsNotFound))
			}).Should(Succeed())

			secret := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "route-a-token"},
				Data:       map[string][]byte{"token": []byte("wrong-token")},
			}
			Expect(k8sClient.Create(ctx, secret)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionFalse, ReasonProviderRefused))
			}).Should(Succeed())

			// Fixing the Secret is noticed through the watch, well before the 5 s retry.
			secret.Data["token"] = []byte(scriptedToken + "\n")
			Expect(k8sClient.Update(ctx, secret)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionTrue, ReasonProviderAssetsListed))
			}).WithTimeout(4 * time.Second).Should(Succeed())
		})

		It("serves a providerId from its oldest RoutingProvider; a duplicate takes over when it goes", func() {
			first := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://provider.example/first")
			createRoutingProvider(first)
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, first)).To(haveReady(metav1.ConditionTrue, ReasonProviderAssetsListed))
			}).Should(Succeed())

			second := routingProvider(newProviderNamespace(), "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, "http://provider.example/second")
			createRoutingProvider(second)
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, second)).To(haveReady(metav1.ConditionFalse, ReasonProviderDuplicateID))
			}).Should(Succeed())
			endpoint := func() string {
				e, _ := h.providers.Get(swapv1.ProviderRouteA)
				if e.Provider == nil {
					return ""
				}
				return unwrapAdapter(e.Provider).(*scriptedAdapter).cfg.Endpoint
			}
			// second's DuplicateID says the reconciler has looked at both.
			Expect(endpoint()).To(Equal("http://provider.example/first"))

			Expect(k8sClient.Delete(ctx, first)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, second)).To(haveReady(metav1.ConditionTrue, ReasonProviderAssetsListed))
			}).WithTimeout(10 * time.Second).Should(Succeed())
			Expect(endpoint()).To(Equal("http://provider.example/second"))
			Expect(h.catalogProviders()).To(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA}))
		})
	})

	Context("against the simulator over HTTP", func() {
		const routeAToken = "sim-route-a-token"
		var h *providerHarness
		var ns string
		var sim *simulator.Simulator
		var simURL string
		BeforeEach(func() {
			sim = simulator.New(simulator.Options{
				RouteAToken: routeAToken,
				Logger:      slog.New(slog.NewTextHandler(GinkgoWriter, nil)),
			})
			srv := httptest.NewServer(sim.Handler())
			DeferCleanup(srv.Close)
			simURL = srv.URL
			h = startRoutingProviderManager(registry.New)
			ns = newProviderNamespace()
			Expect(k8sClient.Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "route-a-token"},
				Data:       map[string][]byte{"token": []byte(routeAToken)},
			})).To(Succeed())
		})

		routeA := func() *swapv1.RoutingProvider {
			rp := routingProvider(ns, "route-a", swapv1.ProviderRouteA, swapv1.ProtocolOneClick, simURL+"/route_A")
			rp.Spec.CredentialsSecretRef = &swapv1.SecretKeyRef{Name: "route-a-token", Key: "token"}
			rp.Spec.QuoteSigningKey = sim.QuotePublicKey()
			return rp
		}

		It("lists both providers' assets and reports each one Ready with its asset count", func() {
			a, b := routeA(), routingProvider(ns, "route-b", swapv1.ProviderRouteB, swapv1.ProtocolChannel, simURL+"/route_B")
			createRoutingProvider(a)
			createRoutingProvider(b)
			for _, rp := range []*swapv1.RoutingProvider{a, b} {
				Eventually(func(g Gomega) {
					g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionTrue, ReasonProviderAssetsListed))
				}).Should(Succeed())
				Expect(rp.Status.AssetCount).To(BeNumerically(">", 0))
				Expect(rp.Status.AssetCount).To(BeEquivalentTo(h.assetsOf(rp.Spec.ProviderID)),
					"%s: status counts what the catalog holds", rp.Spec.ProviderID)
				Expect(rp.Status.LastRefresh).NotTo(BeNil())
			}
			Expect(h.enabledIDs()).To(Equal([]swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB}))
			// Some pairs both providers route.
			Expect(h.sharedAssets(swapv1.ProviderRouteA, swapv1.ProviderRouteB)).To(BeNumerically(">=", 2))
		})

		It("reports a refused token and a failing provider with stable reasons", func() {
			rp := routeA()
			rp.Spec.CredentialsSecretRef = &swapv1.SecretKeyRef{Name: "route-a-wrong", Key: "token"}
			Expect(k8sClient.Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "route-a-wrong"},
				Data:       map[string][]byte{"token": []byte("not-the-token")},
			})).To(Succeed())
			createRoutingProvider(rp)
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionFalse, ReasonProviderRefused))
			}).Should(Succeed())

			b := routingProvider(ns, "route-b", swapv1.ProviderRouteB, swapv1.ProtocolChannel, simURL+"/route_B")
			sim.SetFault(swapv1.ProviderRouteB, simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: 503})
			createRoutingProvider(b)
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, b)).To(haveReady(metav1.ConditionFalse, ReasonProviderUnavailable))
			}).Should(Succeed())
			Expect(meta.FindStatusCondition(b.Status.Conditions, swapv1.ConditionReady).Message).To(ContainSubstring("answered 503"))
			Expect(h.catalogProviders()).To(BeEmpty())

			// The provider recovers: the next retry (5 s after the first failure) finds it.
			sim.ClearFaults()
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, b)).To(haveReady(metav1.ConditionTrue, ReasonProviderAssetsListed))
			}).WithTimeout(15 * time.Second).Should(Succeed())
		})

		It("reports an unreachable endpoint as ProviderUnavailable with a message free of ports", func() {
			rp := routingProvider(ns, "route-b", swapv1.ProviderRouteB, swapv1.ProtocolChannel, "http://127.0.0.1:1/route_B")
			createRoutingProvider(rp)
			Eventually(func(g Gomega) {
				g.Expect(readyOf(g, rp)).To(haveReady(metav1.ConditionFalse, ReasonProviderUnavailable))
			}).Should(Succeed())
			msg := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady).Message
			Expect(msg).To(HavePrefix("listing assets failed: upstream error"))
			Expect(msg).NotTo(ContainSubstring("127.0.0.1"))
		})
	})
})
