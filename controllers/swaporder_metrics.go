package controllers

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/metricsreg"
	"github.com/swaprouter/swaprouter/internal/parking"
)

// Reasons of orderMetrics.unshown.
const (
	unshownStatusWriteFailed = "status_write_failed"
	unshownAnswerLost        = "answer_lost"
	unshownQuoteChanged      = "quote_changed"
)

// orderMetrics are the order reconciler's metrics. They belong to one reconciler and are
// registered with the registerer it is given, so two managers in one process never share
// (or overwrite) each other's series. Provider call latency is
// swaprouter_provider_call_duration_seconds from internal/provider/metrics, measured by the
// instrumented adapters in the providerset.
type orderMetrics struct {
	transitions *prometheus.CounterVec
	// unshown counts deposit addresses a provider handed out that no user was ever shown:
	// only status.depositAddress is shown, and it is written once.
	unshown      *prometheus.CounterVec
	stalled      *prometheus.CounterVec
	emitFailures *prometheus.CounterVec
	heldBack     *prometheus.CounterVec
	reviews      *prometheus.CounterVec
	// archiveWrites is shared with the OrderTTLSweeper registered with the same registry.
	archiveWrites *prometheus.CounterVec
}

func newOrderMetrics() *orderMetrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "swaprouter", Subsystem: "order", Name: name, Help: help}, labels)
	}
	return &orderMetrics{
		transitions: counter("transitions_total",
			"SwapOrder status transitions by previous (NEW for a new order) and new status.", "from", "to"),
		unshown: counter("unshown_deposit_addresses_total",
			"Deposit addresses a provider created for an order but nobody was shown, by provider and reason "+
				"(status_write_failed: the answer could not be recorded; answer_lost: a create without idempotency timed out "+
				"after it was sent, so the provider may have created one).", "provider", "reason"),
		stalled: counter("watch_stopped_total",
			"Orders whose polling stopped (Stalled WatchStopped) because their provider gave no usable answer for them for the whole watch bound, by provider.", "provider"),
		emitFailures: counter("webhook_emit_failures_total",
			"Failed creations of WebhookDelivery objects, by the API server's reason (Forbidden, Invalid, ...); retried with backoff.", "reason"),
		heldBack: counter("held_back_total",
			"Order passes requeued without calling the provider, by provider and reason (provider_saturated: every call slot "+
				"of the provider in use; provider_budget: its spec.callBudget used up; creates_saturated: the deposit-creation share of the workers in use).",
			"provider", "reason"),
		reviews: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "swaprouter_screening_reviews_total",
			Help: "Orders held for review by screening (held), and how their reviews ended (approved, rejected, expired)."}, []string{"event"}),
		archiveWrites: newArchiveWrites(),
	}
}

// newArchiveWrites counts the writes of terminal orders to the archive, by outcome.
func newArchiveWrites() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "swaprouter", Subsystem: "archive", Name: "writes_total",
		Help: "Writes of terminal orders to the archive by outcome (ok, unavailable, error); unavailable keeps the order in etcd."}, []string{"outcome"})
}

// register adds the counters and the gauges read at scrape time (the cached orders by
// status, the orders parked for a slot) to reg.
func (m *orderMetrics) register(reg prometheus.Registerer, gauge *ordersGauge, lot *parking.Lot[heldKey]) error {
	var errs []error
	for _, c := range []prometheus.Collector{m.transitions, m.unshown, m.stalled, m.emitFailures, m.heldBack, m.reviews,
		ordersCollector{gauge}, parkedCollector{lot}} {
		errs = append(errs, reg.Register(c))
	}
	var err error
	m.archiveWrites, err = metricsreg.Register(reg, m.archiveWrites)
	return errors.Join(append(errs, err)...)
}

var parkedDesc = prometheus.NewDesc("swaprouter_order_parked",
	"Orders waiting for a released slot, by provider and reason (provider_saturated: one of the provider's call slots; "+
		"creates_saturated: one of the deposit-creation share, provider empty). No series: nobody waits.",
	[]string{"provider", "reason"}, nil)

// parkedCollector serves swaprouter_order_parked from a reconciler's lot.
type parkedCollector struct{ lot *parking.Lot[heldKey] }

func (parkedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- parkedDesc }

func (c parkedCollector) Collect(ch chan<- prometheus.Metric) {
	for key, n := range c.lot.Lens() {
		ch <- prometheus.MustNewConstMetric(parkedDesc, prometheus.GaugeValue, float64(n), string(key.provider), key.reason)
	}
}
