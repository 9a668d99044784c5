package archive

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/metricsreg"
)

// Metrics are what Upkeep and Pruner report.
type Metrics struct {
	up     prometheus.Gauge
	pruned prometheus.Counter
}

// NewMetrics registers the archive's metrics with reg (nil: controller-runtime's registry).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	return &Metrics{
		up: metricsreg.MustRegister(reg, prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "swaprouter",
			Subsystem: "archive",
			Name:      "up",
			Help:      "1 while the order archive answers and its schema is migrated; 0 while archived reads answer 503 and terminal orders wait in etcd.",
		})),
		pruned: metricsreg.MustRegister(reg, prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "swaprouter",
			Subsystem: "archive",
			Name:      "pruned_total",
			Help:      "Archived orders deleted by the archive retention (their ids stay taken).",
		})),
	}
}

// Upkeep migrates the schema at start, retrying while the database is unreachable (the
// service runs meanwhile: live orders do not need the archive), then checks the database
// every Interval and reports it in swaprouter_archive_up. Every replica runs one.
type Upkeep struct {
	Archive  *Postgres
	Metrics  *Metrics
	Interval time.Duration
	Log      logr.Logger
}

// Start runs until ctx ends.
func (u *Upkeep) Start(ctx context.Context) error {
	if u.Interval <= 0 {
		u.Interval = 5 * time.Second
	}
	tick := time.NewTicker(u.Interval)
	defer tick.Stop()
	wasUp := true
	for {
		var err error
		if !u.Archive.schemaReady.Load() {
			err = u.Archive.Migrate(ctx)
		} else {
			err = u.Archive.Ready(ctx)
		}
		up := err == nil
		u.Metrics.up.Set(map[bool]float64{true: 1, false: 0}[up])
		if up != wasUp {
			if up {
				u.Log.Info("order archive available")
			} else {
				u.Log.Error(err, "order archive unavailable: archived reads answer 503, terminal orders stay in etcd")
			}
			wasUp = up
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// NeedLeaderElection: every replica migrates (under the migration lock) and reports.
func (u *Upkeep) NeedLeaderElection() bool { return false }

// Pruner deletes archived orders older than Retention in batches, every Interval. It runs on
// the leader only.
type Pruner struct {
	Archive   *Postgres
	Metrics   *Metrics
	Retention time.Duration
	Batch     int
	Interval  time.Duration
	Now       func() time.Time
	Log       logr.Logger
}

// Start runs until ctx ends.
func (p *Pruner) Start(ctx context.Context) error {
	if p.Batch <= 0 {
		p.Batch = 1000
	}
	if p.Interval <= 0 {
		p.Interval = time.Hour
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	tick := time.NewTicker(p.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		n, err := p.Archive.Prune(ctx, p.Now().Add(-p.Retention), p.Batch)
		p.Metrics.pruned.Add(float64(n))
		if err != nil {
			p.Log.Info("archive retention incomplete; retrying next round", "deleted", n, "error", err.Error())
		} else if n > 0 {
			p.Log.Info("archive retention deleted old orders", "deleted", n, "retention", p.Retention)
		}
	}
}
