package bench

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/metrics"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Scenario 4: N active orders idle-polling (PENDING, no deposit). The orders are created
// directly as SwapOrders (the reconciler then obtains their deposit addresses, as for
// frontend orders); once all have addresses and a full poll interval passed, rounds of a
// fixed window measure:
//   - provider status calls/s (simulator counters) ÷ (N / mean poll interval);
//   - reconciles per order per minute (controller_runtime_reconcile_total{controller="swaporder"});
//   - manager CPU cores: process CPU time (/proc/self/stat) × the manager's share of a CPU
//     profile taken over the window (the simulator and the harness run in the same process);
//   - manager RSS per 1,000 orders: the growth of anonymous RSS (RssAnon: heap, stacks,
//     runtime; not the executable's pages, which become resident as code first runs) from
//     before the orders to after the window (both after a GC and returning freed memory to
//     the OS) × the manager's share of the in-use heap growth (heap profiles), per 1,000
//     orders added. The provider simulator runs in this process (the harness reads its
//     counters); its heap (its order book, its HTTP server) is told apart by stack and left
//     out, so the figure is the manager's, scaled from heap to RSS;
//   - the manager's in-use heap growth per 1,000 orders: the same attribution without the
//     RSS scaling (RSS is about twice the live heap: spans the cache's objects pin).
func (h *harness) idlePolling(ctx context.Context, s *Scenario) error {
	window := h.cfg.sized(20*time.Second, 3*time.Second)
	existing, err := h.activeOrders(ctx)
	if err != nil {
		return err
	}
	active := 0
	for _, o := range existing {
		if !terminal(o.Status.Status) {
			active++
		}
	}
	// The scenario creates the orders whose polling and memory it measures, whatever earlier
	// scenarios left behind: the figures then exist by construction, on any machine.
	toCreate := h.cfg.Orders

	heapBefore, err := HeapByPart(h.profilePath("scenario4.heap-before.pprof"))
	if err != nil {
		return err
	}
	debug.FreeOSMemory()
	rssBefore, _ := ReadProc("self")
	var memBefore runtime.MemStats
	runtime.ReadMemStats(&memBefore)
	goroutinesBefore := runtime.NumGoroutine()
	addrBefore := h.depositAddressesCreated()

	h.logf("  %d active orders left by earlier scenarios; creating %d more", active, toCreate)
	// Orders are created in batches, never more than one batch ahead of the reconciler, and
	// creation stops when the fill budget is spent: N is then what the system absorbed, every
	// order has its address and the creation backlog is drained before measuring idle polling.
	// The fill is bound by order creation (a create, its deposit address from the reconciler
	// and its writes: 22–27 orders/s on the 2-core machine, kube-apiserver CPU-bound while
	// the existing orders are polled), not by the harness: 8 minutes fit 10,000 at 21/s.
	start := time.Now()
	fillBudget, drainBudget := h.cfg.budget(8*time.Minute), h.cfg.budget(2*time.Minute)
	batch := h.cfg.count(500, 100)
	var created LoadResult
	addressed := func() int { return h.depositAddressesCreated() - addrBefore }
	lastLog := time.Now()
	for created.OK() < toCreate && time.Since(start) < fillBudget && ctx.Err() == nil {
		_, res := h.createOrders(ctx, benchNamespace, min(batch, toCreate-created.OK()), 32)
		created.Latencies = append(created.Latencies, res.Latencies...)
		created.Errors += res.Errors
		if created.FirstErr == nil {
			created.FirstErr = res.FirstErr
		}
		created.Elapsed += res.Elapsed
		waitFor(ctx, fillBudget-time.Since(start), 200*time.Millisecond, func() bool {
			return addressed() >= created.OK()-batch
		})
		if time.Since(lastLog) > 10*time.Second {
			h.logf("  %d orders created, %d with deposit addresses", created.OK(), addressed())
			lastLog = time.Now()
		}
	}
	if !waitFor(ctx, drainBudget, 200*time.Millisecond, func() bool { return addressed() >= created.OK() }) {
		s.note("only %d of %d new orders had a deposit address %s after creation stopped; measuring with what exists", addressed(), created.OK(), drainBudget)
	}
	if created.OK() < toCreate {
		s.note("creation stopped at %d of %d new orders when the %s fill budget ran out: the reconciler obtained deposit addresses at about %.0f orders/s on this machine, so %d orders could not be reached within the fill budget",
			created.OK(), toCreate, fillBudget, float64(addressed())/time.Since(start).Seconds(), h.cfg.Orders)
	}
	h.logf("  %d orders created (%s of creates)%s", created.OK(), created.Elapsed.Round(time.Second), errSuffix(created))
	fill := time.Since(start)
	all, err := h.activeOrders(ctx)
	if err != nil {
		return err
	}
	n := 0
	for _, o := range all {
		if !terminal(o.Status.Status) && o.Status.DepositAddress != "" {
			n++
		}
	}
	h.logf("  %d active orders with deposit addresses after %s; settling for %s", n, fill.Round(time.Second), h.pollMax)
	time.Sleep(h.pollMax)

	stopProfile := h.profile(s, "scenario4")
	var callRatio, reconcilesPerMin, selfCores, apiCores, etcdCores []float64
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		calls0, rec0, meter := h.statusCalls(), reconcileTotal("swaporder"), StartCPU()
		if r == h.cfg.Rounds/2 {
			time.Sleep(window / 2)
			s.Waits = GoroutineWaits("SwapOrderReconciler")
			time.Sleep(window - window/2)
		} else {
			time.Sleep(window)
		}
		u := meter.Stop()
		calls, rec := h.statusCalls()-calls0, reconcileTotal("swaporder")-rec0
		secs := u.Window.Seconds()
		callRatio = append(callRatio, Ratio(float64(calls)/secs, float64(n)/h.pollMean().Seconds()))
		reconcilesPerMin = append(reconcilesPerMin, Ratio(rec/float64(n), secs/60))
		selfCores = append(selfCores, u.Self)
		apiCores, etcdCores = append(apiCores, u.Children["kube-apiserver"]), append(etcdCores, u.Children["etcd"])
		h.logf("  round %d: %.0f status calls/s, %.0f reconciles, process %.2f cores, kube-apiserver %.2f, etcd %.2f",
			r+1, float64(calls)/secs, rec, u.Self, u.Children["kube-apiserver"], u.Children["etcd"])
	}
	shares := stopProfile()
	managerShare := shares[PartManager]
	var managerCores []float64
	for _, c := range selfCores {
		managerCores = append(managerCores, c*managerShare)
	}

	heapAfter, err := HeapByPart(h.profilePath("scenario4.heap-after.pprof"))
	if err != nil {
		return err
	}
	debug.FreeOSMemory()
	rssAfter, _ := ReadProc("self")
	var memAfter runtime.MemStats
	runtime.ReadMemStats(&memAfter)
	var heapGrowth, managerGrowth float64
	for _, p := range []Part{PartManager, PartSimulator, PartHarness, PartRuntime} {
		heapGrowth += heapAfter[p] - heapBefore[p]
	}
	managerGrowth = heapAfter[PartManager] - heapBefore[PartManager]
	heapFraction := Ratio(managerGrowth, heapGrowth)
	added := addressed()
	rssPer1000 := Ratio(float64(rssAfter.RSSAnon-rssBefore.RSSAnon)*heapFraction/(1<<20), float64(added)/1000)

	s.Setup = fmt.Sprintf("N = %d active orders (%d created directly for this scenario in %s including their deposit addresses from the reconciler, %.0f orders/s; %d left by earlier scenarios); mean poll interval %s; %d rounds of %s",
		n, created.OK(), fill.Round(time.Second), Ratio(float64(created.OK()), fill.Seconds()), active, h.pollMean(), h.cfg.Rounds, window)
	if h.cfg.Orders != 10000 {
		s.note("N is scaled to %d (10,000 in the full run)", h.cfg.Orders)
	}
	s.add("provider status calls/s ÷ (N / mean poll interval)", callRatio, Within(0.85, 1.15))
	s.add("reconciles per order per minute", reconcilesPerMin, AtMost(6))
	s.add("manager CPU cores", managerCores, AtMost(0.5))
	s.Figures = append(s.Figures, Figure{Scenario: 4, Name: "manager RSS per 1,000 orders (MiB)", Value: rssPer1000, Target: AtMost(8)})
	s.info("manager in-use heap per 1,000 orders (MiB; heap profile, simulator and harness left out by stack)", "MiB",
		[]float64{Ratio(managerGrowth/(1<<20), float64(added)/1000)})
	s.info("whole process CPU cores (manager + simulator + harness)", "cores", selfCores)
	s.info("kube-apiserver CPU cores", "cores", apiCores)
	s.info("etcd CPU cores", "cores", etcdCores)
	s.note("CPU attribution from the scenario's CPU profile: %s", shares)
	s.note("memory: process RSS %d MiB → %d MiB (anonymous %d → %d MiB) for %d added orders; in-use heap grew %.1f MiB, of which the manager %.1f MiB (%.0f %%), the simulator %.1f MiB",
		rssBefore.RSS>>20, rssAfter.RSS>>20, rssBefore.RSSAnon>>20, rssAfter.RSSAnon>>20, added, heapGrowth/(1<<20), managerGrowth/(1<<20), 100*heapFraction,
		(heapAfter[PartSimulator]-heapBefore[PartSimulator])/(1<<20))
	s.note("Go runtime: live heap %d → %d MiB, heap spans in use %d → %d MiB, stacks %d → %d MiB, goroutines %d → %d",
		memBefore.HeapAlloc>>20, memAfter.HeapAlloc>>20, memBefore.HeapInuse>>20, memAfter.HeapInuse>>20, memBefore.StackInuse>>20, memAfter.StackInuse>>20, goroutinesBefore, runtime.NumGoroutine())
	return ctx.Err()
}

func terminal(st swapv1.OrderStatus) bool {
	return st == swapv1.OrderSuccess || st == swapv1.OrderRefunded || st == swapv1.OrderFailed
}

func errSuffix(r LoadResult) string {
	if r.Errors == 0 {
		return ""
	}
	return fmt.Sprintf(", %d failed (first: %v)", r.Errors, r.FirstErr)
}

// reconcileTotal reads controller_runtime_reconcile_total of a controller, all results.
func reconcileTotal(controller string) float64 {
	families, err := metrics.Registry.Gather()
	if err != nil {
		return 0
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == controller {
					sum += m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}
