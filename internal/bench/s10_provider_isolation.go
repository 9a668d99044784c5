package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/testing/metricsum"
)

// Scenario 10: every call to route_A hangs (simulator fault; each runs into the provider's
// 5 s timeout) while route_B's orders keep being polled and route_B is quoted. Each round
// measures a window with both providers healthy, then the same window with route_A answering
// every call just under its timeout (slow, never failing, so its circuit breaker never opens
// and only the per-provider call cap protects the workers), then one with route_A hanging:
//   - route_B's status calls (simulator counter) ÷ the polls its active orders are due in the
//     window (orders ÷ mean poll interval × window), during the hang and while slow;
//   - the p99 of frontend dry quotes for a pair only route_B routes (ETH → TRX), during the
//     hang ÷ the healthy window's p99: a hanging provider must not slow anyone else's quotes.
//
// The order reconciler's goroutines are sampled mid-window while route_A is slow (where its
// workers stood), and the saturation requeues (swaprouter_order_held_back_total) are reported.
func (h *harness) providerIsolation(ctx context.Context, s *Scenario) error {
	hung, healthy := swapv1.ProviderRouteA, swapv1.ProviderRouteB
	window := h.cfg.sized(30*time.Second, 5*time.Second)
	rounds := min(h.cfg.Rounds, 3)
	n := h.cfg.count(150, 15)
	ids, res := h.createProviderOrders(ctx, n)
	if note := errNote("creating the orders", res); note != "" {
		s.note("%s", note)
	}
	budget := h.cfg.budget(2 * time.Minute)
	if !waitFor(ctx, budget, 200*time.Millisecond, func() bool { return h.addressed(ctx, ids) }) {
		s.note("not every order had its deposit address within %s", budget)
	}
	// A full poll interval, so every order is on its cadence before the first window.
	time.Sleep(h.pollMax)

	quote := h.singleProviderQuote()
	var pollRatio, slowPollRatio, healthyPollRatio, quoteRatio, p99Healthy, p99Hung, hungCalls, calmWrites, hungWrites []float64
	var calmSelf, hungSelf, calmAPI, hungAPI []float64 // cores per window
	held0 := metricSum(h.metrics, "swaprouter_order_held_back_total", map[string]string{"provider": string(hung)})
	stopProfile := h.profile(s, "scenario10")
	for r := 0; r < rounds && ctx.Err() == nil; r++ {
		// Each round starts with route_A's breaker closed: an open one (left by the last
		// round's hang) would hold route_A's calls back and hide what the workers do.
		closed := h.cfg.budget(2 * time.Minute)
		if !waitFor(ctx, closed, 500*time.Millisecond, func() bool {
			return metricSum(h.metrics, "swaprouter_provider_breaker_open", map[string]string{"provider": string(hung)}) == 0
		}) {
			s.note("round %d: route_A's circuit breaker was still open after %s", r+1, closed)
		}
		due, err := h.duePolls(ctx, healthy, window)
		if err != nil {
			return err
		}
		w0, meter := h.writesSoFar(ctx), StartCPU()
		calm, calmPolls := h.pollWindow(ctx, healthy, window, quote)
		calmCPU := meter.Stop()
		w1 := h.writesSoFar(ctx)
		calmWrites = append(calmWrites, w1-w0)
		calmSelf, calmAPI = append(calmSelf, calmCPU.Self), append(calmAPI, calmCPU.Children["kube-apiserver"])
		healthyPollRatio = append(healthyPollRatio, Ratio(calmPolls, due))

		// Slow first: the breaker is closed and stays closed (every call succeeds).
		h.env.Simulator.SetFault(hung, simulator.AnyCall, simulator.Fault{Latency: slowProvider})
		if r == rounds/2 {
			go func() {
				time.Sleep(window / 2)
				s.Waits = GoroutineWaits("SwapOrderReconciler")
			}()
		}
		_, slowPolls := h.pollWindow(ctx, healthy, window, quote)
		slowPollRatio = append(slowPollRatio, Ratio(slowPolls, due))

		h.env.Simulator.SetFault(hung, simulator.AnyCall, simulator.Fault{Hang: true})
		hung0, w2, meter := h.providerCalls(hung), h.writesSoFar(ctx), StartCPU()
		during, hangPolls := h.pollWindow(ctx, healthy, window, quote)
		hungCPU := meter.Stop()
		hungCalls = append(hungCalls, float64(h.providerCalls(hung)-hung0))
		hungWrites = append(hungWrites, h.writesSoFar(ctx)-w2)
		hungSelf, hungAPI = append(hungSelf, hungCPU.Self), append(hungAPI, hungCPU.Children["kube-apiserver"])
		h.env.Simulator.ClearFaults()

		for _, note := range []string{errNote("quotes, both healthy", calm), errNote("quotes, route_A hanging", during)} {
			if note != "" {
				s.note("round %d: %s", r+1, note)
			}
		}
		pollRatio = append(pollRatio, Ratio(hangPolls, due))
		c99, d99 := PercentileMs(calm.Latencies, 99), PercentileMs(during.Latencies, 99)
		p99Healthy, p99Hung = append(p99Healthy, c99), append(p99Hung, d99)
		quoteRatio = append(quoteRatio, Ratio(d99, c99))
		h.logf("  round %d: route_B polls %.0f (healthy) / %.0f (route_A hanging) / %.0f (route_A slow) of %.0f due; route_B quote p99 %.1f / %.1f ms; route_A calls while hanging %.0f; kube-apiserver writes %.0f / %.0f",
			r+1, calmPolls, hangPolls, slowPolls, due, c99, d99, hungCalls[len(hungCalls)-1], calmWrites[len(calmWrites)-1], hungWrites[len(hungWrites)-1])
		// route_A's orders catch up before the next healthy window.
		time.Sleep(h.pollMax)
	}
	stopProfile()
	s.add("route_B polls achieved ÷ due while route_A hangs", pollRatio, AtLeast(0.95))
	s.add("route_B quote p99 while route_A hangs ÷ healthy p99", quoteRatio, AtMost(1.05))
	s.add(fmt.Sprintf("route_B polls achieved ÷ due while route_A answers after %s", slowProvider), slowPollRatio, AtLeast(0.95))
	s.info("route_B polls achieved ÷ due, both healthy", "", healthyPollRatio)
	s.info("route_B quote p99, healthy / route_A hanging", fmt.Sprintf("ms (hanging %.1f ms)", Median(p99Hung)), p99Healthy)
	s.info("kube-apiserver writes per window, healthy / route_A hanging", fmt.Sprintf("(hanging %.0f; every client's, Events included)", Median(hungWrites)), calmWrites)
	s.info("this process's cores per window, healthy / route_A hanging", fmt.Sprintf("(hanging %.3f)", Median(hungSelf)), calmSelf)
	s.info("kube-apiserver cores per window, healthy / route_A hanging", fmt.Sprintf("(hanging %.3f)", Median(hungAPI)), calmAPI)
	s.info("route_A calls made per hanging window", "(each ends at the 5 s timeout or is held back by the breaker)", hungCalls)
	s.info("order passes requeued for route_A's full call slots or budget", "(swaprouter_order_held_back_total, whole scenario)",
		[]float64{metricSum(h.metrics, "swaprouter_order_held_back_total", map[string]string{"provider": string(hung)}) - held0})
	s.Setup = fmt.Sprintf("%d orders per provider created directly (plus the active orders earlier scenarios left); %d rounds (each once route_A's breaker is closed) of a %s window with both providers healthy, "+
		"a %s window with every route_A call answered after %s and a %s window with every route_A call hanging (simulator fault, 5 s provider timeout); dry quotes ETH→TRX "+
		"(only route_B routes it) at %d/s (open loop) through the frontend in every window; poll interval %s–%s",
		n, rounds, window, window, slowProvider, window, quoteRate, h.pollMin, h.pollMax)
	return ctx.Err()
}

// slowProvider is route_A's answer time in the slow window: just under its 5 s timeout, so
// every call succeeds and the circuit breaker stays closed.
const slowProvider = 4500 * time.Millisecond

// createProviderOrders creates n orders of each provider directly.
func (h *harness) createProviderOrders(ctx context.Context, n int) ([]string, LoadResult) {
	return h.createOrders(ctx, benchNamespace, 2*n, 16)
}

// addressed reports whether every order of ids has its deposit address (or ended without).
func (h *harness) addressed(ctx context.Context, ids []string) bool {
	all, err := h.activeOrders(ctx)
	if err != nil {
		return false
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for _, o := range all {
		if want[o.Spec.OrderID] && o.Status.DepositAddress == "" && !terminal(o.Status.Status) {
			return false
		}
	}
	return true
}

// duePolls is how many status polls provider p's active orders are due in window.
func (h *harness) duePolls(ctx context.Context, p swapv1.ProviderID, window time.Duration) (float64, error) {
	all, err := h.activeOrders(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, o := range all {
		if o.Spec.ProviderID == p && o.Status.DepositAddress != "" && !terminal(o.Status.Status) {
			n++
		}
	}
	return float64(n) * window.Seconds() / h.pollMean().Seconds(), nil
}

// quoteRate is scenario 10's quote load, the same in every window: an open loop (a closed one
// runs faster in whichever window frees CPU, so the windows would not carry the same load)
// well below the bench partner's limit of benchRPM a minute, so no quote is refused with 429
// and every quote is timed.
const quoteRate = 200

// pollWindow runs quote for window at quoteRate and counts provider p's status calls
// meanwhile.
func (h *harness) pollWindow(ctx context.Context, p swapv1.ProviderID, window time.Duration, quote Op) (LoadResult, float64) {
	before := h.env.Simulator.Stats().Calls[p][simulator.CallStatus]
	res := Open(ctx, quoteRate, window, 64, quote)
	return res, float64(h.env.Simulator.Stats().Calls[p][simulator.CallStatus] - before)
}

// providerCalls is every call provider p received.
func (h *harness) providerCalls(p swapv1.ProviderID) int {
	n := 0
	for _, c := range h.env.Simulator.Stats().Calls[p] {
		n += c
	}
	return n
}

// singleProviderQuote is a dry quote ETH → TRX, a pair only route_B lists.
func (h *harness) singleProviderQuote() Op {
	trx, _ := market.Lookup("tron:TRX")
	return func(ctx context.Context, _, _ int) error {
		resp, err := h.api.RequestQuote(ctx, nil, dryQuote(trx.AssetID()))
		return expect(resp, err, http.StatusOK, nil)
	}
}

// metricSum adds up the series of g's metric name whose labels include match (0 when g fails).
func metricSum(g prometheus.Gatherer, name string, match map[string]string) float64 {
	sum, err := metricsum.Of(g, name, match)
	if err != nil {
		return 0
	}
	return sum
}
