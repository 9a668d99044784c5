package bench

import (
	"context"
	"strconv"
	"strings"

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
