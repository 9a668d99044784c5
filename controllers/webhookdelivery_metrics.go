package controllers

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/metricsreg"
)

// deliveryMetrics are the webhook delivery reconciler's; the per-partner ones are its
// Endpoints'.
type deliveryMetrics struct {
	deliveries      *prometheus.CounterVec
	attemptDuration *prometheus.HistogramVec
}

func newDeliveryMetrics(reg prometheus.Registerer) *deliveryMetrics {
	return &deliveryMetrics{
		deliveries: metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swaprouter_webhook_deliveries_total",
			Help: "Webhook deliveries that reached a final phase, by outcome (delivered, gone, exhausted, no_target, unverified: never signed, its payload not in the order's history).",
		}, []string{"outcome"})),
		attemptDuration: metricsreg.MustRegister(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "swaprouter_webhook_attempt_duration_seconds",
			Help:    "Duration of webhook POST attempts, by result class (2xx, 3xx, 4xx, 5xx, error).",
			Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15},
		}, []string{"result"})),
	}
}
