package controllers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	"github.com/swaprouter/swaprouter/internal/provider/registry"
	"github.com/swaprouter/swaprouter/internal/providerset"
	"github.com/swaprouter/swaprouter/internal/resilience"
	"github.com/swaprouter/swaprouter/internal/testing/testclock"
)

// Issue 14: an order lifecycle that is right with real money and bounded in cost. Every spec
// runs the real reconciler against the simulator over HTTP with faults injected; figures are
// printed as "FIGURES" lines for docs/reliability.md.

// statusWrites counts the reconciler's status writes per order (a client wrapper).
type statusWrites struct {
	mu sync.Mutex
	n  map[string]int
	on atomic.Bool
}

func (w *statusWrites) wrap(c client.WithWatch) client.Client {
	return interceptor.NewClient(c, interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if _, ok := obj.(*swapv1.SwapOrder); ok && sub == "status" && w.on.Load() {
				w.mu.Lock()
				w.n[obj.GetName()]++
				w.mu.Unlock()
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
}

// count starts counting from zero; total returns the writes since.
func (w *statusWrites) count() {
	w.mu.Lock()
	w.n = map[string]int{}
	w.mu.Unlock()
	w.on.Store(true)
}

func (w *statusWrites) total() (sum, most int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.n {
		sum += n
		most = max(most, n)
	}
	return sum, most
}

func reconcilingReason(o *swapv1.SwapOrder) string {
	if c := meta.FindStatusCondition(o.Status.Conditions, swapv1.ConditionReconciling); c != nil {
		return c.Reason
	}
	return ""
}

func stalledReason(o *swapv1.SwapOrder) string {
	if c := meta.FindStatusCondition(o.Status.Conditions, swapv1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue {
		return c.Reason
	}
	return ""
}

// simCalls is how many calls of provider p the simulator received (faulted ones included).
func simCalls(g *orderRig, p swapv1.ProviderID) int {
	n := 0
	for _, c := range g.sim.Stats().Calls[p] {
		n += c
	}
	return n
}

// activeOrders is the size of the credentials scenario: modest in make test, 1,000 in the
// long reliability form.
func activeOrders() int {
	if n, err := strconv.Atoi(os.Getenv("LIFECYCLE_ORDERS")); err == nil && n > 0 {
		return n
	}
	if os.Getenv("RELIABILITY_LONG") != "" {
		return 1000
	}
	return 200
}

var _ = Describe("SwapOrder lifecycle with real money", func() {
	ctx := context.Background()

	Context("with a short deposit window and a slow provider", func() {
		var g *orderRig
		var clock *testclock.Clock
		BeforeEach(func() {
			clock = &testclock.Clock{}
			sim := fastSim()
			sim.Now = clock.Now
			sim.DepositWindow = 2 * time.Second
			g = newOrderRig(orderRigOptions{sim: sim, tune: func(r *SwapOrderReconciler) { r.ExpiryGrace = 2 * time.Second }})
		})

		It("never fails a paid order past its deadline: it ends SUCCESS when the provider catches up", func() {
			// The provider is slow: its clock stands still, so it keeps saying "awaiting deposit"
			// while our deadline plus grace passes.
			clock.HoldAt(time.Now())
			paid := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
			unpaid := g.awaitAddress(g.createOrder(swapv1.ProviderRouteB, usdcEth, usdcArb, "100000000"))
			// The user paid and the partner reported the tx hash.
			patch := client.MergeFrom(paid.DeepCopy())
			paid.Spec.DepositHint = &swapv1.DepositHint{TxHash: "0x" + fmt.Sprintf("%064x", 7)}
			Expect(k8sClient.Patch(ctx, paid, patch)).To(Succeed())

			// Deadline plus grace passes on the service's clock; the unpaid order expires (it
			// is the control)...
			g.advanceTo(paid.Status.DepositDeadline.Add(2*time.Second+time.Second), paid, unpaid)
			Eventually(g.status(unpaid)).Should(Equal(swapv1.OrderFailed))
			Expect(g.get(unpaid).Status.Substatus).To(Equal(swapv1.SubstatusDepositWindowClosed))
			// ... and the paid one is polled past its expiry and stays PENDING.
			polls := simCalls(g, swapv1.ProviderRouteA)
			Eventually(func() int { return simCalls(g, swapv1.ProviderRouteA) }).Should(BeNumerically(">=", polls+2))
			got := g.get(paid)
			Expect(got.Status.Status).To(Equal(swapv1.OrderPending), "a paid order must never be failed by the service")
			Expect(got.Status.Substatus).NotTo(Equal(swapv1.SubstatusDepositWindowClosed))

			// The deposit lands at the provider (inside its own window) and settles.
			_, err := g.sim.Deposit(got.Status.DepositAddress, "100000000")
			Expect(err).NotTo(HaveOccurred())
			clock.Release()
			Eventually(g.status(paid)).WithTimeout(20 * time.Second).Should(Equal(swapv1.OrderSuccess))
			Expect(historyOf(g.get(paid))).NotTo(ContainElement(HaveSuffix(":FAILED")))
			AddReportEntry("FIGURES paid-past-deadline", "orders wrongly FAILED: 0 of 1 paid order past deadline+grace")
		})
	})

	Context("with the provider's circuit breaker", func() {
		var g *orderRig
		var writes *statusWrites
		var tracker *health.Tracker
		var clock *testclock.Clock
		BeforeEach(func() {
			writes = &statusWrites{}
			tracker = health.NewTracker(nil)
			tracker.Policy = resilience.Policy{Threshold: 5, Cooldown: 300 * time.Millisecond, MaxCooldown: 2 * time.Second, Jitter: resilience.Jitter}
			clock = &testclock.Clock{}
			sim := fastSim()
			sim.Now = clock.Now
			g = newOrderRig(orderRigOptions{sim: sim, health: tracker, wrap: writes.wrap})
		})

		It("keeps a new order waiting through a 429 storm on create, then gives it one address", func() {
			g.sim.SetFault(swapv1.ProviderRouteA, simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: 429, RetryAfter: time.Second})
			o := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000")
			Eventually(func() string { return reconcilingReason(g.get(o)) }).Should(Equal(orders.ReasonProviderUnavailable))
			// Several throttled attempts later it is still waiting, never refused.
			calls := simCalls(g, swapv1.ProviderRouteA)
			Eventually(func() int { return simCalls(g, swapv1.ProviderRouteA) }).Should(BeNumerically(">=", calls+3))
			Expect(g.get(o).Status.Status).To(BeEmpty())

			g.sim.ClearFaults()
			o = g.awaitAddress(o)
			Expect(historyOf(o)).To(Equal([]string{"1:PENDING"}))
			Expect(g.sim.Stats().DepositAddressesCreated[swapv1.ProviderRouteA]).To(Equal(map[string]int{o.Spec.Recipient: 1}))
		})

		It("keeps every order's status through a provider outage and a 429 storm on polls (0 UNKNOWN flips)", func() {
			var all []*swapv1.SwapOrder
			for range 5 {
				all = append(all, g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000")))
			}
			// An under-deposit: PROCESSING, refunded once the provider's clock moves again.
			processing := all[0]
			deposited := time.Now()
			clock.HoldAt(deposited)
			_, err := g.sim.Deposit(processing.Status.DepositAddress, "40000000")
			Expect(err).NotTo(HaveOccurred())
			clock.HoldAt(deposited.Add(fastSim().StepDelay * 3 / 2))
			// No partner here: the transition's write is its last (notifiedSeq rides on the
			// next one), so every write counted below is the outage's.
			Eventually(g.status(processing)).Should(Equal(swapv1.OrderProcessing))

			writes.count()
			for _, fault := range []simulator.Fault{{ErrorRate: 1, Status: 503}, {ErrorRate: 1, Status: 429, RetryAfter: time.Second}, {Hang: true}} {
				g.sim.SetFault(swapv1.ProviderRouteA, simulator.AnyCall, fault)
				// Several poll intervals (200-300 ms) of failures: the breaker opens and
				// holds calls back, trial calls keep failing. With hanging calls each trial
				// takes the 2 s client timeout plus a cooldown of up to 2 s, so eight calls
				// can take half a minute: the wait is a bound on a stuck test, not a budget.
				calls := simCalls(g, swapv1.ProviderRouteA)
				Eventually(func() int { return simCalls(g, swapv1.ProviderRouteA) }).WithTimeout(3 * time.Minute).Should(BeNumerically(">=", calls+8))
				Eventually(func() resilience.Phase { return tracker.State(swapv1.ProviderRouteA).Phase }).ShouldNot(Equal(resilience.Closed))
			}
			for _, o := range all {
				got := g.get(o)
				Expect(got.Status.Status).To(Equal(g.get(o).Status.History[len(got.Status.History)-1].Status))
				Expect(historyOf(got)).NotTo(ContainElement(HaveSuffix(":UNKNOWN")), o.Name)
				Expect(reconcilingReason(got)).To(Equal(orders.ReasonProviderUnavailable))
			}
			outageWrites, most := writes.total()
			Expect(most).To(BeNumerically("<=", 1), "an outage costs one status write per order")

			g.sim.ClearFaults()
			clock.Release()
			Eventually(g.status(processing)).WithTimeout(20 * time.Second).Should(Equal(swapv1.OrderRefunded))
			for _, o := range all[1:] {
				Eventually(func() string { return reconcilingReason(g.get(o)) }).WithTimeout(20 * time.Second).Should(Equal("Tracking"))
				Expect(historyOf(g.get(o))).To(Equal([]string{"1:PENDING"}))
			}
			AddReportEntry("FIGURES provider-outage", fmt.Sprintf(
				"%d orders through 503, 429 and hanging calls: UNKNOWN flips 0, status writes during the outage %d (max %d per order)",
				len(all), outageWrites, most))
		})
	})

	Context("with many active orders when the provider revokes the credentials", func() {
		It("writes each order's status at most once while the credentials are rejected", func() {
			writes := &statusWrites{}
			tracker := health.NewTracker(nil)
			tracker.Policy = resilience.Policy{Threshold: 5, Cooldown: 200 * time.Millisecond, MaxCooldown: time.Second, Jitter: resilience.Jitter}
			// Compressed timers: polls every 200-300 ms stand for the contract's 10-15 s
			// (a factor of 50), so 12 s here stand for 10 minutes.
			// A long deposit window: creating 1,000 orders takes minutes, and none may expire.
			sim := fastSim()
			sim.DepositWindow = time.Hour
			g := newOrderRig(orderRigOptions{sim: sim, health: tracker, wrap: writes.wrap,
				tune: func(r *SwapOrderReconciler) { r.MaxConcurrentReconciles = 16 }})
			n := activeOrders()
			var all []*swapv1.SwapOrder
			for range n {
				all = append(all, g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
			}
			Eventually(func() int {
				var list swapv1.SwapOrderList
				Expect(k8sClient.List(ctx, &list, client.InNamespace(g.ns))).To(Succeed())
				settled := 0
				for _, o := range list.Items {
					// PENDING: the address's write is the order's last before the outage
					// (its emission and first poll write nothing), so every write counted
					// below is the outage's.
					if o.Status.Status == swapv1.OrderPending && reconcilingReason(&o) == "Tracking" {
						settled++
					}
				}
				return settled
			}).WithTimeout(5 * time.Minute).WithPolling(time.Second).Should(Equal(n))

			writes.count()
			start := time.Now()
			g.sim.SetFault(swapv1.ProviderRouteA, simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: 401})
			Eventually(func() string { return health.Judge(tracker.State(swapv1.ProviderRouteA)).Reason }).Should(Equal(health.ReasonCredentialsRejected))
			// The outage lasts 10 minutes at the contract's poll cadence (12 s here), and every
			// order retried several times meanwhile (most retries held back by the breaker).
			heldBack := metricSum("swaprouter_provider_calls_held_back_total", map[string]string{"provider": string(swapv1.ProviderRouteA)})
			Eventually(func() bool { return time.Since(start) >= 12*time.Second }).WithTimeout(time.Minute).Should(BeTrue())
			Eventually(func() float64 {
				return metricSum("swaprouter_provider_calls_held_back_total", map[string]string{"provider": string(swapv1.ProviderRouteA)})
			}).WithTimeout(5 * time.Minute).WithPolling(200 * time.Millisecond).Should(BeNumerically(">=", heldBack+float64(3*n)))
			outage := time.Since(start)
			during, most := writes.total()
			Expect(most).To(BeNumerically("<=", 1), "an order wrote its status more than once during the outage")
			for _, o := range all[:min(20, n)] {
				got := g.get(o)
				Expect(got.Status.Status).To(Equal(swapv1.OrderPending))
				Expect(reconcilingReason(got)).To(Equal(orders.ReasonProviderCredentialsRejected))
			}

			g.sim.ClearFaults()
			Eventually(func() int {
				var list swapv1.SwapOrderList
				Expect(k8sClient.List(ctx, &list, client.InNamespace(g.ns))).To(Succeed())
				ok := 0
				for _, o := range list.Items {
					if reconcilingReason(&o) == "Tracking" && len(o.Status.History) == 1 {
						ok++
					}
				}
				return ok
			}).WithTimeout(5 * time.Minute).WithPolling(time.Second).Should(Equal(n))
			withRecovery, _ := writes.total()
			// 50x compressed: outage minutes as the contract's 10-15 s poll interval would see them.
			minutes := outage.Minutes() * 50
			Expect(float64(withRecovery) / float64(n) / minutes).To(BeNumerically("<=", 0.2))
			AddReportEntry("FIGURES credentials-revoked", fmt.Sprintf(
				"%d active orders, 401 on every call for %.1f s (%.1f min at the contract's poll cadence): status writes %d during the outage, "+
					"%d including recovery: %.3f per active order per minute",
				n, outage.Seconds(), minutes, during, withRecovery, float64(withRecovery)/float64(n)/minutes))
		})
	})

	Context("with an order the provider forgot", func() {
		It("stops polling it after the watch bound: Stalled WatchStopped, an Event and a metric", func() {
			g := newOrderRig(orderRigOptions{sim: fastSim(), tune: func(r *SwapOrderReconciler) {
				r.WatchBound, r.PollBackoffMax = 3*time.Second, time.Second
			}})
			stopped := g.metricSum("swaprouter_order_watch_stopped_total", map[string]string{"provider": string(swapv1.ProviderRouteB)})
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteB, usdcEth, usdcArb, "100000000"))
			Expect(g.sim.Forget(swapv1.ProviderRouteB, o.Status.DepositAddress)).To(BeTrue())
			Eventually(g.status(o)).Should(Equal(swapv1.OrderUnknown))
			Expect(stalledReason(g.get(o))).To(BeEmpty(), "inside the watch bound")
			g.advanceTo(g.clock.Now().Add(3*time.Second+time.Second), o) // past the bound
			Eventually(func() string { return stalledReason(g.get(o)) }).Should(Equal(orders.ReasonWatchStopped))
			got := g.get(o)
			Expect(got.Status.NextPollAt).To(BeNil())
			Expect(got.Status.FailingSince).NotTo(BeNil())
			Expect(got.Status.ProviderErrors).To(BeEquivalentTo(3), "the count is written at the crossing, not per poll")
			Eventually(func() float64 {
				return g.metricSum("swaprouter_order_watch_stopped_total", map[string]string{"provider": string(swapv1.ProviderRouteB)})
			}).Should(Equal(stopped + 1))
			Eventually(func() bool {
				var evs eventsv1.EventList
				Expect(k8sClient.List(ctx, &evs, client.InNamespace(g.ns))).To(Succeed())
				for _, e := range evs.Items {
					if e.Regarding.Name == o.Name && e.Reason == orders.ReasonWatchStopped {
						return true
					}
				}
				return false
			}).Should(BeTrue())
			AddReportEntry("FIGURES forgotten-order", "orders still polling at full cadence after their bound: 0 (polling stopped, Stalled WatchStopped)")
		})
	})

	Context("when WebhookDelivery creation is forbidden", func() {
		It("tracks the order to its end anyway, says so, and emits once creation works again", func() {
			var forbid atomic.Bool
			forbid.Store(true)
			g := newOrderRig(orderRigOptions{sim: fastSim(),
				tune: func(r *SwapOrderReconciler) { r.EmitRetryBase, r.EmitRetryMax = 200*time.Millisecond, time.Second },
				wrap: func(c client.WithWatch) client.Client {
					return interceptor.NewClient(c, interceptor.Funcs{
						Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
							if _, ok := obj.(*swapv1.WebhookDelivery); ok && forbid.Load() {
								return apierrors.NewForbidden(swapv1.GroupVersion.WithResource("webhookdeliveries").GroupResource(),
									obj.GetName(), errors.New("exceeded quota: webhookdeliveries"))
							}
							return c.Create(ctx, obj, opts...)
						},
					})
				}})
			g.partner(true)
			o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
			_, err := g.sim.Deposit(o.Status.DepositAddress, "100000000")
			Expect(err).NotTo(HaveOccurred())
			Eventually(g.status(o)).WithTimeout(20 * time.Second).Should(Equal(swapv1.OrderSuccess))
			got := g.get(o)
			Expect(got.Status.NotifiedSeq).To(BeZero())
			Expect(meta.FindStatusCondition(got.Status.Conditions, orders.ConditionWebhooksEmitted)).To(HaveField("Reason", orders.ReasonDeliveryCreateFailed))
			Expect(g.metricSum("swaprouter_order_webhook_emit_failures_total", map[string]string{"reason": "Forbidden"})).To(BeNumerically(">=", 1))

			// Creation works again: each poll moves the clock to the retry the order scheduled.
			forbid.Store(false)
			Eventually(func() int64 {
				now := g.get(o)
				if at := now.Status.EmitRetryAt; at != nil {
					g.advanceTo(at.Time, o)
				}
				return now.Status.NotifiedSeq
			}).Should(Equal(got.Status.LastSeq))
			var ds swapv1.WebhookDeliveryList
			Expect(k8sClient.List(ctx, &ds, client.InNamespace(g.ns))).To(Succeed())
			Expect(ds.Items).To(HaveLen(int(got.Status.LastSeq)))
			Expect(meta.FindStatusCondition(g.get(o).Status.Conditions, orders.ConditionWebhooksEmitted)).To(BeNil())
		})
	})

	Context("when an order id comes back", func() {
		It("gives the new order's events new ids, so receivers deduplicating on webhook-id get them", func() {
			g := newOrderRig(orderRigOptions{sim: fastSim()})
			g.partner(true)
			// The id an Idempotency-Key maps to; without an archive, deleting the order (by
			// hand: the service never deletes without the archive) frees it.
			id := orderid.ForIdempotencyKey(g.ns, "acme", "key-1")
			create := func() *swapv1.SwapOrder {
				o := g.createOrderWithID(id, swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000", swapv1.ExactInput)
				g.awaitAddress(o)
				Eventually(g.deliverySeqs(o)).Should(Equal([]int64{1}))
				return g.get(o)
			}
			eventIDs := func(uid types.UID) []string {
				var ds swapv1.WebhookDeliveryList
				Expect(k8sClient.List(ctx, &ds, client.InNamespace(g.ns))).To(Succeed())
				var out []string
				for _, d := range ds.Items {
					if d.Spec.OrderID == id && metav1.GetControllerOf(&d).UID == uid {
						out = append(out, d.Spec.EventID)
					}
				}
				return out
			}
			first := create()
			firstEvents := eventIDs(first.UID)
			Expect(firstEvents).To(HaveLen(1))
			// Retention deletes the order; its deliveries stay (no garbage collector here, and
			// receivers keep what they saw). The key is used again.
			Expect(k8sClient.Delete(ctx, first)).To(Succeed())
			Eventually(func() bool {
				return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(first), &swapv1.SwapOrder{}))
			}).Should(BeTrue())
			second := create()
			Expect(second.Spec.OrderID).To(Equal(first.Spec.OrderID))
			secondEvents := eventIDs(second.UID)
			Expect(secondEvents).To(HaveLen(1), "the new order's first event got its own delivery")
			Expect(secondEvents[0]).NotTo(Equal(firstEvents[0]))
		})
	})
})

// The start-up gate: after a restart, orders wait until the RoutingProvider reconciler has
// loaded the providers, instead of recording a miss for a provider that is configured.
var _ = Describe("SwapOrder workers at start-up", func() {
	It("take no step before the providers are loaded, and record no miss", func() {
		ctx := context.Background()
		g := newOrderRig(orderRigOptions{sim: fastSim()})
		// An order of the previous run, and the RoutingProvider that serves it.
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		g.stop()
		o = g.get(o)
		rp := &swapv1.RoutingProvider{
			ObjectMeta: metav1.ObjectMeta{Name: "route-a", Namespace: g.ns},
			Spec: swapv1.RoutingProviderSpec{ProviderID: swapv1.ProviderRouteA, Protocol: swapv1.ProtocolOneClick,
				Endpoint: g.url + "/route_A", Enabled: true, QuoteSigningKey: g.sim.QuotePublicKey()},
		}
		Expect(k8sClient.Create(ctx, rp)).To(Succeed())
		// Other suites judge route_A's claimants cluster-wide: leave none behind.
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(context.Background(), rp))).To(Succeed()) })
		// The deposit lands while the process is down.
		_, err := g.sim.Deposit(o.Status.DepositAddress, "100000000")
		Expect(err).NotTo(HaveOccurred())

		// The restarted process: the RoutingProvider reconciler is slow to build its adapter.
		release := make(chan struct{})
		releaseOnce := sync.OnceFunc(func() { close(release) })
		var building atomic.Bool
		g.providers = providerset.New()
		g.routingProviders = &RoutingProviderReconciler{Providers: g.providers, Catalog: catalog.New(nil),
			NewProvider: func(p swapv1.ProviderProtocol, cfg provider.Config) (provider.Provider, error) {
				building.Store(true)
				<-release
				return registry.New(p, cfg)
			}}
		reconciles := metricSum("controller_runtime_reconcile_total", map[string]string{"controller": "swaporder"})
		g.start(nil, nil)
		DeferCleanup(releaseOnce) // runs before the manager's stop
		Eventually(building.Load).Should(BeTrue())
		// The order worker ran meanwhile, and left the order alone.
		Eventually(func() float64 {
			return metricSum("controller_runtime_reconcile_total", map[string]string{"controller": "swaporder"})
		}).Should(BeNumerically(">", reconciles))
		got := g.get(o)
		Expect(got.Status.Conditions).To(Equal(o.Status.Conditions))
		Expect(got.Status.ProviderErrors).To(BeZero())

		releaseOnce()
		Eventually(g.status(o)).WithTimeout(20 * time.Second).Should(Equal(swapv1.OrderSuccess))
		got = g.get(o)
		for _, h := range got.Status.History {
			Expect(h.Reason).NotTo(Equal(orders.ReasonProviderNotConfigured))
		}
	})
})
