package apiserver

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/testing/metricsum"
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

func counterSum(t *testing.T, g prometheus.Gatherer, name string, want map[string]string) float64 {
	t.Helper()
	sum, err := metricsum.Of(g, name, want)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}
