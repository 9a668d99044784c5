package leaderfence

import (
	"testing"
	"time"
)

func TestHeld(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		holder  string
		renewed time.Time
		want    bool
	}{
		{"we hold it, renewed just now", "me", now.Add(-time.Second), true},
		{"another process took over while we were paused", "other", now.Add(-time.Second), false},
		{"nobody holds it (released)", "", now, false},
		{"ours, but not renewed for a whole lease: a standby may take it", "me", now.Add(-15 * time.Second), false},
		{"ours, renewed just inside the lease", "me", now.Add(-15*time.Second + time.Millisecond), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := held(tc.holder, tc.renewed, "me", now, 15*time.Second)
			if (err == nil) != tc.want {
				t.Errorf("held = %v, want held %v", err, tc.want)
			}
		})
	}
}
