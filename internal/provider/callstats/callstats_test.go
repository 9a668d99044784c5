package callstats

import (
	"testing"
	"time"
)

func TestPercentileIsTheBoundOfItsBucket(t *testing.T) {
	for _, tt := range []struct {
		name   string
		took   []time.Duration
		q      float64
		want   time.Duration
		wantOK bool
	}{
		{"no calls", nil, 0.5, 0, false},
		{"one call", []time.Duration{70 * time.Millisecond}, 0.95, 100 * time.Millisecond, true},
		{"median of mostly fast", []time.Duration{3 * time.Millisecond, 4 * time.Millisecond, 8 * time.Millisecond, 2 * time.Second}, 0.5, 5 * time.Millisecond, true},
		{"p95 sees the slow tail", []time.Duration{3 * time.Millisecond, 4 * time.Millisecond, 8 * time.Millisecond, 2 * time.Second}, 0.95, 2500 * time.Millisecond, true},
		{"past the last bound", []time.Duration{time.Minute}, 0.5, time.Minute, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w Window
			for _, d := range tt.took {
				w.Record("route_A", "quote", d, false)
			}
			got, ok := w.Tally("route_A", "quote").Percentile(tt.q)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("p%v = %v, %v; want %v, %v", tt.q*100, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestWindowForgetsCallsOlderThanAnHour(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 30, 0, time.UTC)
	w := Window{Now: func() time.Time { return now }}
	w.Record("route_B", "status", time.Millisecond, true)
	w.Record("route_B", "create_deposit", time.Millisecond, false)
	w.Record("route_A", "status", time.Millisecond, false)

	got := w.Tally("route_B", "status", "create_deposit")
	if rate, _ := got.SuccessRate(); got.Calls != 2 || got.Failed != 1 || rate != 0.5 || !got.FirstFailure.Equal(now.Truncate(time.Minute)) {
		t.Fatalf("tally %+v (rate %v)", got, rate)
	}
	if only := w.Tally("route_B", "create_deposit"); only.Calls != 1 || only.Failed != 0 {
		t.Errorf("one kind: %+v", only)
	}

	now = now.Add(30 * time.Minute)
	w.Record("route_B", "status", time.Millisecond, false)
	if got := w.Tally("route_B", "status"); got.Calls != 2 {
		t.Errorf("half an hour later: %d calls, want 2", got.Calls)
	}
	now = now.Add(31 * time.Minute)
	got = w.Tally("route_B", "status")
	if got.Calls != 1 || got.Failed != 0 || !got.FirstFailure.IsZero() {
		t.Errorf("an hour after the failure: %+v, want only the later call", got)
	}
	// The slot of the first call is reused an hour later: it starts over.
	w.Record("route_B", "status", time.Millisecond, false)
	if got := w.Tally("route_B", "status"); got.Calls != 2 || got.Failed != 0 {
		t.Errorf("after the slot was reused: %+v", got)
	}
}

func TestSettlementWindowCountsMinutes(t *testing.T) {
	w := Window{Bounds: &SettleBounds}
	for _, o := range []struct {
		took time.Duration
		ok   bool
	}{{10 * time.Second, true}, {90 * time.Second, true}, {100 * time.Second, false}, {4 * time.Minute, true}, {5 * time.Hour, true}} {
		w.Record("relay", Settlement, o.took, !o.ok)
	}
	got := Settled(w.Tally("relay", Settlement))
	// Buckets: 15 s, 2 min, 2 min, 5 min, past 4 h. The median is the third order's bucket;
	// the 95th percentile is past the last bound, reported as twice it.
	if got == nil || got.Orders != 5 || got.Succeeded != 4 || got.Seconds.P50 != 120 || got.Seconds.P95 != 8*3600 {
		t.Errorf("settlement = %+v", got)
	}
	if Settled(w.Tally("route_A", Settlement)) != nil {
		t.Error("a provider without settled orders has a summary")
	}
	// A call window keeps its own buckets: 10 s is not rounded up to 15 s there.
	var calls Window
	calls.Record("relay", "quote", 10*time.Second, false)
	if p, _ := calls.Tally("relay", "quote").Percentile(0.5); p != 10*time.Second {
		t.Errorf("call p50 = %v, want 10s", p)
	}
}
