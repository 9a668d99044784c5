package apiserver

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "swaprouter_api_requests_total",
		Help: "HTTP requests to the /v1 frontend by route pattern and status code.",
	}, []string{"route", "code"})
	duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "swaprouter_api_request_duration_seconds",
		Help:    "Time to answer a /v1 request, by route pattern.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30},
	}, []string{"route"})
	inflight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "swaprouter_api_inflight_requests",
		Help: "Requests being answered by the /v1 frontend.",
	})
	orderWait = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "swaprouter_api_order_wait_seconds",
		Help:    "Time order creation waited for the reconciler, by outcome (address, failed, timeout).",
		Buckets: []float64{.05, .1, .25, .5, 1, 2, 5, 10, 20, 30},
	}, []string{"outcome"})
	screeningDecisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "swaprouter_screening_decisions_total",
		Help: "Screening decisions on new orders: clear, blocked, held (a match under review, or a source down under fail-closed), failed_open (a source down under fail-open).",
	}, []string{"decision"})
)

func init() {
	metrics.Registry.MustRegister(requests, duration, inflight, orderWait, screeningDecisions)
}
