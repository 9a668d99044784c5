package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
)

func TestBreakerOutcome(t *testing.T) {
	timeout := &net.OpError{Op: "dial", Err: context.DeadlineExceeded}
	tests := []struct {
		name string
		res  Result
		want error
	}{
		{"2xx is a live endpoint", Result{Code: 204}, nil},
		{"400 is a live endpoint refusing the request", Result{Code: 400}, nil},
		{"410 is a live endpoint", Result{Code: 410}, nil},
		{"3xx is a live endpoint", Result{Code: 307}, nil},
		{"408 fails", Result{Code: 408}, errAttemptFailed},
		{"429 fails", Result{Code: 429}, errAttemptFailed},
		{"500 fails", Result{Code: 500}, errAttemptFailed},
		{"503 fails", Result{Code: 503}, errAttemptFailed},
		{"no answer fails", Result{Err: timeout}, errAttemptFailed},
		{"the attempt's own deadline fails", Result{Err: fmt.Errorf("post: %w", context.DeadlineExceeded)}, errAttemptFailed},
		{"no code and no error fails", Result{}, errAttemptFailed},
		{"shutdown is not the endpoint's fault", Result{Err: fmt.Errorf("post: %w", context.Canceled)}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BreakerOutcome(tt.res); !errors.Is(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Fatalf("BreakerOutcome(%+v) = %v, want %v", tt.res, got, tt.want)
			}
		})
	}
}

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
	if got := testutil.ToFloat64(inFlight.WithLabelValues("ns", "a")); got != 2 {
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
	const openFor = 50 * time.Millisecond
	e := NewEndpoints(EndpointOptions{MaxInFlight: 10, FailureThreshold: 3, OpenFor: openFor})
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
	if got := testutil.ToFloat64(circuitState.WithLabelValues("ns", "dead")); got != 2 {
		t.Fatalf("circuit gauge = %v, want 2 (open)", got)
	}
	if got := e.Admit(PartnerKey{"ns", "alive"}, "http://alive", delivery("x")); got.Verdict != VerdictSend {
		t.Fatalf("another partner is unaffected: %s", got.Verdict)
	}

	// After openFor, exactly one probe goes through; the others wait for its answer.
	var probe Admission
	for deadline := time.Now().Add(10 * time.Second); ; {
		if probe = e.Admit(p, "http://dead", delivery("x")); probe.Verdict == VerdictSend {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no probe admitted: %+v", probe)
		}
		time.Sleep(probe.Wait)
	}
	if got := e.Admit(p, "http://dead", delivery("x")); got.Verdict != VerdictProbing {
		t.Fatalf("second attempt while probing: %s", got.Verdict)
	}
	probe.Done(Result{Code: 503})
	if got := e.Admit(p, "http://dead", delivery("x")); got.Verdict != VerdictOpen {
		t.Fatalf("a failed probe reopens: %s", got.Verdict)
	}

	// A new URL is a fresh, closed circuit.
	fixed := e.Admit(p, "http://fixed", delivery("x"))
	if fixed.Verdict != VerdictSend {
		t.Fatalf("new url: %s", fixed.Verdict)
	}
	fixed.Done(Result{Code: 200})
	if got := testutil.ToFloat64(circuitState.WithLabelValues("ns", "dead")); got != 0 {
		t.Fatalf("circuit gauge after the url changed = %v, want 0", got)
	}
}

func TestEndpointsProbeSuccessCloses(t *testing.T) {
	e := NewEndpoints(EndpointOptions{FailureThreshold: 1, OpenFor: time.Millisecond})
	p := PartnerKey{"ns", "flaky"}
	a := e.Admit(p, "http://flaky", delivery("x"))
	a.Done(Result{Code: 502})
	var probe Admission
	for deadline := time.Now().Add(10 * time.Second); ; {
		if probe = e.Admit(p, "http://flaky", delivery("x")); probe.Verdict == VerdictSend {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no probe admitted: %+v", probe)
		}
		time.Sleep(probe.Wait)
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
