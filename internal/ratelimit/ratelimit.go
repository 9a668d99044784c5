// Package ratelimit keeps one token bucket per API key: perMinute tokens, refilled evenly over
// a minute, so a key can burst its whole minute and then sustains perMinute/60 per second.
//
// Limiter keeps the buckets in this process: with N frontend replicas behind a load balancer
// a key gets up to N times its limit. Package redislimit keeps them in Redis, shared by every
// replica; both answer through Allower.
package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// sweepEvery bounds how often idle buckets are dropped.
const sweepEvery = time.Minute

// Limiter holds the buckets of every key seen recently. The zero value is not usable; use New.
type Limiter struct {
	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	lastSweep time.Time
}

// New returns an empty Limiter.
func New() *Limiter { return &Limiter{buckets: map[string]*rate.Limiter{}} }

// Allower decides one request of a key against a bucket of perMinute tokens.
type Allower interface {
	Allow(ctx context.Context, key string, perMinute int) Decision
}

// InProcess is an Allower over a Limiter with a clock.
type InProcess struct {
	Limiter *Limiter
	Now     func() time.Time
}

// Allow takes one token from key's bucket now.
func (p InProcess) Allow(_ context.Context, key string, perMinute int) Decision {
	return p.Limiter.Allow(key, perMinute, p.Now())
}

// Decision is the state of a key's bucket after one request.
type Decision struct {
	Allowed bool
	// Limit is the bucket size (requests per minute).
	Limit int
	// Remaining is the number of whole tokens left.
	Remaining int
	// Reset is when the bucket is full again.
	Reset time.Time
	// RetryAfter is, for a refused request, how long until one token is back.
	RetryAfter time.Duration
}

// ResetUnix is Reset as Unix seconds, rounded up (X-RateLimit-Reset).
func (d Decision) ResetUnix() int64 {
	s := d.Reset.Unix()
	if d.Reset.Nanosecond() > 0 {
		s++
	}
	return s
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up and at least 1 (Retry-After).
func (d Decision) RetryAfterSeconds() int64 {
	return max(1, int64(math.Ceil(d.RetryAfter.Seconds())))
}

// Allow takes one token from key's bucket at now. perMinute may change between calls (the
// Partner was edited); the bucket adopts the new size and keeps its tokens.
func (l *Limiter) Allow(key string, perMinute int, now time.Time) Decision {
	if perMinute < 1 {
		perMinute = 1
	}
	perSecond := rate.Limit(float64(perMinute) / 60)

	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(perSecond, perMinute)
		l.buckets[key] = b
	} else if b.Burst() != perMinute {
		b = resized(b, perSecond, perMinute, now)
		l.buckets[key] = b
	}

	allowed := b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	d := Decision{
		Allowed:   allowed,
		Limit:     perMinute,
		Remaining: max(0, int(math.Floor(tokens))),
		Reset:     now.Add(secondsToRefill(float64(perMinute)-tokens, float64(perSecond))),
	}
	if !allowed {
		d.RetryAfter = secondsToRefill(1-tokens, float64(perSecond))
	}
	return d
}

// resized is a bucket of the new size that has spent what old had spent, so raising a limit
// frees the difference at once and lowering it never grants more than the new size.
func resized(old *rate.Limiter, perSecond rate.Limit, burst int, now time.Time) *rate.Limiter {
	used := int(math.Round(float64(old.Burst()) - old.TokensAt(now)))
	b := rate.NewLimiter(perSecond, burst)
	if used > 0 {
		b.ReserveN(now, min(used, burst))
	}
	return b
}

// secondsToRefill is how long refilling missing tokens at perSecond takes.
func secondsToRefill(missing, perSecond float64) time.Duration {
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / perSecond * float64(time.Second))
}

// sweep drops buckets that are full: a full bucket is the same as no bucket, so memory stays
// proportional to the keys active in the last minute or so.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < sweepEvery {
		return
	}
	l.lastSweep = now
	for key, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, key)
		}
	}
}

// Len is the number of buckets held (for tests and metrics).
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
