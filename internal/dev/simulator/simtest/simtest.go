// Package simtest starts the provider simulator on 127.0.0.1 for tests and polls for
// conditions, so tests never sleep to synchronise.
package simtest

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

// FastOptions settle a full deposit in about 200 ms and refund an incomplete one after 300 ms.
func FastOptions() simulator.Options {
	return simulator.Options{
		StepDelay: 50 * time.Millisecond, RefundDelay: 300 * time.Millisecond, DepositWindow: time.Minute,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// Start serves a simulator over HTTP on 127.0.0.1 until the test ends.
func Start(t testing.TB, opts simulator.Options) (*simulator.Simulator, string) {
	t.Helper()
	sim := simulator.New(opts)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	return sim, srv.URL
}

// Eventually polls cond every 10 ms until it returns true. It has no budget of its own, so
// a slow machine only makes it wait longer; it gives up shortly before the test binary's
// deadline (go test -timeout) so the failure names what was awaited.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline, bounded := testDeadline(t)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if bounded && time.Now().After(deadline) {
			t.Fatalf("still waiting for %s at the test deadline", what)
		}
		<-tick.C
	}
}

// testDeadline is a little before the test binary's deadline, when it has one.
func testDeadline(t testing.TB) (time.Time, bool) {
	d, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return time.Time{}, false
	}
	at, bounded := d.Deadline()
	return at.Add(-10 * time.Second), bounded
}
