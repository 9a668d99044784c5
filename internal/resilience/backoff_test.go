package resilience

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	s := time.Second
	tests := []struct {
		attempt int32
		jitter  float64
		unit    float64
		want    time.Duration
	}{
		{0, 0.2, 0.5, 1 * s}, {1, 0.2, 0.5, 1 * s}, {2, 0.2, 0.5, 2 * s}, {3, 0.2, 0.5, 4 * s}, {4, 0.2, 0.5, 8 * s},
		{6, 0.2, 0.5, 32 * s}, {7, 0.2, 0.5, 60 * s}, {40, 0.2, 0.5, 60 * s},
		// ±20 % jitter around the doubling, also at the cap.
		{3, 0.2, 0, 3200 * time.Millisecond}, {3, 0.2, 0.75, 4400 * time.Millisecond}, {40, 0.2, 0, 48 * s},
		// Without jitter, exactly the doubling.
		{3, 0, 0.99, 4 * s},
	}
	for _, tt := range tests {
		got := Backoff(tt.attempt, s, time.Minute, tt.jitter, tt.unit)
		if d := got - tt.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("Backoff(%d, ±%v, %v) = %v, want %v", tt.attempt, tt.jitter, tt.unit, got, tt.want)
		}
	}
}
