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
