package redislimit

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/swaprouter/swaprouter/internal/dev/localproc/redis"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
)

func TestDecision(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name                   string
		allowed                bool
		remaining              int
		retryAfter, resetAfter time.Duration
		want                   ratelimit.Decision
	}{
		{"admitted", true, 299, -1, 200 * time.Millisecond,
			ratelimit.Decision{Allowed: true, Limit: 300, Remaining: 299, Reset: now.Add(200 * time.Millisecond)}},
		{"refused", false, 0, 150 * time.Millisecond, time.Minute,
			ratelimit.Decision{Limit: 300, Reset: now.Add(time.Minute), RetryAfter: 150 * time.Millisecond}},
		{"negative durations clamp to now", true, -1, -1, -1,
			ratelimit.Decision{Allowed: true, Limit: 300, Reset: now}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decision(tc.allowed, tc.remaining, tc.retryAfter, tc.resetAfter, 300, now); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestBadURL(t *testing.T) {
	if _, err := New("http://not-redis", nil, logr.Discard(), prometheus.NewRegistry()); err == nil {
		t.Fatal("accepted a non-redis URL")
	}
}

// Two replicas share one bucket in a real Redis; when Redis stops each falls back to its own
// buckets and counts it, and no decision fails.
func TestSharedBucketAndFallback(t *testing.T) {
	ctx := context.Background()
	srv, stop, err := redis.StartThrowaway(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	replica := func() *Limiter {
		l, err := New(srv.URL(), ratelimit.InProcess{Limiter: ratelimit.New(), Now: time.Now}, logr.Discard(), prometheus.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		return l
	}
	a, b := replica(), replica()

	// 2 per minute: the third request, on either replica, is refused (a refill needs 30 s).
	start := time.Now()
	var answers []ratelimit.Decision
	for _, l := range []*Limiter{a, b, a, b} {
		answers = append(answers, l.Allow(ctx, "key-1", 2))
	}
	if time.Since(start) < 30*time.Second {
		want := []bool{true, true, false, false}
		for i, d := range answers {
			if d.Allowed != want[i] || d.Limit != 2 {
				t.Fatalf("request %d: %+v, want allowed=%v", i, d, want[i])
			}
		}
		if answers[1].Remaining != 0 || answers[2].RetryAfter <= 0 {
			t.Fatalf("the second replica does not see the first one's request: %+v", answers)
		}
	}

	srv.Stop()
	d := a.Allow(ctx, "key-2", 1)
	if !d.Allowed || d.Limit != 1 {
		t.Fatalf("with Redis down the replica's own bucket should admit: %+v", d)
	}
	if d = a.Allow(ctx, "key-2", 1); d.Allowed {
		t.Fatalf("the fallback bucket should hold the limit per replica: %+v", d)
	}
	if got := testutil.ToFloat64(a.fallbacks); got != 2 {
		t.Fatalf("fallback metric of the replica is %v, want 2", got)
	}
}
