package bench

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
)

// Scenario 14: what a 10,000-address sanctions list adds to POST /v1/order. Within each round
// the operator's list alternates between 10,000 addresses and a one-record list of four, and
// the round compares the p50s. The screening service the system also asks (the simulator's
// sanctions API) answers in both arms, so the ratio is the list's share.
const (
	screenedListSize    = 10000
	baselineListSize    = 4
	screenedConcurrency = 4
	// screeningWindows is how many turns each arm takes per round.
	screeningWindows = 4
)

func (h *harness) screeningCost(ctx context.Context, s *Scenario) error {
	d := h.cfg.sized(3*time.Second, 700*time.Millisecond)
	s.Setup = fmt.Sprintf("%d rounds; a round is %s of POST /v1/order (route_A and route_B alternating) at concurrency %d with the %d-address list and as long with a %d-address list, in %d turns each, the arms alternating",
		h.cfg.Rounds, d, screenedConcurrency, screenedListSize, baselineListSize, screeningWindows)
	big, small := screening.SyntheticSDN(screenedListSize), screening.SyntheticSDN(baselineListSize)
	order := func(ctx context.Context, _, i int) error {
		resp, err := h.api.CreateOrder(ctx, nil, benchOrder(providers[i%2]))
		return expect(resp, err, http.StatusCreated, nil)
	}
	// One window of one arm: the list in effect in the frontend, then the orders.
	window := func(list []byte, size int) ([]time.Duration, error) {
		if err := h.applySanctionsList(ctx, list, size); err != nil {
			return nil, err
		}
		// The reload's garbage is collected before the orders, not during them: the figure is
		// what screening with the list costs, the reload has its own.
		runtime.GC()
		f := Closed(ctx, screenedConcurrency, d/screeningWindows, 0, order)
		if n := errNote(fmt.Sprintf("POST /v1/order with the %d-address list", size), f); n != "" {
			s.note("%s", n)
		}
		return f.Latencies, nil
	}
	var ratio, with, without, reloadMs []float64
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		// The arms take turns, so a burst of load elsewhere on the machine falls on both; each
		// turn begins with a reload.
		var big10k, small4 []time.Duration
		for w := range 2 * screeningWindows {
			list, size, into := big, screenedListSize, &big10k
			if w%2 == 1 {
				list, size, into = small, baselineListSize, &small4
			}
			l, err := window(list, size)
			if err != nil {
				return err
			}
			*into = append(*into, l...)
			if size == screenedListSize {
				reloadMs = append(reloadMs, 1000*metricSum(h.metrics, "swaprouter_sanctions_list_load_duration_seconds", nil))
			}
		}
		w, wo := PercentileMs(big10k, 50), PercentileMs(small4, 50)
		ratio, with, without = append(ratio, Ratio(w, wo)), append(with, w), append(without, wo)
	}
	s.add(fmt.Sprintf("POST /v1/order p50 with the %d-address list ÷ with a %d-address list", screenedListSize, baselineListSize), ratio, AtMost(1.02))
	s.info(fmt.Sprintf("POST /v1/order p50 with the %d-address list", screenedListSize), "ms", with)
	s.info(fmt.Sprintf("POST /v1/order p50 with the %d-address list", baselineListSize), "ms", without)
	s.info(fmt.Sprintf("list reload in the frontend (parse and swap in), %d addresses", screenedListSize), "ms", reloadMs)
	s.info(fmt.Sprintf("heap the parsed %d-address list keeps", screenedListSize), "MiB", retainedListMiB(big, h.cfg.Rounds))
	return ctx.Err()
}

// applySanctionsList writes list into the operator's ConfigMap and waits until the frontend
// screens with it (its size gauge shows size addresses).
func (h *harness) applySanctionsList(ctx context.Context, list []byte, size int) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: h.env.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, h.env.Client, cm, func() error {
		cm.Data = map[string]string{sdnwatch.Key: string(list)}
		return nil
	}); err != nil {
		return fmt.Errorf("sanctions list ConfigMap: %w", err)
	}
	if !waitFor(ctx, h.cfg.budget(time.Minute), 20*time.Millisecond, func() bool {
		return metricSum(h.metrics, "swaprouter_sanctions_list_addresses", nil) == float64(size)
	}) {
		return fmt.Errorf("the frontend did not load the %d-address list", size)
	}
	return nil
}

// retainedListMiB is the heap a parsed list keeps, measured as the screening package's
// benchmark does: the live heap after a collection, before and after parsing, once per round.
func retainedListMiB(list []byte, rounds int) []float64 {
	var out []float64
	for range rounds {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l := screening.Assess(screening.Published{Present: true, SDN: list})
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(l)
		if l.List == nil {
			continue
		}
		out = append(out, (float64(after.HeapAlloc)-float64(before.HeapAlloc))/(1<<20))
	}
	return out
}
