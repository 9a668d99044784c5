package delivery

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	"github.com/swaprouter/swaprouter/internal/resilience"
)

func TestAttemptOutcome(t *testing.T) {
	timeout := &net.OpError{Op: "dial", Err: context.DeadlineExceeded}
	tests := []struct {
		name string
		res  Result
		want resilience.Outcome
	}{
		{"2xx is a live endpoint", Result{Code: 204}, resilience.Succeeded},
		{"400 is a live endpoint refusing the request", Result{Code: 400}, resilience.Succeeded},
		{"410 is a live endpoint", Result{Code: 410}, resilience.Succeeded},
		{"3xx is a live endpoint", Result{Code: 307}, resilience.Succeeded},
		{"408 fails", Result{Code: 408}, resilience.Failed},
		{"429 fails", Result{Code: 429}, resilience.Failed},
		{"500 fails", Result{Code: 500}, resilience.Failed},
		{"503 fails", Result{Code: 503}, resilience.Failed},
		{"no answer fails", Result{Err: timeout}, resilience.Failed},
		{"the attempt's own deadline fails", Result{Err: fmt.Errorf("post: %w", context.DeadlineExceeded)}, resilience.Failed},
		{"no code and no error fails", Result{}, resilience.Failed},
		{"shutdown is not the endpoint's fault", Result{Err: fmt.Errorf("post: %w", context.Canceled)}, resilience.Abandoned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AttemptOutcome(tt.res); got != tt.want {
				t.Fatalf("AttemptOutcome(%+v) = %v, want %v", tt.res, got, tt.want)
			}
		})
	}
}

// clock is a hand-driven clock for the circuits.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) advance(d time.Duration) { c.now = c.now.Add(d) }

func TestRetryWait(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	retry := 500 * time.Millisecond
	tests := []struct {
		name      string
		v         Verdict
		openUntil time.Time
		rnd       float64
		want      time.Duration
	}{
		{"saturated waits the retry wait", VerdictSaturated, time.Time{}, 0, retry},
		{"saturated with jitter", VerdictSaturated, time.Time{}, 0.5, retry + 250*time.Millisecond},
		{"probe in flight waits the retry wait", VerdictProbing, now.Add(-time.Second), 0, retry},
		{"open waits until the probe is due", VerdictOpen, now.Add(20 * time.Second), 0, 20 * time.Second},
		{"open, jittered past the probe", VerdictOpen, now.Add(20 * time.Second), 0.99, 20*time.Second + 495*time.Millisecond},
		{"open past its end asks again at once", VerdictOpen, now.Add(-time.Second), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RetryWait(tt.v, tt.openUntil, now, retry, tt.rnd); got != tt.want {
				t.Fatalf("RetryWait = %v, want %v", got, tt.want)
			}
		})
	}
}

func delivery(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "ns", Name: name}
}

func TestEndpointsCapPerPartner(t *testing.T) {
	e := NewEndpoints(EndpointOptions{MaxInFlight: 2})
	a, b := PartnerKey{"ns", "a"}, PartnerKey{"ns", "b"}
	a1, a2 := e.Admit(a, "http://a", delivery("x")), e.Admit(a, "http://a", delivery("x"))
	if a1.Verdict != VerdictSend || a2.Verdict != VerdictSend {
		t.Fatalf("first two attempts: %s, %s", a1.Verdict, a2.Verdict)
	}
	if got := e.Admit(a, "http://a", delivery("x")); got.Verdict != VerdictSaturated || got.Wait < DefaultRetryWait {
		t.Fatalf("third attempt of a: %+v, want saturated with a wait", got)
	}
	if got := e.Admit(b, "http://b", delivery("x")); got.Verdict != VerdictSend {
		t.Fatalf("b is not held back by a: %s", got.Verdict)
	}
	if got := e.Admit(PartnerKey{"other", "a"}, "http://a", delivery("x")); got.Verdict != VerdictSend {
		t.Fatalf("a same-named partner of another namespace is its own: %s", got.Verdict)
	}
	if got := testutil.ToFloat64(e.metrics.inFlight.WithLabelValues("ns", "a")); got != 2 {
		t.Fatalf("in-flight gauge of a = %v, want 2", got)
	}
	a1.Done(Result{Code: 200})
	a1.Done(Result{Code: 200}) // a second Done is harmless
	if got := e.Admit(a, "http://a", delivery("x")); got.Verdict != VerdictSend {
		t.Fatalf("after one attempt ended: %s", got.Verdict)
	}
	if got := e.Admit(a, "http://a", delivery("x")); got.Verdict != VerdictSaturated {
		t.Fatalf("the double Done freed one slot only: %s", got.Verdict)
	}
}

func TestEndpointsCircuit(t *testing.T) {
	const openFor = 30 * time.Second
	c := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	e := NewEndpoints(EndpointOptions{MaxInFlight: 10, FailureThreshold: 3, OpenFor: openFor, Now: c.Now})
	p := PartnerKey{"ns", "dead"}
	fail := func() {
		t.Helper()
		a := e.Admit(p, "http://dead", delivery("x"))
		if a.Verdict != VerdictSend {
			t.Fatalf("attempt refused before the threshold: %s", a.Verdict)
		}
		a.Done(Result{Err: context.DeadlineExceeded})
	}
	fail()
	ok := e.Admit(p, "http://dead", delivery("x"))
	ok.Done(Result{Code: 200}) // a success resets the consecutive count
	fail()
	fail()
	fail()
	open := e.Admit(p, "http://dead", delivery("x"))
	if open.Verdict != VerdictOpen || open.Wait <= 0 || open.Wait > openFor+DefaultRetryWait {
		t.Fatalf("after 3 consecutive failures: %+v, want circuit_open waiting about %s", open, openFor)
	}
	if got := testutil.ToFloat64(e.metrics.circuitState.WithLabelValues("ns", "dead")); got != 2 {
		t.Fatalf("circuit gauge = %v, want 2 (open)", got)
	}
	if got := e.Admit(PartnerKey{"ns", "alive"}, "http://alive", delivery("x")); got.Verdict != VerdictSend {
		t.Fatalf("another partner is unaffected: %s", got.Verdict)
	}

	// Until openFor has passed nothing goes; then exactly one probe goes through, and the
	// others wait for its answer.
	c.advance(openFor - time.Millisecond)
	if got := e.Admit(p, "http://dead", delivery("x")); got.Verdict != VerdictOpen || got.Wait < time.Millisecond {
		t.Fatalf("just before the probe is due: %+v", got)
	}
	c.advance(time.Millisecond)
	probe := e.Admit(p, "http://dead", delivery("x"))
	if probe.Verdict != VerdictSend {
		t.Fatalf("no probe admitted once due: %+v", probe)
	}
	if got := testutil.ToFloat64(e.metrics.circuitState.WithLabelValues("ns", "dead")); got != 1 {
		t.Fatalf("circuit gauge = %v, want 1 (half-open)", got)
	}
	if got := e.Admit(p, "http://dead", delivery("x")); got.Verdict != VerdictProbing {
		t.Fatalf("second attempt while probing: %s", got.Verdict)
	}
	probe.Done(Result{Code: 503})
	if got := e.Admit(p, "http://dead", delivery("x")); got.Verdict != VerdictOpen || got.Wait < openFor {
		t.Fatalf("a failed probe reopens for openFor: %+v", got)
	}

	// A new URL is a fresh, closed circuit.
	fixed := e.Admit(p, "http://fixed", delivery("x"))
	if fixed.Verdict != VerdictSend {
		t.Fatalf("new url: %s", fixed.Verdict)
	}
	fixed.Done(Result{Code: 200})
	if got := testutil.ToFloat64(e.metrics.circuitState.WithLabelValues("ns", "dead")); got != 0 {
		t.Fatalf("circuit gauge after the url changed = %v, want 0", got)
	}
}

// An attempt to the url a partner replaced says nothing about the new one.
func TestEndpointsIgnoreTheOldURLsAttempts(t *testing.T) {
	e := NewEndpoints(EndpointOptions{FailureThreshold: 1})
	p := PartnerKey{"ns", "moved"}
	old := e.Admit(p, "http://old", delivery("x"))
	if got := e.Admit(p, "http://new", delivery("y")); got.Verdict != VerdictSend {
		t.Fatalf("new url: %s", got.Verdict)
	}
	old.Done(Result{Code: 503})
	if got := testutil.ToFloat64(e.metrics.circuitState.WithLabelValues("ns", "moved")); got != 0 {
		t.Fatalf("circuit gauge = %v after the old url failed, want 0 (the new url's closed circuit)", got)
	}
	if got := e.Admit(p, "http://new", delivery("z")); got.Verdict != VerdictSend {
		t.Fatalf("the old url's failure opened the new url's circuit: %s", got.Verdict)
	}
}

func TestEndpointsProbeSuccessCloses(t *testing.T) {
	c := &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	e := NewEndpoints(EndpointOptions{FailureThreshold: 1, Now: c.Now})
	p := PartnerKey{"ns", "flaky"}
	a := e.Admit(p, "http://flaky", delivery("x"))
	a.Done(Result{Code: 502})
	c.advance(DefaultOpenFor)
	probe := e.Admit(p, "http://flaky", delivery("x"))
	if probe.Verdict != VerdictSend {
		t.Fatalf("no probe admitted after the open period: %+v", probe)
	}
	probe.Done(Result{Code: 204})
	for i := 0; i < DefaultMaxInFlight; i++ {
		if got := e.Admit(p, "http://flaky", delivery("x")); got.Verdict != VerdictSend {
			t.Fatalf("attempt %d after a good probe: %s", i, got.Verdict)
		}
	}
}

func TestEndpointsShutdownDoesNotTrip(t *testing.T) {
	e := NewEndpoints(EndpointOptions{FailureThreshold: 1})
	p := PartnerKey{"ns", "p"}
	a := e.Admit(p, "http://p", delivery("x"))
	a.Done(Result{Err: context.Canceled})
	if got := e.Admit(p, "http://p", delivery("x")); got.Verdict != VerdictSend {
		t.Fatalf("after a cancelled attempt: %s", got.Verdict)
	}
}

func TestEndpointsWakeTheOldestWaiter(t *testing.T) {
	e := NewEndpoints(EndpointOptions{MaxInFlight: 1})
	p := PartnerKey{"ns", "busy"}
	running := e.Admit(p, "http://busy", delivery("running"))
	for _, name := range []string{"first", "second", "first"} { // "first" asks twice, waits once
		if got := e.Admit(p, "http://busy", delivery(name)); got.Verdict != VerdictSaturated {
			t.Fatalf("%s: %s", name, got.Verdict)
		}
	}
	select {
	case ev := <-e.Freed():
		t.Fatalf("woken before a slot freed: %v", ev.Object)
	default:
	}
	running.Done(Result{Code: 204})
	if ev := <-e.Freed(); ev.Object != delivery("first") {
		t.Fatalf("woke %v, want the oldest waiter", ev.Object)
	}
	second := e.Admit(p, "http://busy", delivery("second")) // took the slot before "first" came back
	if second.Verdict != VerdictSend {
		t.Fatalf("second: %s", second.Verdict)
	}
	if got := e.Admit(p, "http://busy", delivery("first")); got.Verdict != VerdictSaturated {
		t.Fatalf("first: %s", got.Verdict)
	}
	second.Done(Result{Code: 204})
	if ev := <-e.Freed(); ev.Object != delivery("first") {
		t.Fatalf("woke %v, want first (second left the queue when it was admitted)", ev.Object)
	}
	select {
	case ev := <-e.Freed():
		t.Fatalf("extra wake-up: %v", ev.Object)
	default:
	}
}
