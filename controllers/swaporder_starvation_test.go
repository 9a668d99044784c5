package controllers

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

// Issue 19: provider calls that cannot starve each other. Four workers; every assertion
// compares counts of calls the simulator received, never durations.
var _ = Describe("SwapOrder workers shared between providers and between creates and polls", func() {
	const workers = 4

	simStatusCalls := func(g *orderRig, p swapv1.ProviderID) func() int {
		return func() int { return g.sim.Stats().Calls[p][simulator.CallStatus] }
	}
	tracked := func(g *orderRig, p swapv1.ProviderID, n int) []*swapv1.SwapOrder {
		out := make([]*swapv1.SwapOrder, n)
		for i := range out {
			out[i] = g.createOrder(p, usdcEth, usdcArb, "100000000")
		}
		for i, o := range out {
			out[i] = g.awaitAddress(o)
		}
		return out
	}

	It("keeps polling one provider's orders while every call to the other hangs", func() {
		// No circuit breaker: every call to the hanging provider runs into the adapter's
		// 2 s timeout, the worst case for the workers.
		g := newOrderRig(orderRigOptions{sim: fastSim(), tune: func(r *SwapOrderReconciler) {
			r.MaxConcurrentReconciles, r.ProviderConcurrency = workers, workers/2
		}})
		const perProvider = 6
		tracked(g, swapv1.ProviderRouteA, perProvider)
		healthy := tracked(g, swapv1.ProviderRouteB, perProvider)

		g.sim.SetFault(swapv1.ProviderRouteA, simulator.AnyCall, simulator.Fault{Hang: true})
		hungCalls, healthyPolls := simCalls(g, swapv1.ProviderRouteA), simStatusCalls(g, swapv1.ProviderRouteB)()
		// Each healthy order is polled four more times (a second at its 200-300 ms cadence)
		// while the hanging provider, holding at most two workers, gets at most three rounds
		// of two calls. A worker parked on the hanging provider (or waiting for its slot)
		// would leave the healthy orders one poll per freed worker every 2 s.
		Eventually(simStatusCalls(g, swapv1.ProviderRouteB)).WithTimeout(time.Minute).
			Should(BeNumerically(">=", healthyPolls+4*perProvider))
		Expect(simCalls(g, swapv1.ProviderRouteA)).To(BeNumerically("<=", hungCalls+3*workers/2),
			"the hanging provider got more calls than its share of the workers allows")
		for _, o := range healthy {
			Expect(g.get(o).Status.Status).To(Equal(swapv1.OrderPending))
		}
		g.sim.ClearFaults()
	})

	It("parks the hanging provider's waiting orders instead of spinning them through the queue", func() {
		g := newOrderRig(orderRigOptions{sim: fastSim(), tune: func(r *SwapOrderReconciler) {
			r.MaxConcurrentReconciles, r.ProviderConcurrency = workers, workers/2
		}})
		const perProvider = 6
		tracked(g, swapv1.ProviderRouteA, perProvider)
		tracked(g, swapv1.ProviderRouteB, perProvider)
		heldBack := func() float64 {
			return testutil.ToFloat64(g.r.metrics.heldBack.WithLabelValues(string(swapv1.ProviderRouteA), heldProviderSaturated))
		}

		g.sim.SetFault(swapv1.ProviderRouteA, simulator.AnyCall, simulator.Fault{Hang: true})
		held, hungCalls, healthyPolls := heldBack(), simCalls(g, swapv1.ProviderRouteA), simStatusCalls(g, swapv1.ProviderRouteB)()
		// route_B's orders are polled 40 more times each (10 s at their 200-300 ms cadence).
		Eventually(simStatusCalls(g, swapv1.ProviderRouteB)).WithTimeout(time.Minute).
			Should(BeNumerically(">=", healthyPolls+40*perProvider))
		// A parked order is held back once when it arrives and waits for a released slot, so
		// every held-back pass but the orders' first is paid for by a call that ended. Timers
		// alone brought each of the four waiting orders back every 1-2 s, about three passes
		// per call made.
		calls := simCalls(g, swapv1.ProviderRouteA) - hungCalls
		Expect(heldBack()-held).To(BeNumerically("<=", calls+perProvider),
			"route_A's orders were held back %.0f times for %d calls", heldBack()-held, calls)
		g.sim.ClearFaults()
	})

	It("keeps polling existing orders through a burst of new orders, and serves the burst", func() {
		g := newOrderRig(orderRigOptions{sim: fastSim(), tune: func(r *SwapOrderReconciler) {
			// The provider cap does not hold the burst back here: only the creation share does.
			r.MaxConcurrentReconciles, r.ProviderConcurrency = workers, workers-1
		}})
		const existing, burst = 6, 40
		tracked(g, swapv1.ProviderRouteA, existing)
		// Every deposit-address creation of the other provider takes a second.
		g.sim.SetFault(swapv1.ProviderRouteB, simulator.CallOpen, simulator.Fault{Latency: time.Second})
		polls := simStatusCalls(g, swapv1.ProviderRouteA)()
		created := func() int { return g.sim.Stats().Calls[swapv1.ProviderRouteB][simulator.CallOpen] }
		creates := created()
		news := make([]*swapv1.SwapOrder, burst)
		for i := range news {
			news[i] = g.createOrder(swapv1.ProviderRouteB, usdcEth, usdcArb, "100000000")
		}
		// The existing orders are polled four more times each before half of the burst got
		// its address: with every worker taken by creations, polls would wait for the whole
		// burst (40 creations of a second each on four workers).
		Eventually(simStatusCalls(g, swapv1.ProviderRouteA)).WithTimeout(time.Minute).
			Should(BeNumerically(">=", polls+4*existing))
		Expect(created()).To(BeNumerically("<", creates+burst/2), "existing orders were not polled until the burst was served")
		// ... and the burst is not starved either: every new order gets its address.
		for _, o := range news {
			Eventually(g.status(o)).WithTimeout(2 * time.Minute).Should(Equal(swapv1.OrderPending))
		}
		g.sim.ClearFaults()
	})
})
