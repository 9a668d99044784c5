package ratelimit

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestBurstThenRefuse(t *testing.T) {
	l := New()
	for i := range 3 {
		d := l.Allow("k", 3, t0)
		if !d.Allowed || d.Limit != 3 || d.Remaining != 2-i {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d := l.Allow("k", 3, t0)
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("4th request allowed: %+v", d)
	}
	// 3 per minute: one token every 20 s; the bucket is empty so it is full again in 60 s.
	if d.RetryAfter != 20*time.Second || d.RetryAfterSeconds() != 20 {
		t.Errorf("retry after %v", d.RetryAfter)
	}
	if d.ResetUnix() != t0.Add(time.Minute).Unix() {
		t.Errorf("reset %v", d.Reset)
	}
	if !l.Allow("k", 3, t0.Add(20*time.Second)).Allowed {
		t.Error("token not refilled after 20 s")
	}
}

func TestKeysAreIndependent(t *testing.T) {
	l := New()
	l.Allow("a", 1, t0)
	if l.Allow("a", 1, t0).Allowed {
		t.Error("a not limited")
	}
	if !l.Allow("b", 1, t0).Allowed {
		t.Error("b limited by a's bucket")
	}
}

func TestLimitChangeKeepsUsage(t *testing.T) {
	l := New()
	for range 2 {
		l.Allow("k", 2, t0)
	}
	d := l.Allow("k", 10, t0)
	if !d.Allowed || d.Limit != 10 || d.Remaining != 7 {
		t.Fatalf("raised limit: %+v, want allowed with 7 left", d)
	}
	d = l.Allow("k", 3, t0) // 3 used, 3 allowed
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("lowered limit below usage: %+v, want refused", d)
	}
}

func TestDecisionRounding(t *testing.T) {
	tests := []struct {
		d         Decision
		retry     int64
		resetUnix int64
	}{
		{Decision{RetryAfter: 0, Reset: t0}, 1, t0.Unix()},
		{Decision{RetryAfter: 1500 * time.Millisecond, Reset: t0.Add(time.Millisecond)}, 2, t0.Unix() + 1},
		{Decision{RetryAfter: 3 * time.Second, Reset: t0.Add(3 * time.Second)}, 3, t0.Unix() + 3},
	}
	for _, tt := range tests {
		if got := tt.d.RetryAfterSeconds(); got != tt.retry {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.d.RetryAfter, got, tt.retry)
		}
		if got := tt.d.ResetUnix(); got != tt.resetUnix {
			t.Errorf("ResetUnix(%v) = %d, want %d", tt.d.Reset, got, tt.resetUnix)
		}
	}
}

func TestSweepDropsFullBuckets(t *testing.T) {
	l := New()
	l.Allow("idle", 60, t0)
	l.Allow("busy", 60, t0)
	if l.Len() != 2 {
		t.Fatalf("len %d", l.Len())
	}
	// Two minutes later "idle" has refilled; the sweep runs on the next call.
	later := t0.Add(2 * time.Minute)
	l.Allow("busy", 60, later)
	if l.Len() != 1 {
		t.Errorf("idle bucket kept: len %d", l.Len())
	}
}
