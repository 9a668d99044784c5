package metrics

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
)

func TestOutcome(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{&provider.Error{Kind: provider.KindTimeout}, "timeout"},
		{&provider.Error{Kind: provider.KindUpstream}, "upstream_error"},
		{&provider.Error{Kind: provider.KindAmountTooLow}, "amount_too_low"},
		{&provider.Error{Kind: provider.KindAmountTooHigh}, "amount_too_high"},
		{&provider.Error{Kind: provider.KindUnsupportedPair}, "unsupported_pair"},
		{&provider.Error{Kind: provider.KindRefused}, "refused"},
		{&provider.Error{Kind: provider.KindNotFound}, "not_found"},
		{errors.New("plain"), "upstream_error"},
	}
	for _, tt := range tests {
		if got := Outcome(tt.err); got != tt.want {
			t.Errorf("Outcome(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// quoteOnly fails Quote with a fixed error; the other methods are never called here.
type quoteOnly struct {
	provider.Provider
	err error
}

func (quoteOnly) ID() swapv1.ProviderID { return "metrics_test" }
func (q quoteOnly) Quote(context.Context, provider.QuoteRequest) (provider.Quote, error) {
	return provider.Quote{}, q.err
}

func TestInstrumentCountsEachCallOnce(t *testing.T) {
	m := New(prometheus.NewRegistry())
	p := m.Instrument(m.Instrument(quoteOnly{err: &provider.Error{Kind: provider.KindTimeout}}, nil), nil)
	for range 3 {
		if _, err := p.Quote(context.Background(), provider.QuoteRequest{}); err == nil {
			t.Fatal("wrapped error lost")
		}
	}
	h := m.callDuration.WithLabelValues("metrics_test", CallQuote, "timeout")
	if n := testutil.CollectAndCount(m.callDuration, "swaprouter_provider_call_duration_seconds"); n == 0 {
		t.Fatal("histogram not collected")
	}
	if got := histogramCount(t, h); got != 3 {
		t.Errorf("observed %d quote calls, want 3", got)
	}
}

func histogramCount(t *testing.T, o prometheus.Observer) uint64 {
	t.Helper()
	var m dto.Metric
	if err := o.(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

func TestInstrumentIntoCountsProviderWideFailuresAndSkipsAbandonedCalls(t *testing.T) {
	var w callstats.Window
	m := New(prometheus.NewRegistry())
	for _, err := range []error{nil, &provider.Error{Kind: provider.KindTimeout}, &provider.Error{Kind: provider.KindAmountTooLow}} {
		_, _ = m.Instrument(quoteOnly{err: err}, &w).Quote(context.Background(), provider.QuoteRequest{})
	}
	gaveUp, cancel := context.WithCancel(context.Background())
	cancel()
	_, _ = m.Instrument(quoteOnly{err: context.Canceled}, &w).Quote(gaveUp, provider.QuoteRequest{})

	got := w.Tally("metrics_test", CallQuote)
	if got.Calls != 3 || got.Failed != 1 {
		t.Errorf("counted %d calls, %d failed; want 3 calls (a refusal is an answer, a call given up is not counted), 1 failed", got.Calls, got.Failed)
	}
}

func TestSignatureFailuresAreCounted(t *testing.T) {
	bad := &provider.Error{Kind: provider.KindRefused, Reason: provider.ReasonSignatureInvalid}
	m := New(prometheus.NewRegistry())
	p := m.Instrument(quoteOnly{err: bad}, nil)
	_, _ = p.Quote(context.Background(), provider.QuoteRequest{})
	_, _ = m.Instrument(quoteOnly{err: &provider.Error{Kind: provider.KindRefused}}, nil).Quote(context.Background(), provider.QuoteRequest{})
	if got := testutil.ToFloat64(m.signatureInvalid.WithLabelValues("metrics_test", CallQuote)); got != 1 {
		t.Errorf("swaprouter_provider_signature_invalid_total = %v, want 1 (a plain refusal is no signature failure)", got)
	}
}
