// Package testclock is the clock a test injects where code takes a Now func. It runs with the
// wall clock, so timers compressed to milliseconds keep working, and the test moves it instead
// of waiting: Advance jumps past a deadline, HoldAt stops it at an instant until Release.
// (k8s.io/utils/clock/testing's FakeClock stands still unless stepped, which would stop every
// compressed timer of a suite that relies on them.)
package testclock

import (
	"sync"
	"time"
)

// Clock is the wall clock moved by the test. The zero value is the wall clock.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
	held   *time.Time
}

// Now is the held instant, or the wall clock plus what Advance added.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held != nil {
		return *c.held
	}
	return time.Now().Add(c.offset)
}

// Advance moves the clock forward by d (a held clock stays held, d later).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
	if c.held != nil {
		t := c.held.Add(d)
		c.held = &t
	}
}

// AdvanceTo moves the clock forward to t; a t already passed changes nothing.
func (c *Clock) AdvanceTo(t time.Time) {
	if d := t.Sub(c.Now()); d > 0 {
		c.Advance(d)
	}
}

// HoldAt stops the clock at t.
func (c *Clock) HoldAt(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = &t
}

// Release lets the clock run again: the wall clock plus what Advance added.
func (c *Clock) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = nil
}
