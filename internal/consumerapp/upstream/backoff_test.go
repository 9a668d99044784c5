package upstream

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		n    int
		frac float64
		want time.Duration
	}{
		{0, 0, 500 * time.Millisecond},
		{1, 0, time.Second},
		{3, 0, 4 * time.Second},
		{4, 0, 8 * time.Second},
		{9, 0, 8 * time.Second},           // capped
		{0, 0.5, 575 * time.Millisecond},  // half of the 30 % jitter
		{4, 0.5, 9200 * time.Millisecond}, // jitter is added to the capped delay
		{62, 0, 8 * time.Second},          // the shift overflows: still capped
	}
	for _, tt := range tests {
		if got := Backoff(tt.n, tt.frac); got != tt.want {
			t.Errorf("Backoff(%d, %v) = %v, want %v", tt.n, tt.frac, got, tt.want)
		}
	}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		retryAfter string
		n          int
		want       Decision
	}{
		{"transport failure", 0, "", 0, Decision{Retry: true, Wait: 500 * time.Millisecond}},
		{"502 second retry", 502, "", 1, Decision{Retry: true, Wait: time.Second}},
		{"504", 504, "", 2, Decision{Retry: true, Wait: 2 * time.Second}},
		{"500 after four retries", 500, "", 4, Decision{}},
		{"429 waits Retry-After", 429, "3", 0, Decision{Retry: true, Wait: 3 * time.Second}},
		{"429 without Retry-After", 429, "", 0, Decision{}},
		{"429 too long for a person", 429, "60", 0, Decision{}},
		{"429 after four retries", 429, "1", 4, Decision{}},
		{"400 is the caller's to fix", 400, "", 0, Decision{}},
		{"404", 404, "", 0, Decision{}},
		{"410", 410, "", 0, Decision{}},
		{"success", 200, "", 0, Decision{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decide(tt.status, tt.retryAfter, tt.n, 0); got != tt.want {
				t.Errorf("Decide = %+v, want %+v", got, tt.want)
			}
		})
	}
}
