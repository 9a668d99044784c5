package delivery

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/metricsreg"
)

// endpointMetrics are per partner: which partner's endpoint is failing (circuit state), and
// which partner is at its cap of attempts in flight (saturation shows as deferred attempts).
type endpointMetrics struct {
	circuitState *prometheus.GaugeVec
	inFlight     *prometheus.GaugeVec
	deferred     *prometheus.CounterVec
}

func newEndpointMetrics(reg prometheus.Registerer) *endpointMetrics {
	return &endpointMetrics{
		circuitState: metricsreg.MustRegister(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "swaprouter_webhook_circuit_state",
			Help: "State of a partner's webhook circuit breaker: 0 closed (sending), 1 half-open (one probe in flight), 2 open (sending nothing).",
		}, []string{"namespace", "partner"})),
		inFlight: metricsreg.MustRegister(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "swaprouter_webhook_attempts_in_flight",
			Help: "Webhook attempts in flight per partner (capped per partner).",
		}, []string{"namespace", "partner"})),
		deferred: metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swaprouter_webhook_attempts_deferred_total",
			Help: "Due webhook attempts put back without dialing, by partner and reason (saturated: the partner's cap of attempts in flight is reached; circuit_open: its endpoint keeps failing; probe_in_flight: one probe is testing it).",
		}, []string{"namespace", "partner", "reason"})),
	}
}
