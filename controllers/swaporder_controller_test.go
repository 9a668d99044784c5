package controllers

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/config"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/postgres"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
	"github.com/swaprouter/swaprouter/internal/provider/registry"
	"github.com/swaprouter/swaprouter/internal/providerset"
	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/testing/metricsum"
	"github.com/swaprouter/swaprouter/internal/testing/testclock"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// orderRig is one namespace with the real simulator on 127.0.0.1, adapters built by the
// registry, and a manager running only the SwapOrder reconciler.
type orderRig struct {
	ns        string
	sim       *simulator.Simulator
	url       string
	providers *providerset.Set
	stop      func()
	archive   OrderArchiver
	ttl       time.Duration
	health    *health.Tracker
	// routingProviders, when set, runs in the manager too (it then loads providers).
	routingProviders *RoutingProviderReconciler
	// config is how the manager reaches the control plane (cfg unless set).
	config *rest.Config
	// deliveries, when set, runs in the manager too (it then delivers the order's webhooks).
	deliveries *WebhookDeliveryReconciler
	// r is the reconciler of the manager running now; registry holds its metrics.
	r        *SwapOrderReconciler
	registry *prometheus.Registry
	// timers are the reconciler's (and the TTL sweeper's) clock, Wake and passes.
	*timers[*swapv1.SwapOrder]
}

type orderRigOptions struct {
	sim              simulator.Options
	pollMin, pollMax time.Duration
	tune             func(r *SwapOrderReconciler)
	// archive, when set, receives terminal orders; the TTL sweep deletes them after ttl.
	archive OrderArchiver
	ttl     time.Duration
	// health, when set, guards every adapter with its circuit breaker (as the
	// RoutingProvider reconciler does).
	health *health.Tracker
	// wrap, when set, wraps the reconciler's client.
	wrap func(client.WithWatch) client.Client
	// config, when set, replaces cfg for the manager (e.g. one that counts requests).
	config *rest.Config
	// deliveries, when set, runs the WebhookDelivery reconciler in the same manager.
	deliveries *WebhookDeliveryReconciler
	// clock, when set, is the reconciler's clock (a spec that moves the simulator's clock
	// with it gives it as sim.Now too); else the rig's own.
	clock *testclock.Clock
}

func fastSim() simulator.Options {
	return simulator.Options{
		StepDelay: 100 * time.Millisecond, RefundDelay: 400 * time.Millisecond, DepositWindow: time.Minute,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func newOrderRig(o orderRigOptions) *orderRig {
	GinkgoHelper()
	if o.pollMin == 0 {
		o.pollMin, o.pollMax = 200*time.Millisecond, 300*time.Millisecond
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "orders-"}}
	Expect(k8sClient.Create(context.Background(), ns)).To(Succeed())

	sim := simulator.New(o.sim)
	srv := httptest.NewServer(sim.Handler())
	DeferCleanup(srv.Close)

	rig := &orderRig{ns: ns.Name, sim: sim, url: srv.URL, archive: o.archive, ttl: o.ttl, health: o.health,
		config: cmp.Or(o.config, cfg), deliveries: o.deliveries,
		timers: newTimers[*swapv1.SwapOrder](o.clock)}
	rig.setProviders(o.pollMin, o.pollMax)
	rig.start(o.tune, o.wrap)
	DeferCleanup(func() { rig.stop() })
	return rig
}

// protocols is what each provider's RoutingProvider would declare.
var protocols = map[swapv1.ProviderID]swapv1.ProviderProtocol{
	swapv1.ProviderRouteA: swapv1.ProtocolOneClick, swapv1.ProviderRouteB: swapv1.ProtocolChannel,
}

// setProviders fills a fresh providerset with the registry's adapter per provider, speaking
// to the simulator over HTTP, instrumented as the RoutingProvider reconciler does.
func (g *orderRig) setProviders(pollMin, pollMax time.Duration) {
	GinkgoHelper()
	g.providers = providerset.New()
	for _, id := range []swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB} {
		p, err := registry.New(protocols[id], provider.Config{ID: id, Endpoint: g.url + "/" + string(id), Timeout: 2 * time.Second,
			QuoteSigningKey: g.sim.QuotePublicKey()})
		Expect(err).NotTo(HaveOccurred())
		adapter := providermetrics.New(nil).Instrument(p, nil)
		if g.health != nil {
			adapter = health.Guard(adapter, g.health)
		}
		g.providers.Put(id, providerset.Entry{Provider: adapter, Enabled: true, PollMin: pollMin, PollMax: pollMax})
	}
}

// start runs a fresh manager; wrap, when set, wraps the reconciler's client.
func (g *orderRig) start(tune func(*SwapOrderReconciler), wrap func(client.WithWatch) client.Client) {
	GinkgoHelper()
	mgr, err := manager.New(g.config, manager.Options{
		Scheme: scheme.New(),
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{g.ns: {}},
			// As in production: finished deliveries are cached without their payload, and
			// archived orders are not cached at all.
			ByObject: map[client.Object]cache.ByObject{
				&swapv1.WebhookDelivery{}: {Transform: delivery.CacheTransform},
				&swapv1.SwapOrder{}:       {Label: liveOrders},
			}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(index.Register(context.Background(), mgr.GetFieldIndexer())).To(Succeed())
	r := &SwapOrderReconciler{
		Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Providers: g.providers,
		ExpiryGrace: 2 * time.Second, UnknownAfter: 3,
		RetryBase: 100 * time.Millisecond, RetryMax: time.Second, PollBackoffMax: time.Second,
		// The default minute at the 50× compression of the polls (200–300 ms for 10–15 s).
		ProviderIssueAfter: 1200 * time.Millisecond, Health: g.health,
		Now: g.clock.Now, Wake: g.wake.source(),
	}
	// Each manager its own registry: specs run many managers in one process.
	g.registry = prometheus.NewRegistry()
	r.Metrics = g.registry
	g.r = r
	counted := g.client(mgr.GetClient())
	r.Client = counted
	if wrap != nil {
		r.Client = wrap(counted)
	}
	if tune != nil {
		tune(r)
	}
	if g.routingProviders != nil {
		Expect(g.routingProviders.SetupWithManager(mgr)).To(Succeed())
	}
	Expect(r.SetupWithManager(mgr)).To(Succeed())
	if g.deliveries != nil {
		Expect(g.deliveries.SetupWithManager(mgr)).To(Succeed())
	}
	redeliveries := &RedeliveryRequestReconciler{}
	if a, ok := g.archive.(ArchivedOrders); ok {
		redeliveries.Archive = a
	}
	Expect(redeliveries.SetupWithManager(mgr)).To(Succeed())
	if g.archive != nil {
		r.Archive, r.ArchiveRetry = g.archive, 200*time.Millisecond
		Expect((&OrderTTLSweeper{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Archive: g.archive,
			Recorder:  mgr.GetEventRecorder(SwapOrderEventSource),
			Namespace: g.ns, TTL: g.ttl, Interval: 200 * time.Millisecond, Now: g.clock.Now, Log: logf.Log, Metrics: g.registry}).SetupWithManager(mgr)).To(Succeed())
	}
	g.stop = runTestManager(mgr)
}

// liveOrders selects the SwapOrders the production caches hold: those not archived.
var liveOrders = func() labels.Selector {
	req, err := labels.NewRequirement(swapv1.LabelArchived, selection.NotEquals, []string{"true"})
	if err != nil {
		panic(err)
	}
	return labels.NewSelector().Add(*req)
}()

// noWatch lets the manager's client go through interceptor.NewClient, which wants a
// WithWatch; the reconciler never watches through its client.
type noWatch struct{ client.Client }

func (noWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("not supported")
}

var usdcEth, usdcArb = simAsset("eth:USDC"), simAsset("arb:USDC")

func simAsset(key string) string {
	a, ok := market.Lookup(key)
	if !ok {
		panic(key)
	}
	return a.AssetID()
}

func newOrderID() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return "ord_" + strings.ToLower(base32.StdEncoding.EncodeToString(b))[:26]
}

// createOrder creates an exact-input order from → to for partner "acme".
func (g *orderRig) createOrder(p swapv1.ProviderID, from, to, amount string) *swapv1.SwapOrder {
	GinkgoHelper()
	return g.createOrderOf(p, from, to, amount, swapv1.ExactInput)
}

func (g *orderRig) createOrderOf(p swapv1.ProviderID, from, to, amount string, st swapv1.SwapType) *swapv1.SwapOrder {
	GinkgoHelper()
	return g.createOrderWithID(newOrderID(), p, from, to, amount, st)
}

func (g *orderRig) createOrderWithID(id string, p swapv1.ProviderID, from, to, amount string, st swapv1.SwapType) *swapv1.SwapOrder {
	GinkgoHelper()
	o := &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: strings.ReplaceAll(id, "_", "-"), Namespace: g.ns},
		Spec: swapv1.SwapOrderSpec{
			OrderID: id, Partner: "acme", ProviderID: p, OriginAsset: from, DestinationAsset: to,
			Amount: amount, SwapType: st,
			Sender: "0x1111111111111111111111111111111111111111", Recipient: "0x2222222222222222222222222222222222222222",
		},
	}
	Expect(k8sClient.Create(context.Background(), o)).To(Succeed())
	return o
}

func (g *orderRig) get(o *swapv1.SwapOrder) *swapv1.SwapOrder {
	GinkgoHelper()
	got := &swapv1.SwapOrder{}
	Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(o), got)).To(Succeed())
	return got
}

// status polls the order's status for Eventually/Consistently.
func (g *orderRig) status(o *swapv1.SwapOrder) func() swapv1.OrderStatus {
	return func() swapv1.OrderStatus { return g.get(o).Status.Status }
}

func (g *orderRig) awaitAddress(o *swapv1.SwapOrder) *swapv1.SwapOrder {
	GinkgoHelper()
	Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderPending))
	got := g.get(o)
	Expect(got.Status.DepositAddress).NotTo(BeEmpty())
	return got
}

func (g *orderRig) partner(enabled bool) {
	GinkgoHelper()
	Expect(k8sClient.Create(context.Background(), &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: g.ns},
		Spec: swapv1.PartnerSpec{Webhook: &swapv1.PartnerWebhook{
			URL: "https://partner.example/hooks", Enabled: enabled, SecretRef: swapv1.SecretKeyRef{Name: "hook", Key: "secret"},
		}},
	})).To(Succeed())
}

// deliveryPayloadSubstatus is the substatus in the webhook payload of the order's transition
// seq, empty while there is no delivery.
func deliveryPayloadSubstatus(g *orderRig, o *swapv1.SwapOrder, seq int64) string {
	GinkgoHelper()
	var list swapv1.WebhookDeliveryList
	Expect(k8sClient.List(context.Background(), &list, client.InNamespace(g.ns))).To(Succeed())
	for _, d := range list.Items {
		var ev webhooks.Event
		if json.Unmarshal([]byte(d.Spec.Payload), &ev) == nil && ev.OrderID == o.Spec.OrderID && ev.Sequence == seq {
			return ev.Substatus
		}
	}
	return ""
}

// deliverySeqs lists the seqs of the order's WebhookDeliveries (not redeliveries), in order. The stored
// notifiedSeq may lag them: the order's next status write carries it.
func (g *orderRig) deliverySeqs(o *swapv1.SwapOrder) func() []int64 {
	return func() []int64 {
		var ds swapv1.WebhookDeliveryList
		Expect(k8sClient.List(context.Background(), &ds, client.InNamespace(g.ns))).To(Succeed())
		var seqs []int64
		for _, d := range ds.Items {
			if owner := metav1.GetControllerOf(&d); owner != nil && owner.UID == o.UID && d.Spec.Redelivery == 0 {
				seqs = append(seqs, d.Spec.Sequence)
			}
		}
		slices.Sort(seqs)
		return seqs
	}
}

func historyOf(o *swapv1.SwapOrder) []string {
	var out []string
	for _, h := range o.Status.History {
		out = append(out, fmt.Sprintf("%d:%s", h.Seq, h.Status))
	}
	return out
}

// metricSum adds up the samples (counter and gauge values, histogram counts) of the metric family
// name whose labels include want, in controller-runtime's registry.
func metricSum(name string, want map[string]string) float64 {
	return gatheredSum(ctrlmetrics.Registry, name, want)
}

// metricSum is the package's metricSum over the rig's order reconciler metrics too.
func (g *orderRig) metricSum(name string, want map[string]string) float64 {
	return gatheredSum(prometheus.Gatherers{ctrlmetrics.Registry, g.registry}, name, want)
}

func gatheredSum(gatherer prometheus.Gatherer, name string, want map[string]string) float64 {
	total, err := metricsum.Of(gatherer, name, want)
	Expect(err).NotTo(HaveOccurred())
	return total
}

func reconcileTotal() float64 {
	return metricSum("controller_runtime_reconcile_total", map[string]string{"controller": "swaporder"})
}

var _ = Describe("SwapOrder reconciler", func() {
	ctx := context.Background()

	Context("against the simulator", func() {
		var g *orderRig
		var clock *testclock.Clock
		BeforeEach(func() {
			clock = &testclock.Clock{}
			sim := fastSim()
			sim.Now = clock.Now
			g = newOrderRig(orderRigOptions{sim: sim})
		})

		DescribeTable("settles a full deposit to SUCCESS, one webhook delivery per transition",
			func(p swapv1.ProviderID) {
				g.partner(true)
				o := g.awaitAddress(g.createOrder(p, usdcEth, usdcArb, "100000000"))
				Expect(o.Status.ProviderRef).NotTo(BeEmpty())
				Expect(o.Status.DepositDeadline).NotTo(BeNil())
				Expect(o.Status.Quote).NotTo(BeNil())
				Expect(o.Status.Substatus).To(Equal(swapv1.SubstatusAwaitingDeposit))

				successes := g.metricSum("swaprouter_order_transitions_total", map[string]string{"to": "SUCCESS"})
				polls := metricSum("swaprouter_provider_call_duration_seconds", map[string]string{"provider": string(p), "call": "status", "outcome": "ok"})
				// The simulator's clock stands still in the swapping phase until the order has
				// shown PROCESSING, so the transition is seen however far apart the polls are.
				deposited := time.Now()
				clock.HoldAt(deposited)
				_, err := g.sim.Deposit(o.Status.DepositAddress, "100000000")
				Expect(err).NotTo(HaveOccurred())
				clock.HoldAt(deposited.Add(fastSim().StepDelay * 3 / 2))
				Eventually(g.status(o)).Should(Equal(swapv1.OrderProcessing))
				clock.Release()
				Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderSuccess))
				Eventually(func() float64 {
					return g.metricSum("swaprouter_order_transitions_total", map[string]string{"to": "SUCCESS"})
				}).Should(Equal(successes + 1))
				Expect(metricSum("swaprouter_provider_call_duration_seconds",
					map[string]string{"provider": string(p), "call": "status", "outcome": "ok"})).To(BeNumerically(">", polls))

				o = g.get(o)
				Expect(o.Status.InTxHashes).NotTo(BeEmpty())
				Expect(o.Status.OutTxHashes).NotTo(BeEmpty())
				Expect(o.Status.NextPollAt).To(BeNil())
				h := historyOf(o)
				Expect(h[0]).To(Equal("1:PENDING"))
				Expect(h).To(ContainElement(HaveSuffix(":PROCESSING")))
				Expect(h[len(h)-1]).To(Equal(fmt.Sprintf("%d:SUCCESS", len(h))))
				Expect(o.Status.LastSeq).To(BeEquivalentTo(len(h)))
				Expect(meta.IsStatusConditionTrue(o.Status.Conditions, swapv1.ConditionReady)).To(BeTrue())
				Expect(meta.IsStatusConditionFalse(o.Status.Conditions, swapv1.ConditionReconciling)).To(BeTrue())

				// Emission: one delivery per seq, owned by the order, notifiedSeq caught up.
				Eventually(func() int64 { return g.get(o).Status.NotifiedSeq }).WithTimeout(5 * time.Second).Should(Equal(o.Status.LastSeq))
				var ds swapv1.WebhookDeliveryList
				Expect(k8sClient.List(ctx, &ds, client.InNamespace(g.ns))).To(Succeed())
				Expect(ds.Items).To(HaveLen(int(o.Status.LastSeq)))
				seqs := map[int64]bool{}
				for _, d := range ds.Items {
					Expect(d.Spec.OrderID).To(Equal(o.Spec.OrderID))
					Expect(metav1.GetControllerOf(&d).UID).To(Equal(o.UID))
					seqs[d.Spec.Sequence] = true
				}
				Expect(seqs).To(HaveLen(int(o.Status.LastSeq)))

				// An Event per transition, reason = the new status.
				Eventually(func() []string {
					var evs eventsv1.EventList
					Expect(k8sClient.List(ctx, &evs, client.InNamespace(g.ns))).To(Succeed())
					var reasons []string
					for _, e := range evs.Items {
						if e.Regarding.Name == o.Name && e.Action == "Transition" {
							reasons = append(reasons, e.Reason)
						}
					}
					return reasons
				}).WithTimeout(5 * time.Second).Should(ContainElements("Pending", "Processing", "Success"))
			},
			Entry("route_A (oneclick)", swapv1.ProviderRouteA),
			Entry("route_B (channel)", swapv1.ProviderRouteB),
		)

		It("refunds an under-deposit, and a disabled partner webhook creates no deliveries", func() {
			g.partner(false)
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
			// Held in the incomplete-deposit phase until the order has shown it.
			deposited := time.Now()
			clock.HoldAt(deposited)
			_, err := g.sim.Deposit(o.Status.DepositAddress, "40000000")
			Expect(err).NotTo(HaveOccurred())
			clock.HoldAt(deposited.Add(fastSim().StepDelay * 3 / 2))
			Eventually(g.status(o)).Should(Equal(swapv1.OrderProcessing))
			clock.Release()
			Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderRefunded))
			o = g.get(o)
			Expect(historyOf(o)).To(ContainElement(HaveSuffix(":PROCESSING")))
			Expect(meta.IsStatusConditionFalse(o.Status.Conditions, swapv1.ConditionReady)).To(BeTrue())
			Eventually(func() int64 { return g.get(o).Status.NotifiedSeq }).WithTimeout(5 * time.Second).Should(Equal(o.Status.LastSeq))
			var ds swapv1.WebhookDeliveryList
			Expect(k8sClient.List(ctx, &ds, client.InNamespace(g.ns))).To(Succeed())
			Expect(ds.Items).To(BeEmpty())
		})

		It("fails an order the provider refuses, with the reason", func() {
			tooLow := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "1000000") // 1 USDC, minimum is 5
			unsupported := g.createOrder(swapv1.ProviderRouteA, simAsset("tron:USDT"), simAsset("btc:BTC"), "100000000")
			for o, reason := range map[*swapv1.SwapOrder]string{tooLow: orders.ReasonAmountTooLow, unsupported: orders.ReasonUnsupportedPair} {
				Eventually(g.status(o)).WithTimeout(10 * time.Second).Should(Equal(swapv1.OrderFailed))
				got := g.get(o)
				Expect(got.Status.StatusReason).To(Equal(reason))
				Expect(got.Status.DepositAddress).To(BeEmpty())
				Expect(historyOf(got)).To(Equal([]string{"1:FAILED"}))
			}
		})

		It("retries 5xx from the provider with backoff and recovers with one deposit address", func() {
			g.sim.SetFault(swapv1.ProviderRouteA, simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: 503})
			o := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000")
			Eventually(func() string {
				return ptr.Deref(meta.FindStatusCondition(g.get(o).Status.Conditions, swapv1.ConditionReconciling), metav1.Condition{}).Reason
			}).WithTimeout(10 * time.Second).Should(Equal(orders.ReasonProviderUnavailable))
			got := g.get(o)
			Expect(got.Status.Status).To(BeEmpty())
			Expect(got.Status.ProviderErrors).To(BeZero(), "provider-wide failures are not counted in the order")

			g.sim.ClearFaults()
			o = g.awaitAddress(o)
			Expect(meta.FindStatusCondition(o.Status.Conditions, swapv1.ConditionStalled).Status).To(Equal(metav1.ConditionFalse))
			Expect(g.sim.Stats().DepositAddressesCreated[swapv1.ProviderRouteA]).To(Equal(map[string]int{o.Spec.Recipient: 1}))
		})

		It("goes UNKNOWN when the provider loses the order, and back when it finds it again", func() {
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteB, usdcEth, usdcArb, "100000000"))
			Expect(g.sim.Forget(swapv1.ProviderRouteB, o.Status.DepositAddress)).To(BeTrue())
			Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderUnknown))
			Expect(g.get(o).Status.StatusReason).To(Equal(orders.ReasonOrderNotFound))

			Expect(g.sim.Restore(swapv1.ProviderRouteB, o.Status.DepositAddress)).To(BeTrue())
			Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderPending))
			Expect(historyOf(g.get(o))).To(Equal([]string{"1:PENDING", "2:UNKNOWN", "3:PENDING"}))
			Expect(g.sim.Stats().DepositAddressesCreated[swapv1.ProviderRouteB][o.Spec.Recipient]).To(Equal(1))
		})

		It("forwards a deposit hint exactly once", func() {
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
			// The partner reports the hash as soon as the user broadcasts, before the provider
			// has seen the transfer.
			tx := "0x" + strings.Repeat("ab", 32)
			patch := client.MergeFrom(o.DeepCopy())
			o.Spec.DepositHint = &swapv1.DepositHint{TxHash: tx}
			Expect(k8sClient.Patch(ctx, o, patch)).To(Succeed())
			Eventually(func() string { return g.get(o).Status.ForwardedTxHash }).WithTimeout(10 * time.Second).Should(Equal(tx))
			Expect(g.sim.Stats().DepositSubmits[swapv1.ProviderRouteA]).To(Equal(1))

			// The deposit lands: the order settles, and the hint was forwarded only once.
			o = g.get(o)
			_, err := g.sim.DepositTx(o.Status.DepositAddress, "100000000", tx)
			Expect(err).NotTo(HaveOccurred())
			Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderSuccess))
			Expect(g.get(o).Status.InTxHashes).To(ContainElement(tx))
			Expect(g.sim.Stats().DepositSubmits[swapv1.ProviderRouteA]).To(Equal(1))
		})

		It("never changes a terminal order and stops polling it", func() {
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
			_, err := g.sim.Deposit(o.Status.DepositAddress, "100000000")
			Expect(err).NotTo(HaveOccurred())
			Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderSuccess))
			Eventually(func() int64 { return g.get(o).Status.NotifiedSeq }).WithTimeout(5 * time.Second).Should(Equal(g.get(o).Status.LastSeq))
			done := g.get(o)

			// The provider forgetting it, or a hint arriving, changes nothing.
			g.sim.Forget(swapv1.ProviderRouteA, done.Status.DepositAddress)
			patch := client.MergeFrom(done.DeepCopy())
			hinted := done.DeepCopy()
			hinted.Spec.DepositHint = &swapv1.DepositHint{TxHash: "0xlate"}
			Expect(k8sClient.Patch(ctx, hinted, patch)).To(Succeed())
			polls := g.sim.Stats().Calls[swapv1.ProviderRouteA][simulator.CallStatus]
			// The reconciler saw the hint, and looked again past any poll that was due.
			Eventually(func() int64 { return g.get(o).Status.ObservedGeneration }).Should(Equal(hinted.Generation))
			g.look(o, time.Second)
			got := g.get(o).Status
			got.ObservedGeneration = done.Status.ObservedGeneration
			Expect(got).To(Equal(done.Status))
			Expect(g.sim.Stats().Calls[swapv1.ProviderRouteA][simulator.CallStatus]).To(Equal(polls))
			Expect(g.sim.Stats().DepositSubmits[swapv1.ProviderRouteA]).To(BeZero())

			// The API refuses to change it too (CEL transition rule).
			moved := g.get(o)
			moved.Status.Status = swapv1.OrderRefunded
			Expect(apierrors.IsInvalid(k8sClient.Status().Update(ctx, moved))).To(BeTrue())
		})

		It("idle-polls at the provider's interval, not in a hot loop", func() {
			g.stop()
			const pollMin, pollMax = time.Second, 1500 * time.Millisecond
			g.setProviders(pollMin, pollMax)
			polls := recordPolls(g.providers, swapv1.ProviderRouteA)
			g.start(func(r *SwapOrderReconciler) { r.Now = polls.now }, nil)
			g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))

			// From here on nothing happens to the order but its polls. A pass polls once the
			// clock it read reaches the time the previous poll set, at least pollMin later: on a
			// slow machine the gaps only grow, a hot loop shrinks them.
			first, reconciles := len(polls.times()), reconcileTotal()
			Eventually(func() int { return len(polls.times()) - first }).WithTimeout(30 * time.Second).Should(BeNumerically(">=", 4))
			dr := reconcileTotal() - reconciles
			at := polls.times()[first:]
			for i := 1; i < len(at); i++ {
				Expect(at[i].Sub(at[i-1])).To(BeNumerically(">=", pollMin), "poll %d came %v after the previous one", i, at[i].Sub(at[i-1]))
			}
			Expect(dr).To(BeNumerically("<=", float64(len(at))+2), "reconciles beyond the polls: a hot loop")
		})
	})

	Context("with a deposit window", func() {
		// The simulator and the reconciler share one clock: the deadline is passed by moving
		// it, for the provider and the service alike.
		const grace = time.Minute
		var g *orderRig
		BeforeEach(func() {
			clock := &testclock.Clock{}
			sim := fastSim()
			sim.Now = clock.Now
			g = newOrderRig(orderRigOptions{sim: sim, clock: clock, tune: func(r *SwapOrderReconciler) { r.ExpiryGrace = grace }})
		})

		It("fails an order without a deposit past deadline plus grace, not before", func() {
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
			expiry := o.Status.DepositDeadline.Add(grace)
			g.clock.AdvanceTo(expiry.Add(-time.Second))
			g.passes.await(&g.wake, o)
			Expect(g.get(o).Status.Status).To(Equal(swapv1.OrderPending), "a second before deadline plus grace")

			g.advanceTo(expiry.Add(time.Second), o)
			Eventually(g.status(o)).Should(Equal(swapv1.OrderFailed))
			got := g.get(o)
			Expect(got.Status.StatusReason).To(Equal(orders.ReasonDepositExpired))
			Expect(historyOf(got)).To(Equal([]string{"1:PENDING", "2:FAILED"}))
			Expect(got.Status.History[1].At.Time).To(BeTemporally(">=", expiry))
		})

		It("refunds a deposit that arrives after the deadline", func() {
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteB, usdcEth, usdcArb, "100000000"))
			g.advanceTo(o.Status.DepositDeadline.Add(time.Second), o) // status time is whole seconds
			_, err := g.sim.Deposit(o.Status.DepositAddress, "100000000")
			Expect(err).NotTo(HaveOccurred())
			Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderRefunded))
		})
	})

	Context("when the provider's answer cannot be recorded", func() {
		It("shows exactly one deposit address, a working one, and counts the ones nobody saw", func() {
			g := newOrderRig(orderRigOptions{sim: fastSim()})
			g.stop()
			var failed atomic.Int32
			g.start(nil, func(c client.WithWatch) client.Client {
				return interceptor.NewClient(c, interceptor.Funcs{
					SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
						if _, ok := obj.(*swapv1.SwapOrder); ok && sub == "status" {
							failed.Add(1)
							return errors.New("injected: the status write did not happen")
						}
						return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
					},
				})
			})
			unshown := func() float64 {
				return g.metricSum("swaprouter_order_unshown_deposit_addresses_total", map[string]string{"provider": "route_A", "reason": "status_write_failed"})
			}
			before := unshown()
			o := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000")
			Eventually(failed.Load).WithTimeout(10 * time.Second).Should(BeNumerically(">=", 1))
			g.stop()
			Expect(g.get(o).Status.DepositAddress).To(BeEmpty())
			lost := g.sim.Stats().DepositAddressesCreated[swapv1.ProviderRouteA][o.Spec.Recipient]
			Expect(lost).To(BeNumerically(">=", 1), "1Click created addresses whose answers were lost")
			Expect(unshown() - before).To(BeNumerically("==", lost))

			g.start(nil, nil)
			o = g.awaitAddress(o)
			Expect(g.sim.Stats().DepositAddressesCreated[swapv1.ProviderRouteA][o.Spec.Recipient]).To(Equal(lost+1), "one more, the one shown")
			Expect(unshown()).To(BeZero(), "the restarted reconciler (its own metrics) lost none")

			// The address shown is the provider's: a deposit to it settles the order.
			_, err := g.sim.Deposit(o.Status.DepositAddress, "100000000")
			Expect(err).NotTo(HaveOccurred())
			Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderSuccess))
			Expect(g.get(o).Status.DepositAddress).To(Equal(o.Status.DepositAddress))
		})
	})

	Context("with real-provider behaviours", func() {
		It("shows INCOMPLETE_DEPOSIT with the amount received, then settles once the user tops up", func() {
			sim := fastSim()
			sim.RefundDelay = time.Minute // time for the reconciler to see the incomplete deposit
			g := newOrderRig(orderRigOptions{sim: sim})
			g.partner(true)
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
			_, err := g.sim.Deposit(o.Status.DepositAddress, "60000000")
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() swapv1.OrderSubstatus { return g.get(o).Status.Substatus }).WithTimeout(15 * time.Second).
				Should(Equal(swapv1.SubstatusIncompleteDeposit))
			got := g.get(o)
			Expect(got.Status.Status).To(Equal(swapv1.OrderProcessing))
			Expect(got.Status.DepositedAmount).To(Equal("60000000"))
			Expect(got.Status.ProviderStatus).To(Equal("INCOMPLETE_DEPOSIT"))

			_, err = g.sim.Deposit(o.Status.DepositAddress, "40000000")
			Expect(err).NotTo(HaveOccurred())
			Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(swapv1.OrderSuccess))
			got = g.get(o)
			Expect(got.Status.Substatus).To(Equal(swapv1.SubstatusSettled))
			Expect(got.Status.DepositedAmount).To(Equal("100000000"))
			Expect(got.Status.RefundedAmount).To(BeEmpty())
			Expect(got.Status.InTxHashes).To(HaveLen(2))
			Expect(historyOf(got)).To(Equal([]string{"1:PENDING", "2:PROCESSING", "3:SUCCESS"}))
			// The webhook of the SUCCESS transition carries its substatus.
			Eventually(func() string { return deliveryPayloadSubstatus(g, o, 3) }).WithTimeout(10 * time.Second).Should(Equal("SETTLED"))
		})

		// Chainflip's COMPLETED carries a swap egress, a refund egress or both: a partial fill is a
		// success with the refund shown beside it; a refund alone is never a success.
		DescribeTable("maps Chainflip's egresses onto SUCCESS or REFUNDED with the refunded amount",
			func(unfilledBps int64, want swapv1.OrderStatus, substatus swapv1.OrderSubstatus, amountIn, refunded string, outTxs int) {
				g := newOrderRig(orderRigOptions{sim: fastSim()})
				o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteB, usdcEth, usdcArb, "100000000"))
				Expect(g.sim.SetUnfilled(swapv1.ProviderRouteB, o.Status.DepositAddress, unfilledBps)).To(BeTrue())
				_, err := g.sim.Deposit(o.Status.DepositAddress, "100000000")
				Expect(err).NotTo(HaveOccurred())
				Eventually(g.status(o)).WithTimeout(15 * time.Second).Should(Equal(want))
				got := g.get(o)
				Expect(got.Status.Substatus).To(Equal(substatus))
				Expect(got.Status.ProviderStatus).To(Equal("COMPLETED"))
				Expect(got.Status.AmountIn).To(Equal(amountIn))
				Expect(got.Status.RefundedAmount).To(Equal(refunded))
				Expect(got.Status.OutTxHashes).To(HaveLen(outTxs))
				Expect(historyOf(got)).NotTo(ContainElement(HaveSuffix(":FAILED")))
				if want == swapv1.OrderRefunded {
					Expect(historyOf(got)).NotTo(ContainElement(HaveSuffix(":SUCCESS")))
				}
			},
			Entry("a partial fill", int64(2500), swapv1.OrderSuccess, swapv1.SubstatusPartialRefund, "75000000", "25000000", 2),
			Entry("a missed price floor: refundEgress only", int64(10000), swapv1.OrderRefunded, swapv1.SubstatusRefunded, "", "100000000", 1),
		)

		It("fails a route_B exact-output order before any deposit address exists", func() {
			g := newOrderRig(orderRigOptions{sim: fastSim()})
			exact := g.createOrderOf(swapv1.ProviderRouteB, usdcEth, usdcArb, "90000000", swapv1.ExactOutput)
			Eventually(g.status(exact)).WithTimeout(10 * time.Second).Should(Equal(swapv1.OrderFailed))
			got := g.get(exact)
			Expect(got.Status.StatusReason).To(Equal(orders.ReasonUnsupportedPair))
			Expect(got.Status.DepositAddress).To(BeEmpty())
			Expect(g.sim.Stats().Calls[swapv1.ProviderRouteB]).To(BeEmpty(), "refused without asking Chainflip")
		})
	})

	Context("with the PostgreSQL archive", func() {
		It("archives a terminal order before deleting it after the TTL, and keeps it in etcd while PostgreSQL is down", func() {
			ctx := context.Background()
			pg, stopPG, err := postgres.StartThrowaway(ctx, GinkgoWriter)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(stopPG)
			dsn, err := pg.CreateDatabase(ctx, "archive")
			Expect(err).NotTo(HaveOccurred())
			arch, err := archive.Open(dsn)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(arch.Close)
			Expect(arch.Migrate(ctx)).To(Succeed())

			// The TTL is passed by moving the sweeper's clock; it stays well inside the live
			// order's deposit window (a minute).
			const ttl = 20 * time.Second
			g := newOrderRig(orderRigOptions{sim: fastSim(), archive: arch, ttl: ttl})
			gone := func(o *swapv1.SwapOrder) func() bool {
				return func() bool {
					return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(o), &swapv1.SwapOrder{}))
				}
			}
			refused := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "1000000")
			live := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000")
			Eventually(g.status(refused)).Should(Equal(swapv1.OrderFailed))
			history := g.get(refused).Status.History
			Eventually(func() map[string]string { return g.get(refused).Labels }).Should(HaveKeyWithValue(swapv1.LabelArchived, "true"))
			g.clock.Advance(ttl) // the sweeper sees it at its next tick
			Eventually(gone(refused)).Should(BeTrue())
			archived, err := arch.Get(ctx, "acme", refused.Spec.OrderID)
			Expect(err).NotTo(HaveOccurred())
			Expect(archived.Status.Status).To(Equal(swapv1.OrderFailed))
			Expect(archived.Status.History).To(HaveLen(len(history)))
			Expect(g.get(live).Status.Status).To(Equal(swapv1.OrderPending))

			By("stopping PostgreSQL mid-run: the next terminal order stays in etcd and says why")
			pg.Stop()
			second := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "1000000")
			Eventually(func() string {
				c := meta.FindStatusCondition(g.get(second).Status.Conditions, ConditionArchived)
				if c == nil {
					return ""
				}
				return c.Reason
			}).Should(Equal("ArchiveUnavailable"))
			Expect(g.get(second).Labels).NotTo(HaveKey(swapv1.LabelArchived))

			By("restarting PostgreSQL: the order is archived, then deleted")
			Expect(pg.Restart(ctx)).To(Succeed())
			Eventually(func() map[string]string { return g.get(second).Labels }).Should(HaveKeyWithValue(swapv1.LabelArchived, "true"))
			g.clock.Advance(ttl)
			Eventually(gone(second)).Should(BeTrue())
			_, err = arch.Get(ctx, "acme", second.Spec.OrderID)
			Expect(err).NotTo(HaveOccurred())
		})
	})
})

// pollRecorder records, for each status call to a provider, the clock reading of the
// reconcile pass that made it (now is the reconciler's clock).
type pollRecorder struct {
	provider.Provider
	mu       sync.Mutex
	passTime time.Time
	at       []time.Time
}

func (p *pollRecorder) now() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.passTime = time.Now()
	return p.passTime
}

// recordPolls wraps provider id of set so that its status calls are recorded.
func recordPolls(set *providerset.Set, id swapv1.ProviderID) *pollRecorder {
	GinkgoHelper()
	e, ok := set.Get(id)
	Expect(ok).To(BeTrue())
	rec := &pollRecorder{Provider: e.Provider}
	e.Provider = rec
	set.Put(id, e)
	return rec
}

func (p *pollRecorder) Status(ctx context.Context, ref provider.OrderRef) (provider.Status, error) {
	p.mu.Lock()
	p.at = append(p.at, p.passTime)
	p.mu.Unlock()
	return p.Provider.Status(ctx, ref)
}

func (p *pollRecorder) times() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.at)
}
