package apiserver

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Two Servers in one process, each given its own registry, count only their own requests.
func TestServersCountIntoTheirOwnRegistries(t *testing.T) {
	first, second := newHarness(t), newHarness(t)
	first.do(req{method: "GET", path: "/v1/order/ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"})
	first.do(req{method: "GET", path: "/v1/order/ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"})
	second.do(req{method: "GET", path: "/v1/order/ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"})

	notFound := map[string]string{"route": "GET /v1/order/{id}", "code": "404"}
	if got := counterSum(t, first.metrics, "swaprouter_api_requests_total", notFound); got != 2 {
		t.Errorf("the first server counted %v requests, want its 2", got)
	}
	if got := counterSum(t, second.metrics, "swaprouter_api_requests_total", notFound); got != 1 {
		t.Errorf("the second server counted %v requests, want its 1", got)
	}
}

// counterSum adds up the counter series of name in g whose labels include want.
func counterSum(t *testing.T, g prometheus.Gatherer, name string, want map[string]string) float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}
