package orders

import (
	"testing"
	"time"
)

func TestNextReview(t *testing.T) {
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	bound := time.Hour
	before, after := since.Add(59*time.Minute), since.Add(time.Hour)
	tests := []struct {
		name  string
		state ReviewState
		now   time.Time
		want  ReviewStep
	}{
		{"not held", ReviewState{HeldSince: since}, after, ReviewNone},
		{"not held, approve refused elsewhere", ReviewState{Approved: true, HeldSince: since}, before, ReviewNone},
		{"held", ReviewState{Held: true, HeldSince: since}, before, ReviewHeld},
		{"held past the bound", ReviewState{Held: true, HeldSince: since}, after, ReviewExpired},
		{"approved", ReviewState{Held: true, Approved: true, HeldSince: since}, before, ReviewApproved},
		{"approved once the bound passed, before the expiry was written", ReviewState{Held: true, Approved: true, HeldSince: since}, after, ReviewApproved},
		{"rejected", ReviewState{Held: true, Rejected: true, HeldSince: since}, before, ReviewRejected},
		{"approved and rejected at once", ReviewState{Held: true, Approved: true, Rejected: true, HeldSince: since}, before, ReviewRejected},
	}
	for _, tt := range tests {
		if got := NextReview(tt.state, tt.now, bound); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
