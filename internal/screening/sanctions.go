package screening

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/metricsreg"
)

// SourceOFAC names the SDN list in an order's screening record.
const SourceOFAC = "ofac-sdn"

// Sanctions is the SDN list as last loaded from the operator's ConfigMap. A list that fails
// to parse leaves the last good one in place (and says so in its metrics); before any list
// parsed, a present ConfigMap means the source cannot answer.
type Sanctions struct {
	mu      sync.RWMutex
	list    *List
	date    string
	present bool
	failure string
	m       sanctionsMetrics
	now     func() time.Time
}

type sanctionsMetrics struct {
	addresses              *prometheus.GaugeVec
	loadedAt, loadDuration prometheus.Gauge
	failing                prometheus.Gauge
	failures               prometheus.Counter
}

// NewSanctions registers the list's metrics with reg (a second list in the same process, as
// test suites build, shares them).
func NewSanctions(reg prometheus.Registerer, now func() time.Time) (*Sanctions, error) {
	var m sanctionsMetrics
	var errs [5]error
	m.addresses, errs[0] = metricsreg.Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "swaprouter_sanctions_list_addresses",
		Help: "Listed addresses in the loaded sanctions list, per chain (evm counts every EVM chain once)."}, []string{"chain"}))
	m.loadedAt, errs[1] = metricsreg.Register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "swaprouter_sanctions_list_loaded_timestamp_seconds",
		Help: "When the sanctions list in use was loaded (Unix time)."}))
	m.loadDuration, errs[2] = metricsreg.Register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "swaprouter_sanctions_list_load_duration_seconds",
		Help: "How long the last successful parse of the sanctions list took."}))
	m.failing, errs[3] = metricsreg.Register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "swaprouter_sanctions_list_load_failing",
		Help: "1 while the ConfigMap's sanctions list does not parse (the last good list stays in use)."}))
	m.failures, errs[4] = metricsreg.Register(reg, prometheus.NewCounter(prometheus.CounterOpts{Name: "swaprouter_sanctions_list_load_failures_total",
		Help: "Sanctions list loads that failed to parse."}))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return &Sanctions{m: m, now: now}, nil
}

// Load replaces the list with the one in data (SDN.CSV) published on date (may be empty).
// When data does not parse, the last good list stays and the error is returned.
func (s *Sanctions) Load(data []byte, date string) error {
	start := s.now()
	l, err := ParseSDN(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.present = true
	if err != nil {
		s.failure = err.Error()
		s.m.failures.Inc()
		s.m.failing.Set(1)
		return err
	}
	s.list, s.date, s.failure = l, date, ""
	s.m.failing.Set(0)
	s.m.loadDuration.Set(s.now().Sub(start).Seconds())
	s.m.loadedAt.Set(float64(s.now().Unix()))
	s.m.addresses.Reset()
	for chain, n := range l.Sizes() {
		s.m.addresses.WithLabelValues(chain).Set(float64(n))
	}
	return nil
}

// Screen looks each subject up in the list; not consulted while no ConfigMap was seen.
func (s *Sanctions) Screen(_ context.Context, subjects []Subject) (Answer, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.present {
		return Answer{}, false
	}
	a := Answer{Source: swapv1.ScreeningSource{Name: SourceOFAC}}
	if s.list == nil {
		a.Source.Unavailable = "no sanctions list has parsed yet: " + s.failure
		return a, true
	}
	a.Source.Version = s.version()
	for _, sub := range subjects {
		if e, ok := s.list.Lookup(sub.Chain, sub.Address); ok {
			a.Matches = append(a.Matches, Match(sub, SourceOFAC, e.String()))
		}
	}
	return a, true
}

// version names the list in use: its publication date (when the ConfigMap gives one) and
// the digest of the file.
func (s *Sanctions) version() string {
	if s.date == "" {
		return "sha256:" + s.list.Digest()
	}
	return fmt.Sprintf("%s sha256:%s", truncate(s.date, 64), s.list.Digest())
}
