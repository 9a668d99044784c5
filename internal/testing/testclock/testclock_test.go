package testclock

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	var c Clock
	if d := time.Since(c.Now()); d < 0 || d > time.Minute {
		t.Fatalf("the zero Clock is %v off the wall clock", d)
	}

	c.Advance(time.Hour)
	if d := c.Now().Sub(time.Now()); d < 59*time.Minute || d > time.Hour {
		t.Fatalf("advanced by an hour, the clock is %v ahead", d)
	}

	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c.HoldAt(at)
	if got := c.Now(); !got.Equal(at) {
		t.Fatalf("held at %v, Now = %v", at, got)
	}
	c.Advance(time.Second)
	if got := c.Now(); !got.Equal(at.Add(time.Second)) {
		t.Fatalf("held and advanced by 1s, Now = %v", got)
	}
	c.AdvanceTo(at) // already passed
	if got := c.Now(); !got.Equal(at.Add(time.Second)) {
		t.Fatalf("AdvanceTo a passed instant moved the clock to %v", got)
	}
	c.AdvanceTo(at.Add(time.Minute))
	if got := c.Now(); !got.Equal(at.Add(time.Minute)) {
		t.Fatalf("AdvanceTo(+1m): Now = %v", got)
	}

	c.Release()
	if d := c.Now().Sub(time.Now()); d < time.Hour || d > time.Hour+2*time.Minute {
		t.Fatalf("released, the clock is %v ahead; want the hour and the minute it was advanced by", d)
	}
}
