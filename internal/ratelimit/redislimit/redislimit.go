// Package redislimit keeps the per-key buckets in Redis (GCRA, github.com/go-redis/redis_rate)
// so every frontend replica draws from the same bucket and N replicas admit exactly the limit.
// When Redis fails, requests are decided by this replica's own buckets (availability over
// strictness: a key may then get up to N times its limit), counted in a metric and logged.
package redislimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-redis/redis_rate/v10"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/swaprouter/swaprouter/internal/metricsreg"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
)

// keyPrefix namespaces our keys in a Redis that may be shared (redis_rate adds "rate:").
const keyPrefix = "swaprouter:apikey:"

// retryEvery is how long a replica decides alone after a Redis failure before it asks Redis
// again: while Redis is down each request would otherwise pay a failed round trip.
const retryEvery = time.Second

// Timeouts applied when the URL sets none: a rate-limit check must not hold a request up for
// go-redis's multi-second defaults when Redis is gone.
const (
	defaultDialTimeout = time.Second
	defaultIOTimeout   = 500 * time.Millisecond
)

// newFallbacks counts the decisions taken without Redis; a Limiter and Slots given the same
// registry share it.
func newFallbacks(reg prometheus.Registerer) prometheus.Counter {
	return metricsreg.MustRegister(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Name: "swaprouter_ratelimit_redis_fallback_total",
		Help: "Rate-limit decisions taken by a replica's own buckets because Redis could not be asked.",
	}))
}

// Limiter is a ratelimit.Allower over Redis with a per-replica fallback.
type Limiter struct {
	rdb      *redis.Client
	gcra     *redis_rate.Limiter
	fallback ratelimit.Allower
	log      logr.Logger
	now      func() time.Time
	// fallbacks counts the decisions fallback took.
	fallbacks prometheus.Counter
	// skipUntil (Unix nanoseconds) is when Redis is next asked after a failure.
	skipUntil atomic.Int64
	// down is true between a failure and the next success, so each outage logs once.
	down atomic.Bool
}

var _ ratelimit.Allower = (*Limiter)(nil)

// New connects (lazily) to the Redis at url, e.g. redis://host:6379/0; go-redis's URL query
// options (dial_timeout, read_timeout, pool_size, …) tune the client. fallback decides while
// Redis is unavailable, counted in reg (nil: controller-runtime's registry).
func New(url string, fallback ratelimit.Allower, log logr.Logger, reg prometheus.Registerer) (*Limiter, error) {
	rdb, err := connect(url)
	if err != nil {
		return nil, err
	}
	return &Limiter{rdb: rdb, gcra: redis_rate.NewLimiter(rdb), fallback: fallback, log: log, now: time.Now,
		fallbacks: newFallbacks(reg)}, nil
}

// connect is a client of the Redis at url with this package's timeouts where it sets none.
func connect(url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redislimit: --redis-url: %w", err)
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = defaultDialTimeout
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = defaultIOTimeout
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = defaultIOTimeout
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = -1 // a failure falls back at once; the next request asks again
	}
	return redis.NewClient(opts), nil
}

// Close releases the connections.
func (l *Limiter) Close() error { return l.rdb.Close() }

// Allow takes one token from key's shared bucket, or from this replica's while Redis fails.
func (l *Limiter) Allow(ctx context.Context, key string, perMinute int) ratelimit.Decision {
	perMinute = max(perMinute, 1)
	now := l.now()
	if now.UnixNano() < l.skipUntil.Load() {
		l.fallbacks.Inc()
		return l.fallback.Allow(ctx, key, perMinute)
	}
	res, err := l.gcra.Allow(ctx, keyPrefix+key, redis_rate.PerMinute(perMinute))
	if err != nil {
		l.skipUntil.Store(now.Add(retryEvery).UnixNano())
		if !l.down.Swap(true) {
			l.log.Info("warning: Redis unavailable, rate limits are per replica until it is back", "error", err.Error())
		}
		l.fallbacks.Inc()
		return l.fallback.Allow(ctx, key, perMinute)
	}
	if l.down.Swap(false) {
		l.log.Info("Redis is back, rate limits are shared again")
	}
	return decision(res.Allowed > 0, res.Remaining, res.RetryAfter, res.ResetAfter, perMinute, now)
}

// decision turns redis_rate's answer into the frontend's, with times from now.
func decision(allowed bool, remaining int, retryAfter, resetAfter time.Duration, perMinute int, now time.Time) ratelimit.Decision {
	d := ratelimit.Decision{
		Allowed:   allowed,
		Limit:     perMinute,
		Remaining: max(0, remaining),
		Reset:     now.Add(max(0, resetAfter)),
	}
	if !allowed {
		d.RetryAfter = max(0, retryAfter)
	}
	return d
}
