package screening

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/metricsreg"
)

// SourceOFAC names the SDN list in an order's screening record.
const SourceOFAC = "ofac-sdn"

// Sanctions is the SDN list as last read from the operator's ConfigMap, and its state. It is
// always a source: until a usable list is read, it answers that it cannot screen (NoList),
// which a partner's policy turns into a refusal (fail-closed) or an order recorded as
// screened without it (fail-open).
type Sanctions struct {
	mu sync.RWMutex
	// a is the assessment in use; its State is "" until the list was first read.
	a   Assessment
	m   sanctionsMetrics
	now func() time.Time
}

type sanctionsMetrics struct {
	state, addresses       *prometheus.GaugeVec
	loadedAt, loadDuration prometheus.Gauge
	unusable               prometheus.Counter
}

// NewSanctions registers the list's metrics with reg (a second list in the same process, as
// test suites build, shares them).
func NewSanctions(reg prometheus.Registerer, now func() time.Time) (*Sanctions, error) {
	var m sanctionsMetrics
	var errs [5]error
	m.state, errs[0] = metricsreg.Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "swaprouter_sanctions_list_state",
		Help: "1 for the state the sanctions list is in (loaded, missing, empty, broken, incomplete), 0 for the others; all 0 until it was first read."}, []string{"state"}))
	m.addresses, errs[1] = metricsreg.Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "swaprouter_sanctions_list_addresses",
		Help: "Listed keys in the sanctions list in use, per key scheme (evm counts every EVM chain, Tron and NEAR eth-implicit accounts once)."}, []string{"key"}))
	m.loadedAt, errs[2] = metricsreg.Register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "swaprouter_sanctions_list_loaded_timestamp_seconds",
		Help: "When the sanctions list's ConfigMap was last read (Unix time)."}))
	m.loadDuration, errs[3] = metricsreg.Register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "swaprouter_sanctions_list_load_duration_seconds",
		Help: "How long the last read of the sanctions list took."}))
	m.unusable, errs[4] = metricsreg.Register(reg, prometheus.NewCounter(prometheus.CounterOpts{Name: "swaprouter_sanctions_list_load_failures_total",
		Help: "Reads of the sanctions list's ConfigMap that gave no usable list (missing, empty, broken or incomplete)."}))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return &Sanctions{m: m, now: now}, nil
}

// Load replaces the list with what p is worth, usable or not, and returns that.
func (s *Sanctions) Load(p Published) Assessment {
	start := s.now()
	a := Assess(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.a = a
	s.m.loadDuration.Set(s.now().Sub(start).Seconds())
	s.m.loadedAt.Set(float64(s.now().Unix()))
	for _, st := range States() {
		v := 0.0
		if st == a.State {
			v = 1
		}
		s.m.state.WithLabelValues(strings.ToLower(string(st))).Set(v)
	}
	if !a.State.Usable() {
		s.m.unusable.Inc()
	}
	s.m.addresses.Reset()
	if a.List != nil {
		for scheme, n := range a.List.Sizes() {
			s.m.addresses.WithLabelValues(scheme).Set(float64(n))
		}
	}
	return a
}

// Assessment is the list's state as last loaded (State "" before the first read).
func (s *Sanctions) Assessment() Assessment {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.a
}

// Screen looks each subject's key up in the list. Without a usable list the answer says so
// (NoList), and still carries what the part of a list it has matched.
func (s *Sanctions) Screen(_ context.Context, subjects []Subject) (Answer, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := Answer{Source: swapv1.ScreeningSource{Name: SourceOFAC}}
	switch {
	case s.a.State == "":
		a.Source.Unavailable, a.NoList = "the sanctions list has not been read yet", true
	case !s.a.State.Usable():
		a.Source.Unavailable, a.NoList = "the sanctions list is "+strings.ToLower(string(s.a.State))+": "+s.a.Detail, true
	}
	if s.a.List == nil {
		return a, true
	}
	a.Source.Version = s.a.Version()
	for _, sub := range subjects {
		if e, ok := s.a.List.Lookup(sub.Chain, sub.Address); ok {
			a.Matches = append(a.Matches, Match(sub, SourceOFAC, e.String()))
		}
	}
	return a, true
}
