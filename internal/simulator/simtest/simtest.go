// Package simtest starts the provider simulator on 127.0.0.1 for tests and polls for
// conditions, so tests never sleep to synchronise.
package simtest

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/simulator"
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

// Eventually polls cond every 10 ms until it returns true or timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		<-tick.C
	}
}
