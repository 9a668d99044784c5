package bench

import (
	"context"
	"fmt"
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
//   - manager RSS per 1,000 orders: the RSS growth from before the orders to after the
//     window (both after a GC and returning freed memory to the OS) × the manager's share
//     of the in-use heap growth (heap profiles), per 1,000 orders added.
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
	toCreate := max(h.cfg.Orders-active, 0)

	heapBefore, err := HeapByPart()
	if err != nil {
		return err
	}
	debug.FreeOSMemory()
	rssBefore, _ := ReadProc("self")
	addrBefore := h.depositAddressesCreated()

	h.logf("  %d active orders; creating %d more", active, toCreate)
	start := time.Now()
	done := make(chan LoadResult, 1)
	go func() {
		_, res := h.createOrders(ctx, benchNamespace, toCreate, 32)
		done <- res
	}()
	var created LoadResult
	progress := time.NewTicker(10 * time.Second)
	defer progress.Stop()
	fillDeadline := time.Now().Add(h.cfg.sized(6*time.Minute, time.Minute))
	creating := true
	for {
		addressed := h.depositAddressesCreated() - addrBefore
		if !creating && addressed >= created.OK() {
			break
		}
		if time.Now().After(fillDeadline) {
			s.note("only %d of %d new orders had a deposit address after %s; measuring with what exists", addressed, created.OK(), time.Since(start).Round(time.Second))
			break
		}
		select {
		case created = <-done:
			creating = false
			h.logf("  %d orders created in %s (%.0f/s)%s", created.OK(), created.Elapsed.Round(time.Second), created.PerSecond(), errSuffix(created))
		case <-progress.C:
			h.logf("  %d deposit addresses so far", addressed)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if creating {
		created = <-done
	}
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
		time.Sleep(window)
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

	heapAfter, err := HeapByPart()
	if err != nil {
		return err
	}
	debug.FreeOSMemory()
	rssAfter, _ := ReadProc("self")
	var heapGrowth, managerGrowth float64
	for _, p := range []Part{PartManager, PartSimulator, PartHarness, PartRuntime} {
		heapGrowth += heapAfter[p] - heapBefore[p]
	}
	managerGrowth = heapAfter[PartManager] - heapBefore[PartManager]
	heapFraction := Ratio(managerGrowth, heapGrowth)
	added := max(n-active, 0)
	rssPer1000 := Ratio(float64(rssAfter.RSS-rssBefore.RSS)*heapFraction/(1<<20), float64(added)/1000)

	s.Setup = fmt.Sprintf("N = %d active orders (%d created directly for this scenario in %s, %.0f creates/s, deposit addresses by the reconciler); mean poll interval %s; %d rounds of %s",
		n, created.OK(), fill.Round(time.Second), created.PerSecond(), h.pollMean(), h.cfg.Rounds, window)
	if h.cfg.Orders != 10000 {
		s.note("N is scaled to %d (10,000 in the full run)", h.cfg.Orders)
	}
	s.add("provider status calls/s ÷ (N / mean poll interval)", callRatio, Within(0.85, 1.15))
	s.add("reconciles per order per minute", reconcilesPerMin, AtMost(6))
	s.add("manager CPU cores", managerCores, AtMost(0.5))
	s.Figures = append(s.Figures, Figure{Scenario: 4, Name: "manager RSS per 1,000 orders (MiB)", Value: rssPer1000, Target: AtMost(10)})
	s.info("whole process CPU cores (manager + simulator + harness)", "cores", selfCores)
	s.info("kube-apiserver CPU cores", "cores", apiCores)
	s.info("etcd CPU cores", "cores", etcdCores)
	s.note("CPU attribution from the scenario's CPU profile: %s", shares)
	s.note("memory: process RSS %d MiB → %d MiB for %d added orders; in-use heap grew %.1f MiB, of which the manager %.1f MiB (%.0f %%), the simulator %.1f MiB",
		rssBefore.RSS>>20, rssAfter.RSS>>20, added, heapGrowth/(1<<20), managerGrowth/(1<<20), 100*heapFraction,
		(heapAfter[PartSimulator]-heapBefore[PartSimulator])/(1<<20))
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
