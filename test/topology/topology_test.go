package topology

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// long is the `make reliability` form: the whole fault list.
var long = os.Getenv("TOPOLOGY_LONG") != ""

// fault is one injected fault; inject returns once it is over (a paused process resumed, a
// restarted server back) and reports the leader failover it caused, if any.
type fault struct {
	name   string
	inject func(r *rig, l *load) (failover time.Duration)
}

// result is what one fault cost, as partners and operators would see it.
type result struct {
	name     string
	failover time.Duration // 0: no leader change expected
	// errors are partner-visible 5xx or unanswered requests from injection to recovery,
	// window the time from the first to the last of them.
	errors   int
	window   time.Duration
	recovery time.Duration // injection until every order funded before it is SUCCESS, its events delivered
}

func TestTopologyUnderFaults(t *testing.T) {
	r := startRig(t)
	g := NewWithT(t)
	g.SetDefaultEventuallyTimeout(testDeadline(t))
	g.SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	ctx := context.Background()

	// Item 4 in the topology: the scrape the rig uses to find the leader is a reader's; the
	// same scrape without a token or with the frontend's identity is refused.
	if code, _ := scrape(r.controllerMetrics[0], ""); code != 401 {
		t.Errorf("metrics without a token: %d, want 401", code)
	}

	l := startLoad(r, 3)
	halted := false
	defer func() {
		if !halted {
			l.halt()
		}
	}()
	// Steady state first: some orders settled with their events delivered.
	g.Eventually(func() int { return r.successCount(ctx) }).Should(BeNumerically(">=", 4), "orders settle before any fault")

	var results []result
	for _, f := range faultList() {
		t0 := time.Now()
		t.Logf("fault %s", f.name)
		failover := f.inject(r, l)
		// Back on schedule: every order funded before the fault settled and told.
		g.Eventually(func() verdict {
			return r.check(ctx, l, func(o order) bool { return !o.funded.IsZero() && o.funded.Before(t0) })
		}).Should(Satisfy(verdict.clean), "after %s", f.name)
		res := result{name: f.name, failover: failover, recovery: time.Since(t0)}
		_, failures := l.snapshot()
		var first, last time.Time
		for _, fl := range failures {
			if fl.at.Before(t0) {
				continue
			}
			if first.IsZero() {
				first = fl.at
			}
			last = fl.at
			res.errors++
		}
		res.window = last.Sub(first)
		for _, fl := range failures {
			if !fl.at.Before(t0) {
				t.Logf("partner-visible failure at +%v: %s %d", fl.at.Sub(t0).Round(time.Millisecond), fl.call, fl.status)
			}
		}
		t.Logf("FIGURES %s: failover %v, partner-visible errors %d over %v, back on schedule after %v",
			f.name, failover, res.errors, res.window, res.recovery)
		results = append(results, res)
	}
	l.halt()
	halted = true

	var final verdict
	g.Eventually(func() verdict { final = r.check(ctx, l, nil); return final }).Should(Satisfy(verdict.clean))
	t.Logf("FIGURES final: %s", final)
	_, failures := l.snapshot()
	for _, f := range failures {
		if f.status >= 400 && f.status < 500 {
			t.Errorf("a valid request was refused: %s %d", f.call, f.status)
		}
	}
	if path := os.Getenv("TOPOLOGY_REPORT"); path != "" {
		g.Expect(writeReport(path, results, final, l)).To(Succeed())
	}
}

// successCount counts SUCCESS orders.
func (r *rig) successCount(ctx context.Context) int {
	var list swapv1.SwapOrderList
	if err := r.admin.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return 0
	}
	n := 0
	for _, o := range list.Items {
		if o.Status.Status == swapv1.OrderSuccess {
			n++
		}
	}
	return n
}

// killLeader SIGKILLs the leading controller process at a random moment of the load (up to
// three lease renewals after the previous fault settled, so the kill falls anywhere in the
// renewal cycle and in the orders' steps) and returns how long until another took the lease.
func killLeader(r *rig, _ *load) time.Duration {
	time.Sleep(rand.N(3 * retryPeriod)) // the fault's shape: a random moment
	return r.failover(func(p *proc) { _ = p.signal(syscall.SIGKILL) }, nil)
}

// pauseLeader SIGSTOPs the leader until another has taken over and its lease has run out
// twice over, then SIGCONTs it: a process waking up believing it still leads.
func pauseLeader(r *rig, _ *load) time.Duration {
	var paused *proc
	d := r.failover(func(p *proc) { paused = p; _ = p.signal(syscall.SIGSTOP) }, func() {
		time.Sleep(2 * leaseDuration) // the fault's shape: paused longer than its lease
		_ = paused.signal(syscall.SIGCONT)
	})
	return d
}

// failover finds the leader, does act to it and waits until the lease has a new holder;
// after (if any) runs then.
func (r *rig) failover(act func(*proc), after func()) time.Duration {
	ctx := context.Background()
	g := NewWithT(r.t)
	var leader *proc
	g.Eventually(func() *proc { leader = r.leader(); return leader }).WithTimeout(testDeadline(r.t)).ShouldNot(BeNil())
	holder := r.holder(ctx)
	t0 := time.Now()
	act(leader)
	g.Eventually(func() bool { h := r.holder(ctx); return h != "" && h != holder }).WithTimeout(testDeadline(r.t)).
		WithPolling(20 * time.Millisecond).Should(BeTrue())
	d := time.Since(t0)
	if after != nil {
		after()
	}
	return d
}

// killFrontendCreating SIGKILLs a frontend while the load creates orders on it.
func killFrontendCreating(r *rig, l *load) time.Duration {
	g := NewWithT(r.t)
	before := l.requests.Load()
	g.Eventually(func() int64 { return l.requests.Load() - before }).WithTimeout(testDeadline(r.t)).Should(BeNumerically(">", 3))
	_ = r.frontends[0].signal(syscall.SIGKILL)
	return 0
}

func restartAPIServer(r *rig, _ *load) time.Duration {
	r.restartControlPlane("kube-apiserver")
	return 0
}

func restartEtcd(r *rig, _ *load) time.Duration {
	r.restartControlPlane("etcd")
	return 0
}

// pauseSimulator freezes both providers (SIGSTOP) for two minutes: every call hangs until
// its timeout, as with a provider that stopped answering.
func pauseSimulator(r *rig, _ *load) time.Duration {
	_ = r.sim.signal(syscall.SIGSTOP)
	time.Sleep(2 * time.Minute) // the fault's length
	_ = r.sim.signal(syscall.SIGCONT)
	return 0
}

// receiverUnreachable refuses every connection to the partner's webhook endpoint for five
// minutes.
func receiverUnreachable(r *rig, _ *load) time.Duration {
	r.receiverListener.down.Store(true)
	time.Sleep(5 * time.Minute) // the fault's length
	r.receiverListener.down.Store(false)
	return 0
}

// restartPostgres stops the archive's PostgreSQL and starts it again on the same data.
func restartPostgres(r *rig, _ *load) time.Duration {
	r.postgres.Stop()
	if err := r.postgres.Restart(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	return 0
}

// restartRedis stops the Redis holding the shared rate limits until each frontend has
// answered partners without it (falling back to its own per-replica limits), starts it again
// (empty, as a replaced Redis pod) and waits until each frontend decides by Redis again: a
// partner request answered without its fallback counter moving.
func restartRedis(r *rig, _ *load) time.Duration {
	const fallbacks = "swaprouter_ratelimit_redis_fallback_total"
	g := NewWithT(r.t)
	g.SetDefaultEventuallyTimeout(testDeadline(r.t))
	before := make([]float64, len(r.frontendMetrics))
	for i, m := range r.frontendMetrics {
		g.Eventually(func() float64 { before[i] = r.counter(m, fallbacks); return before[i] }).Should(BeNumerically(">=", 0))
	}
	r.redis.Stop()
	for i, u := range r.frontendURLs {
		g.Eventually(func() bool {
			return r.partnerStatus(u+"/v1/swappable-targets?from="+eth) == http.StatusOK &&
				r.counter(r.frontendMetrics[i], fallbacks) > before[i]
		}).Should(BeTrue(), "frontend %d answers on its own limits while Redis is down", i)
	}
	g.Expect(r.redis.Restart(context.Background())).To(Succeed())
	for i, u := range r.frontendURLs {
		g.Eventually(func() bool {
			n := r.counter(r.frontendMetrics[i], fallbacks)
			return n >= 0 && r.partnerStatus(u+"/v1/swappable-targets?from="+eth) == http.StatusOK &&
				r.counter(r.frontendMetrics[i], fallbacks) == n
		}).Should(BeTrue(), "frontend %d uses Redis again", i)
	}
	return 0
}

// rollingRestart builds fresh binaries and replaces every swaprouter process one at a time
// (SIGTERM, the new binary, ready again), standby controller first, as a Deployment rollout.
func rollingRestart(r *rig, _ *load) time.Duration {
	fresh := r.build(fmt.Sprintf("rolled-%d", time.Now().UnixNano()))
	g := NewWithT(r.t)
	leader := r.leader()
	order := []*proc{}
	for _, c := range r.controllers {
		if c != leader {
			order = append(order, c)
		}
	}
	if leader != nil {
		order = append(order, leader)
	}
	for _, p := range order {
		p.replace(fresh)
		g.Eventually(r.leader).WithTimeout(testDeadline(r.t)).ShouldNot(BeNil())
	}
	for i, p := range r.frontends {
		p.replace(fresh)
		g.Eventually(func() int { return r.partnerStatus(r.frontendURLs[i] + "/v1/swappable-targets?from=" + eth) }).
			WithTimeout(testDeadline(r.t)).Should(Equal(200))
	}
	r.app.replace(fresh)
	return 0
}

func faultList() []fault {
	kills := 3
	if long {
		kills = 30
	}
	if only := os.Getenv("TOPOLOGY_FAULTS"); only != "" {
		// A chosen few, by name fragment (e.g. "etcd,rolling"): for working on one fault.
		var chosen []fault
		for _, f := range longFaults(kills) {
			for _, frag := range strings.Split(only, ",") {
				if strings.Contains(strings.ToLower(f.name), strings.ToLower(frag)) {
					chosen = append(chosen, f)
					break
				}
			}
		}
		return chosen
	}
	if long {
		return longFaults(kills)
	}
	return shortFaults(kills)
}

// shortFaults are the faults of `make test`.
func shortFaults(kills int) []fault {
	var list []fault
	for i := range kills {
		list = append(list, fault{fmt.Sprintf("SIGKILL leader #%d", i+1), killLeader})
	}
	list = append(list,
		fault{"SIGKILL frontend creating orders", killFrontendCreating},
		fault{"SIGSTOP leader beyond its lease, SIGCONT", pauseLeader},
		fault{"kube-apiserver restart", restartAPIServer},
	)
	return list
}

// longFaults are the whole list.
func longFaults(kills int) []fault {
	return append(shortFaults(kills),
		fault{"etcd restart", restartEtcd},
		fault{"simulator stopped 2 min (SIGSTOP)", pauseSimulator},
		fault{"webhook receiver unreachable 5 min", receiverUnreachable},
		fault{"PostgreSQL restart", restartPostgres},
		fault{"Redis restart", restartRedis},
		fault{"rolling restart onto a freshly built binary", rollingRestart},
	)
}

// testDeadline is the time left before the test binary's -timeout, less a margin to report.
func testDeadline(t *testing.T) time.Duration {
	if d, ok := t.Deadline(); ok {
		return time.Until(d) - 30*time.Second
	}
	return 30 * time.Minute
}
