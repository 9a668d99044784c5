package reliability

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

// wanted is one order a scenario places: its Idempotency-Key and provider.
type wanted struct {
	key string
	via swapv1.ProviderID
}

func orders(prefix string, perProvider int) []wanted {
	var out []wanted
	for i := range perProvider {
		for _, p := range []swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB} {
			out = append(out, wanted{key: fmt.Sprintf("%s-%s-%d", prefix, p, i), via: p})
		}
	}
	return out
}

// driver is the partner and its users: it places the orders (retrying each with its
// Idempotency-Key until a 201) and deposits the amount once an order shows its address.
type driver struct {
	g         *rig
	want      []wanted
	ids       map[string]string // key -> order id
	deposited map[string]bool   // order id
	attempts  int
	// active, when positive, limits the work to the first active orders (orders arriving
	// over time).
	active int
}

func newDriver(g *rig, want []wanted) *driver {
	return &driver{g: g, want: want, ids: map[string]string{}, deposited: map[string]bool{}}
}

// pass makes one attempt at everything still to do against process p and reports whether
// every order is placed and funded.
func (d *driver) pass(p *process, deposit bool) bool {
	GinkgoHelper()
	for i, w := range d.want {
		if d.ids[w.key] != "" || d.active > 0 && i >= d.active {
			continue
		}
		d.attempts++
		if id := d.g.placeOrder(p, w.key, w.via); id != "" {
			d.ids[w.key] = id
		}
	}
	if !deposit {
		return len(d.ids) == len(d.want)
	}
	for _, id := range d.ids {
		if d.deposited[id] {
			continue
		}
		if addr := d.g.order(id).Status.DepositAddress; addr != "" {
			_, err := d.g.sim.Deposit(addr, amount)
			Expect(err).NotTo(HaveOccurred())
			d.deposited[id] = true
		}
	}
	return len(d.ids) == len(d.want) && len(d.deposited) == len(d.want)
}

// placeAll retries until every order is placed (and funded, when deposit).
func (d *driver) placeAll(p *process, deposit bool, timeout time.Duration) {
	GinkgoHelper()
	Eventually(func() bool { return d.pass(p, deposit) }, timeout, 200*time.Millisecond).Should(BeTrue())
}

func (d *driver) expect(status swapv1.OrderStatus) map[string]swapv1.OrderStatus {
	out := map[string]swapv1.OrderStatus{}
	for _, id := range d.ids {
		out[id] = status
	}
	return out
}

func totalCalls(s simulator.Stats, calls ...string) int {
	n := 0
	for _, byCall := range s.Calls {
		for call, c := range byCall {
			if len(calls) == 0 || slices.Contains(calls, call) {
				n += c
			}
		}
	}
	return n
}

var _ = Describe("provider faults", func() {
	It("converge to the provider's truth after timeouts, 5xx and garbage during creation and polling", func() {
		g := newRig(11, 150*time.Millisecond)
		p := g.start(chaos{})

		// Creation: half of route_A's quote-with-deposit calls answer 503, half of route_B's
		// channel openings 500.
		g.sim.SetFault(swapv1.ProviderRouteA, simulator.CallQuote, simulator.Fault{ErrorRate: 0.5, Status: 503})
		g.sim.SetFault(swapv1.ProviderRouteB, simulator.CallOpen, simulator.Fault{ErrorRate: 0.5, Status: 500})
		d := newDriver(g, orders("faults", scale(2, 8)))
		before := g.sim.Stats()
		d.placeAll(p, false, 2*time.Minute)
		createCalls := totalCalls(g.sim.Stats(), simulator.CallQuote, simulator.CallOpen) - totalCalls(before, simulator.CallQuote, simulator.CallOpen)

		// Polling: route_A's status never answers (the adapter times out), route_B's answers
		// garbage. The users deposit meanwhile, so the providers settle the orders while we
		// cannot see it; the faults stay for several poll rounds of every order. A
		// provider-wide failure is the provider's condition: no order may flip to UNKNOWN.
		g.sim.SetFault(swapv1.ProviderRouteA, simulator.CallStatus, simulator.Fault{Hang: true})
		g.sim.SetFault(swapv1.ProviderRouteB, simulator.CallStatus, simulator.Fault{Garbage: true})
		before = g.sim.Stats()
		d.placeAll(p, true, time.Minute)
		Eventually(func() int {
			return totalCalls(g.sim.Stats(), simulator.CallStatus) - totalCalls(before, simulator.CallStatus)
		}, 2*time.Minute).Should(BeNumerically(">=", 3*len(d.ids)))
		flips := 0
		for _, id := range d.ids {
			for _, h := range g.order(id).Status.History {
				if h.Status == swapv1.OrderUnknown {
					flips++
				}
			}
		}
		Expect(flips).To(BeZero(), "orders flipped to UNKNOWN during a provider-wide outage")
		pollCalls := totalCalls(g.sim.Stats(), simulator.CallStatus) - totalCalls(before, simulator.CallStatus)

		g.sim.ClearFaults()
		recovery := g.awaitSettled(d.expect(swapv1.OrderSuccess), 2*time.Minute)
		t := g.verify(d.expect(swapv1.OrderSuccess))
		record(scenarioFigures{
			Scenario: scenarioFaults,
			Injected: "creation: 50 % 503 (route_A quote) / 500 (route_B open); polling: route_A status hangs (1 s adapter timeout), route_B status answers garbage, for at least 3 polls per order",
			Operations: fmt.Sprintf("%d orders in %d create attempts, %d create calls and %d status polls under fault; UNKNOWN flips %d",
				len(d.ids), d.attempts, createCalls, pollCalls, flips),
			RecoverySecs: recovery.Seconds(),
			Recovery:     "from clearing the faults until every order is SUCCESS with all its events delivered",
		}, t)
		Expect(t.lost).To(BeZero())
		p.stop()
	})

	It("report an order the provider dropped as UNKNOWN, and keep the others", func() {
		g := newRig(12, 150*time.Millisecond)
		p := g.start(chaos{})
		d := newDriver(g, orders("dropped", scale(1, 4)))
		d.placeAll(p, false, time.Minute)

		// The provider loses every route_A order; route_B's go on and get funded.
		dropped := map[string]swapv1.OrderStatus{}
		for _, w := range d.want {
			id := d.ids[w.key]
			if w.via == swapv1.ProviderRouteA {
				Expect(g.sim.Forget(w.via, g.order(id).Status.DepositAddress)).To(BeTrue())
				dropped[id] = swapv1.OrderUnknown
				d.deposited[id] = true // nothing to deposit to any more
			} else {
				dropped[id] = swapv1.OrderSuccess
			}
		}
		forgotten := time.Now()
		d.placeAll(p, true, time.Minute)
		g.awaitSettled(dropped, time.Minute)
		recovery := time.Since(forgotten)
		t := g.verify(dropped)
		record(scenarioFigures{
			Scenario:     scenarioDropped,
			Injected:     "route_A forgets every order it created (simulator Forget); route_B's orders are funded and settle",
			Operations:   fmt.Sprintf("%d orders, %d dropped", len(d.ids), len(d.ids)/2),
			RecoverySecs: recovery.Seconds(),
			Recovery:     "from the drop until the dropped orders are UNKNOWN, the others SUCCESS, and all events delivered",
		}, t)
		Expect(t.lost).To(BeZero())
		p.stop()
	})
})

var _ = Describe("API server write conflicts", func() {
	It("lose nothing when 30 % of writes answer 409 Conflict", func() {
		g := newRig(13, 150*time.Millisecond)
		p := g.start(chaos{conflictRate: 0.3})
		d := newDriver(g, orders("conflicts", scale(2, 8)))
		start := time.Now()
		d.placeAll(p, true, 2*time.Minute)
		g.awaitSettled(d.expect(swapv1.OrderSuccess), 3*time.Minute)
		took := time.Since(start)
		t := g.verify(d.expect(swapv1.OrderSuccess))
		record(scenarioFigures{
			Scenario: scenarioConflicts,
			Injected: "client interceptor on the manager's client: 30 % of updates, status updates and resourceVersion-guarded patches answer 409 without being applied",
			Operations: fmt.Sprintf("%d orders, %d writes applied, %d conflicts injected",
				len(d.ids), p.life.writes.Load(), p.life.conflicts.Load()),
			RecoverySecs: took.Seconds(),
			Recovery:     "from the first order request until every order is SUCCESS with all its events delivered, conflicts still on",
		}, t)
		Expect(p.life.conflicts.Load()).To(BeNumerically(">", 0), "the interceptor never fired")
		Expect(t.lost).To(BeZero())
		p.stop()
	})
})

var _ = Describe("process crashes", func() {
	It("lose nothing when the manager dies at random points of creation, polling and delivery", func() {
		const seed = 14
		// Settlement takes a few seconds, so crashes also land in polling.
		g := newRig(seed, 600*time.Millisecond)
		rnd := rand.New(rand.NewPCG(seed, 99))
		d := newDriver(g, orders("crash", scale(2, 6)))
		crashes := scale(6, 30)
		perProcess := max(1, (len(d.want)+crashes-1)/crashes) // new orders keep arriving
		points := map[string]int{}
		var readyAfter []time.Duration // from each restart until the frontend served again
		start := time.Now()
		for i := range crashes {
			d.active = (i + 1) * perProcess
			ch := chaos{crashAt: 1 + rnd.Int64N(30), applyAtCrash: rnd.IntN(2) == 0}
			begun := time.Now()
			p := g.start(ch)
			if p.url != "" {
				readyAfter = append(readyAfter, time.Since(begun))
			}
			// Work until the process dies at its crash point (or, past all activity, is done).
			Eventually(func() bool {
				if p.life.dead.Load() {
					return true
				}
				return d.pass(p, true) && len(d.ids) == len(d.want) && g.allSettled(d.expect(swapv1.OrderSuccess))
			}, time.Minute, 200*time.Millisecond).Should(BeTrue())
			p.stop()
			if at := p.life.crashedAt.Load(); at != nil {
				applied := "answer lost"
				if !ch.applyAtCrash {
					applied = "not applied"
				}
				points[crashPoint(*at)+" ("+applied+")"]++
			}
		}
		d.active = 0
		restarted := time.Now()
		final := g.start(chaos{})
		readyAfter = append(readyAfter, time.Since(restarted))
		d.placeAll(final, true, time.Minute)
		g.awaitSettled(d.expect(swapv1.OrderSuccess), 2*time.Minute)
		recovery := time.Since(restarted)
		t := g.verify(d.expect(swapv1.OrderSuccess))
		var where []string
		for _, k := range slices.Sorted(maps.Keys(points)) {
			where = append(where, fmt.Sprintf("%s ×%d", k, points[k]))
		}
		record(scenarioFigures{
			Scenario: scenarioCrashes,
			Injected: fmt.Sprintf("%d processes killed at a random operation (API write, provider call or webhook POST; half with the fatal operation applied and its answer lost); crash points: %s",
				crashes, strings.Join(where, ", ")),
			Operations: fmt.Sprintf("%d orders, %d create attempts over %d processes in %.0f s",
				len(d.ids), d.attempts, crashes+1, restarted.Sub(start).Seconds()),
			RecoverySecs: medianDuration(readyAfter).Seconds(),
			Recovery: fmt.Sprintf("median from a restart until the new process serves /v1 again (%d restarts, max %.1f s); "+
				"after the last restart every order was SUCCESS with all its events delivered within %.1f s",
				len(readyAfter), slices.Max(readyAfter).Seconds(), recovery.Seconds()),
		}, t)
		Expect(t.lost).To(BeZero())
		final.stop()
	})
})

// crashPoint shortens an operation name for the report: the API verb and kind, the provider
// call's path, or the webhook POST.
func crashPoint(op string) string {
	op = strings.ReplaceAll(op, "*v1alpha1.", "")
	if strings.HasPrefix(op, "provider ") {
		// "provider POST /route_A/v0/quote" -> keep method and path without ids.
		parts := strings.Fields(op)
		if len(parts) == 3 {
			segs := strings.Split(parts[2], "/")
			for i, s := range segs {
				if i > 2 && strings.ContainsAny(s, "0123456789") { // ids, not the provider or API version
					segs[i] = "{id}"
				}
			}
			return "provider " + parts[1] + " " + strings.Join(segs, "/")
		}
	}
	if strings.HasPrefix(op, "webhook ") {
		return "webhook POST"
	}
	return op
}

func medianDuration(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// allSettled reports whether every order is settled in its expected status.
func (g *rig) allSettled(want map[string]swapv1.OrderStatus) bool {
	for id, st := range want {
		if g.settled(id, st) != nil {
			return false
		}
	}
	return len(want) > 0
}
