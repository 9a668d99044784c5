package bench

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
)

// writeVerbs are the kube-apiserver's verb labels of requests that write to etcd.
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// apiWrites reads the kube-apiserver's own request counter (apiserver_request_total): writes
// so far by "verb resource[/subresource]", every client's included (Events too).
func (h *harness) apiWrites(ctx context.Context) (map[string]float64, error) {
	cs, err := kubernetes.NewForConfig(h.env.Plane.Config)
	if err != nil {
		return nil, err
	}
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	return parseAPIWrites(string(body)), nil
}

// parseAPIWrites sums apiserver_request_total samples of write verbs in Prometheus text format.
func parseAPIWrites(text string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "apiserver_request_total{")
		if !ok {
			continue
		}
		labelText, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		labels := map[string]string{}
		for _, kv := range strings.Split(labelText, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				labels[k] = strings.Trim(v, `"`)
			}
		}
		if !writeVerbs[labels["verb"]] {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		key := labels["verb"] + " " + labels["resource"]
		if sub := labels["subresource"]; sub != "" {
			key += "/" + sub
		}
		out[key] += n
	}
	return out
}

// writesSoFar is the kube-apiserver's write count so far, all kinds together; NaN when its
// metrics cannot be read, so a figure built on it shows that.
func (h *harness) writesSoFar(ctx context.Context) float64 {
	w, err := h.apiWrites(ctx)
	if err != nil {
		return math.NaN()
	}
	return sumWrites(w)
}

// writesBetween is after − before per key, without the keys that did not move.
func writesBetween(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

func sumWrites(m map[string]float64) float64 {
	var total float64
	for _, v := range m {
		total += v
	}
	return total
}

// histogramTotals reads the sum and count of a histogram of g, over the series whose label
// key has value.
func histogramTotals(g prometheus.Gatherer, name, key, value string) (sum, count float64) {
	families, err := g.Gather()
	if err != nil {
		return 0, 0
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == key && l.GetValue() == value {
					sum += m.GetHistogram().GetSampleSum()
					count += float64(m.GetHistogram().GetSampleCount())
				}
			}
		}
	}
	return sum, count
}

// orderPathTimes are the running totals of where an order's creation spends its time.
type orderPathTimes struct {
	queueSum, queueN, reconcileSum, reconcileN, waitSum, waitN, createSum, createN float64
}

func (h *harness) readOrderPathTimes() orderPathTimes {
	var t orderPathTimes
	t.queueSum, t.queueN = histogramTotals(h.metrics, "workqueue_queue_duration_seconds", "name", "swaporder")
	t.reconcileSum, t.reconcileN = histogramTotals(h.metrics, "controller_runtime_reconcile_time_seconds", "controller", "swaporder")
	t.waitSum, t.waitN = histogramTotals(h.metrics, "swaprouter_api_order_wait_seconds", "outcome", "address")
	t.createSum, t.createN = histogramTotals(h.metrics, "swaprouter_provider_call_duration_seconds", "call", "create_deposit")
	return t
}

// meansMs are the mean queue wait and reconcile time of the order reconciler, the mean wait
// of POST /v1/order for the address and the mean provider call that creates it, between two
// readings, in milliseconds.
func (t orderPathTimes) meansMs(later orderPathTimes) (queue, reconcile, wait, create float64) {
	mean := func(s, n float64) float64 {
		if n <= 0 {
			return 0
		}
		return s / n * 1000
	}
	return mean(later.queueSum-t.queueSum, later.queueN-t.queueN),
		mean(later.reconcileSum-t.reconcileSum, later.reconcileN-t.reconcileN),
		mean(later.waitSum-t.waitSum, later.waitN-t.waitN),
		mean(later.createSum-t.createSum, later.createN-t.createN)
}
