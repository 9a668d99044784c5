package apiserver

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/metricsreg"
)

// metrics are one Server's series, registered with Options.Metrics.
type metrics struct {
	requests           *prometheus.CounterVec
	duration           *prometheus.HistogramVec
	inflight           prometheus.Gauge
	orderWait          *prometheus.HistogramVec
	screeningDecisions *prometheus.CounterVec
	eventStreams       prometheus.Gauge
	eventsLate         prometheus.Counter
	// reservationsReleased counts the archive's reservations of orders never created.
	reservationsReleased *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	return &metrics{
		requests: metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swaprouter_api_requests_total",
			Help: "HTTP requests to the /v1 frontend by route pattern and status code.",
		}, []string{"route", "code"})),
		duration: metricsreg.MustRegister(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "swaprouter_api_request_duration_seconds",
			Help:    "Time to answer a /v1 request, by route pattern.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30},
		}, []string{"route"})),
		inflight: metricsreg.MustRegister(reg, prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "swaprouter_api_inflight_requests",
			Help: "Requests being answered by the /v1 frontend.",
		})),
		orderWait: metricsreg.MustRegister(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "swaprouter_api_order_wait_seconds",
			Help:    "Time order creation waited for the reconciler, by outcome (address, failed, timeout).",
			Buckets: []float64{.05, .1, .25, .5, 1, 2, 5, 10, 20, 30},
		}, []string{"outcome"})),
		screeningDecisions: metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swaprouter_screening_decisions_total",
			Help: "Screening decisions on new orders: clear, blocked, held (a match under review, or a source down under fail-closed), refused (no usable sanctions list under fail-closed: 503), failed_open (a source down or no usable list under fail-open).",
		}, []string{"decision"})),
		eventStreams: metricsreg.MustRegister(reg, prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "swaprouter_event_streams",
			Help: "Open GET /v1/events streams on this replica.",
		})),
		eventsLate: metricsreg.MustRegister(reg, prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swaprouter_events_late_total",
			Help: "Events a stream saw more than the visibility lag after they occurred (a resume from before them may miss them).",
		})),
		reservationsReleased: metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swaprouter_order_reservations_released_total",
			Help: "Idempotency-Key and clientReference reservations freed for an order never created, by reason: refused (the API server refused the create), abandoned (a create left it behind, found stale and taken over).",
		}, []string{"reason"})),
	}
}
