package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Scenario 5: GET /v1/order/{id} at a fixed rate (open loop) for random stored orders, with
// 100 orders stored and again with N stored (after scenario 4); the figure is the median
// p99 at N divided by the median p99 at 100.
const (
	smallStore = 100
	readRate   = 100 // requests per second
)

// readable: an order of the bench partner (scenario 9's other partner's orders answer its key
// 404, as they must) with its deposit address.
func readable(o *swapv1.SwapOrder) bool {
	return o.Spec.Partner == benchPartner && o.Status.DepositAddress != ""
}

// read is one GET of the API, answered 200.
type read func(ctx context.Context) error

// randomOrder reads a random order among ids.
func (h *harness) randomOrder(ids []string) read {
	return func(ctx context.Context) error {
		resp, err := h.api.GetOrder(ctx, ids[rand.IntN(len(ids))])
		return expect(resp, err, http.StatusOK, nil)
	}
}

func (h *harness) readRound(ctx context.Context, get read, d time.Duration) LoadResult {
	return Open(ctx, readRate, d, 256, func(ctx context.Context, _, _ int) error { return get(ctx) })
}

// reads is one kind of GET in readRounds, label in error notes.
type reads struct {
	label string
	get   read
}

// readRounds measures p99s (ms) of rounds of GETs, per kind of reads its p99 of each round.
// A round interleaves the kinds request by request at readRate in all, each kind getting
// readRate × the window's length of requests, so kinds compared round by round ran under the
// same background load (in turn, one window each, they did not: a burst of another
// scenario's work could fall on one kind's window only).
func (h *harness) readRounds(ctx context.Context, s *Scenario, kinds ...reads) [][]float64 {
	d := h.cfg.sized(3*time.Second, time.Second) * time.Duration(len(kinds))
	p99 := make([][]float64, len(kinds))
	labels := make([]string, len(kinds))
	for i, k := range kinds {
		labels[i] = k.label
	}
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		var mu sync.Mutex
		latencies := make([][]time.Duration, len(kinds))
		res := Open(ctx, readRate, d, 256, func(ctx context.Context, _, i int) error {
			k := i % len(kinds)
			t0 := time.Now()
			if err := kinds[k].get(ctx); err != nil {
				return fmt.Errorf("%s: %w", kinds[k].label, err)
			}
			mu.Lock()
			latencies[k] = append(latencies[k], time.Since(t0))
			mu.Unlock()
			return nil
		})
		if n := errNote(strings.Join(labels, ", "), res); n != "" {
			s.note("%s", n)
		}
		for i := range kinds {
			p99[i] = append(p99[i], PercentileMs(latencies[i], 99))
		}
	}
	return p99
}

// readLoad is what ran beside one size's reads: this process's GC work and the CPU of this
// process and its children (kube-apiserver, etcd), over the reads.
type readLoad struct {
	gc  gcWork
	cpu Usage
}

func (l readLoad) gcCores() float64  { return l.gc.cpu / l.cpu.Window.Seconds() }
func (l readLoad) gcCycles() float64 { return l.gc.cycles / l.cpu.Window.Seconds() }

// cores of proc, a child's command name, or this process for "".
func (l readLoad) cores(proc string) float64 {
	if proc == "" {
		return l.cpu.Self
	}
	return l.cpu.Children[proc]
}

// measuredReads runs scenario 5's rounds of reads over ids and what ran beside them.
func (h *harness) measuredReads(ctx context.Context, s *Scenario, ids []string) ([]float64, readLoad) {
	gc0, meter := readGCWork(), StartCPU()
	p99 := h.readRounds(ctx, s, reads{fmt.Sprintf("GET at %d orders", len(ids)), h.randomOrder(ids)})[0]
	return p99, readLoad{gc: readGCWork().since(gc0), cpu: meter.Stop()}
}

func (h *harness) orderReadSmall(ctx context.Context, s *Scenario) error {
	orders, err := h.activeOrders(ctx)
	if err != nil {
		return err
	}
	if missing := smallStore - len(orders); missing > 0 {
		if _, res := h.createOrders(ctx, benchNamespace, missing, 16); res.Errors > 0 {
			return fmt.Errorf("creating orders: %v", res.FirstErr)
		}
	}
	ids, err := h.addressedOrders(ctx, smallStore, false)
	if err != nil {
		return err
	}
	h.smallP99, h.smallLoad = h.measuredReads(ctx, s, ids)
	h.smallCount = len(ids)
	return ctx.Err()
}

// addressedOrders waits until at least want orders (non-terminal ones when liveOnly) have a
// deposit address and returns their ids.
func (h *harness) addressedOrders(ctx context.Context, want int, liveOnly bool) ([]string, error) {
	var ids []string
	budget := h.cfg.budget(2 * time.Minute)
	ok := waitFor(ctx, budget, 200*time.Millisecond, func() bool {
		orders, err := h.activeOrders(ctx)
		if err != nil {
			return false
		}
		ids = ids[:0]
		for _, o := range orders {
			if readable(&o) && !(liveOnly && o.Status.Status.IsTerminal()) {
				ids = append(ids, o.Spec.OrderID)
			}
		}
		return len(ids) >= want
	})
	if !ok {
		return nil, fmt.Errorf("only %d of %d orders got a deposit address within %s", len(ids), want, budget)
	}
	return ids, nil
}

func (h *harness) orderReadLarge(ctx context.Context, s *Scenario) error {
	if len(h.smallP99) == 0 {
		return fmt.Errorf("the measurement at %d orders is missing", smallStore)
	}
	// Background polling of N orders is scenario 4's load, not a cost of reading one order:
	// slow the polling down so both sizes are read on an otherwise quiet system.
	quiet := 10 * time.Minute
	if err := h.setPollInterval(ctx, quiet, quiet+time.Minute); err != nil {
		return err
	}
	before := h.statusCalls()
	settle := h.pollMax + h.cfg.sized(5*time.Second, time.Second)
	h.logf("  slowing polling to %s and waiting %s for every order to take it", quiet, settle)
	time.Sleep(settle)
	s.note("before the measurement at N the RoutingProviders' poll interval was raised to 10 min so that N orders' polling (scenario 4's load) does not compete with the reads; %d status polls ran during the %s switch-over",
		h.statusCalls()-before, settle)

	orders, err := h.activeOrders(ctx)
	if err != nil {
		return err
	}
	var ids []string
	for _, o := range orders {
		if readable(&o) {
			ids = append(ids, o.Spec.OrderID)
		}
	}
	stopProfile := h.profile(s, "scenario5")
	large, load := h.measuredReads(ctx, s, ids)
	stopProfile()
	base := Median(h.smallP99)
	var ratio []float64
	for _, v := range large {
		ratio = append(ratio, Ratio(v, base))
	}
	s.Setup = fmt.Sprintf("%d rounds of %s at %d GET/s (open loop) for random orders, first with %d stored orders, then with %d; figure per round = p99 at N ÷ median p99 at 100",
		h.cfg.Rounds, h.cfg.sized(3*time.Second, time.Second), readRate, h.smallCount, len(ids))
	s.add(fmt.Sprintf("p99 at %d orders ÷ p99 at %d", len(ids), h.smallCount), ratio, AtMost(1.2))
	s.info(fmt.Sprintf("p99 at %d orders", h.smallCount), "ms", h.smallP99)
	s.info(fmt.Sprintf("p99 at %d orders", len(ids)), "ms", large)
	// What grows with N besides the read path: the collector's work on this process's heap
	// (the manager's cache, the simulator's books), and the other processes on the 2 cores.
	small := h.smallLoad
	s.info(fmt.Sprintf("GC cores while reading, at %d / at %d orders", h.smallCount, len(ids)),
		fmt.Sprintf("(at %d: %.4f)", len(ids), load.gcCores()), []float64{small.gcCores()})
	s.info(fmt.Sprintf("GC cycles per second while reading, at %d / at %d orders", h.smallCount, len(ids)),
		fmt.Sprintf("(at %d: %.2f)", len(ids), load.gcCycles()), []float64{small.gcCycles()})
	for _, proc := range []string{"", "kube-apiserver", "etcd"} {
		name := proc
		if name == "" {
			name = "this process"
		}
		s.info(fmt.Sprintf("%s cores while reading, at %d / at %d orders", name, h.smallCount, len(ids)),
			fmt.Sprintf("(at %d: %.3f)", len(ids), load.cores(proc)), []float64{small.cores(proc)})
	}
	return ctx.Err()
}

// setPollInterval changes both RoutingProviders' poll interval.
func (h *harness) setPollInterval(ctx context.Context, lo, hi time.Duration) error {
	var list swapv1.RoutingProviderList
	if err := h.env.Client.List(ctx, &list, client.InNamespace(benchNamespace)); err != nil {
		return err
	}
	for i := range list.Items {
		rp := &list.Items[i]
		base := rp.DeepCopy()
		rp.Spec.PollInterval = swapv1.PollInterval{Min: metav1.Duration{Duration: lo}, Max: metav1.Duration{Duration: hi}}
		if err := h.env.Client.Patch(ctx, rp, client.MergeFrom(base)); err != nil {
			return fmt.Errorf("poll interval of %s: %w", rp.Name, err)
		}
	}
	return nil
}
