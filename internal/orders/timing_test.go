package orders

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestPollInterval(t *testing.T) {
	s := time.Second
	tests := []struct {
		name     string
		min, max time.Duration
		unit     float64
		want     time.Duration
	}{
		{"lower bound", 10 * s, 15 * s, 0, 10 * s},
		{"middle", 10 * s, 15 * s, 0.5, 12500 * time.Millisecond},
		{"near upper bound", 10 * s, 15 * s, 0.999999, 15*s - 5*time.Microsecond},
		{"fixed interval", 200 * time.Millisecond, 200 * time.Millisecond, 0.7, 200 * time.Millisecond},
		{"unset falls back to defaults", 0, 0, 0.2, 11 * s},
		{"inverted falls back to defaults", 5 * s, 1 * s, 0, 10 * s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PollInterval(tt.min, tt.max, tt.unit); got != tt.want {
				t.Errorf("PollInterval(%v, %v, %v) = %v, want %v", tt.min, tt.max, tt.unit, got, tt.want)
			}
		})
	}
}

func TestPollIntervalStaysInBounds(t *testing.T) {
	for i := range 1000 {
		unit := float64(i) / 1000
		if d := PollInterval(10*time.Second, 15*time.Second, unit); d < 10*time.Second || d > 15*time.Second {
			t.Fatalf("unit %v gave %v, outside [10s, 15s]", unit, d)
		}
	}
}

func TestNextPollAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	tests := []struct {
		name    string
		expires *time.Time
		want    time.Time
	}{
		{"no deadline", nil, now.Add(12 * time.Second)},
		{"expiry far away", at(time.Hour), now.Add(12 * time.Second)},
		{"expiry before next poll", at(3 * time.Second), now.Add(3 * time.Second)},
		{"already expired", at(-time.Second), now.Add(12 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NextPollAt(now, 12*time.Second, tt.expires); !got.Equal(tt.want) {
				t.Errorf("NextPollAt = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	s := time.Second
	tests := []struct {
		attempt int32
		want    time.Duration
	}{
		{0, 1 * s}, {1, 1 * s}, {2, 2 * s}, {3, 4 * s}, {4, 8 * s}, {6, 32 * s}, {7, 60 * s}, {40, 60 * s},
	}
	for _, tt := range tests {
		if got := Backoff(tt.attempt, s, time.Minute); got != tt.want {
			t.Errorf("Backoff(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
}

func TestExpired(t *testing.T) {
	deadline := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	grace := 10 * time.Minute
	st := swapv1.SwapOrderStatus{DepositDeadline: &metav1.Time{Time: deadline}}
	tests := []struct {
		name string
		st   swapv1.SwapOrderStatus
		now  time.Time
		want bool
	}{
		{"before deadline", st, deadline.Add(-time.Minute), false},
		{"in grace", st, deadline.Add(9 * time.Minute), false},
		{"at deadline plus grace", st, deadline.Add(grace), true},
		{"after", st, deadline.Add(time.Hour), true},
		{"no deadline never expires", swapv1.SwapOrderStatus{}, deadline.Add(time.Hour * 1000), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expired(&tt.st, grace, tt.now); got != tt.want {
				t.Errorf("Expired = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRetainUntil(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ended := metav1.NewTime(created.Add(2 * time.Hour))
	retention := 30 * 24 * time.Hour

	var live swapv1.SwapOrderStatus
	Apply(&live, Change{pending, "a"}, metav1.NewTime(created))
	if _, ok := RetainUntil(&live, created, retention); ok {
		t.Fatal("a pending order has a retention deadline")
	}
	done := live.DeepCopy()
	Apply(done, Change{success, "b"}, ended)
	if got, ok := RetainUntil(done, created, retention); !ok || !got.Equal(ended.Add(retention)) {
		t.Fatalf("RetainUntil = %v, %v; want %v", got, ok, ended.Add(retention))
	}
	lost := done.DeepCopy()
	lost.History = nil
	if got, ok := RetainUntil(lost, created, retention); !ok || !got.Equal(created.Add(retention)) {
		t.Fatalf("without history RetainUntil = %v, %v; want creation + retention", got, ok)
	}
}
