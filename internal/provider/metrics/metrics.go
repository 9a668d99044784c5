// Package metrics defines the provider call metrics, the one place they live. Instrument wraps
// a provider.Provider so every call through it is measured; the RoutingProvider reconciler
// wraps each adapter it puts into the providerset, so quotes (frontend) and order calls
// (order reconciler) are all measured without their code knowing.
package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/metricsreg"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
)

// Call labels, one per provider.Provider method.
const (
	CallAssets        = "assets"
	CallQuote         = "quote"
	CallCreateDeposit = "create_deposit"
	CallStatus        = "status"
	CallSubmitDeposit = "submit_deposit"
)

// OutcomeOK labels a call that succeeded; failures are labelled by Outcome.
const OutcomeOK = "ok"

// Metrics are one process's provider call series.
type Metrics struct {
	// callDuration is swaprouter_provider_call_duration_seconds{provider, call, outcome};
	// its _count is the number of calls by outcome.
	callDuration *prometheus.HistogramVec
	// signatureInvalid is swaprouter_provider_signature_invalid_total{provider, call}:
	// answers refused because their signature did not verify with the RoutingProvider's key.
	signatureInvalid *prometheus.CounterVec
}

// New registers the call metrics with reg (nil: controller-runtime's registry).
func New(reg prometheus.Registerer) *Metrics {
	return &Metrics{
		callDuration: metricsreg.MustRegister(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "swaprouter",
			Subsystem: "provider",
			Name:      "call_duration_seconds",
			Help:      "Duration of calls to routing providers by provider, call and outcome.",
			Buckets:   []float64{0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"provider", "call", "outcome"})),
		signatureInvalid: metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "swaprouter",
			Subsystem: "provider",
			Name:      "signature_invalid_total",
			Help:      "Provider answers refused because their signature did not verify, by provider and call.",
		}, []string{"provider", "call"})),
	}
}

// Outcome is the label value for err: "ok", or the error kind in snake case.
func Outcome(err error) string {
	if err == nil {
		return OutcomeOK
	}
	switch provider.AsError(err).Kind {
	case provider.KindTimeout:
		return "timeout"
	case provider.KindAmountTooLow:
		return "amount_too_low"
	case provider.KindAmountTooHigh:
		return "amount_too_high"
	case provider.KindUnsupportedPair:
		return "unsupported_pair"
	case provider.KindRefused:
		return "refused"
	case provider.KindNotFound:
		return "not_found"
	case provider.KindCredentials:
		return "credentials_rejected"
	case provider.KindUnavailable:
		return "unavailable"
	default:
		return "upstream_error"
	}
}

// observe records one call to provider id that started at start and ended with err.
func (m *Metrics) observe(id swapv1.ProviderID, call string, start time.Time, err error) {
	m.callDuration.WithLabelValues(string(id), call, Outcome(err)).Observe(time.Since(start).Seconds())
	if err != nil && provider.AsError(err).Reason == provider.ReasonSignatureInvalid {
		m.signatureInvalid.WithLabelValues(string(id), call).Inc()
	}
}

// Instrument returns p with every call measured into m and counted in calls (when not nil),
// except calls whose caller gave up before the answer: they say nothing about the provider.
// Instrumenting twice would count twice, so an instrumented p is returned unchanged.
func (m *Metrics) Instrument(p provider.Provider, calls *callstats.Window) provider.Provider {
	if _, ok := p.(instrumented); ok {
		return p
	}
	return instrumented{p, m, calls}
}

type instrumented struct {
	next    provider.Provider
	metrics *Metrics
	calls   *callstats.Window
}

// observe records a call that started at start and ended with err.
func (m instrumented) observe(ctx context.Context, call string, start time.Time, err error) {
	m.metrics.observe(m.next.ID(), call, start, err)
	if m.calls == nil || ctx.Err() != nil {
		return
	}
	failed := err != nil && provider.Classify(provider.AsError(err)).ProviderWide()
	m.calls.Record(m.next.ID(), call, time.Since(start), failed)
}

func (m instrumented) ID() swapv1.ProviderID { return m.next.ID() }

func (m instrumented) IdempotentCreate() bool { return m.next.IdempotentCreate() }

// Unwrap returns the adapter being measured.
func (m instrumented) Unwrap() provider.Provider { return m.next }

func (m instrumented) Assets(ctx context.Context) (_ []provider.Asset, err error) {
	defer func(start time.Time) { m.observe(ctx, CallAssets, start, err) }(time.Now())
	return m.next.Assets(ctx)
}

func (m instrumented) Quote(ctx context.Context, req provider.QuoteRequest) (_ provider.Quote, err error) {
	defer func(start time.Time) { m.observe(ctx, CallQuote, start, err) }(time.Now())
	return m.next.Quote(ctx, req)
}

func (m instrumented) CreateDeposit(ctx context.Context, req provider.DepositRequest) (_ provider.Deposit, err error) {
	defer func(start time.Time) { m.observe(ctx, CallCreateDeposit, start, err) }(time.Now())
	return m.next.CreateDeposit(ctx, req)
}

func (m instrumented) Status(ctx context.Context, ref provider.OrderRef) (_ provider.Status, err error) {
	defer func(start time.Time) { m.observe(ctx, CallStatus, start, err) }(time.Now())
	return m.next.Status(ctx, ref)
}

func (m instrumented) SubmitDeposit(ctx context.Context, ref provider.OrderRef, hint swapv1.DepositHint) (err error) {
	defer func(start time.Time) { m.observe(ctx, CallSubmitDeposit, start, err) }(time.Now())
	return m.next.SubmitDeposit(ctx, ref, hint)
}
