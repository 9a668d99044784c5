package delivery

import (
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func fixedRand(v float64) func() float64 { return func() float64 { return v } }

func TestDecide(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	noJitter := DefaultPolicy()
	noJitter.Rand = fixedRand(0.5) // factor exactly 1

	tests := []struct {
		name    string
		policy  Policy
		attempt int32
		res     Result
		want    Decision
	}{
		{"200 delivered", noJitter, 1, Result{Code: 200},
			Decision{Outcome: OutcomeDelivered, Phase: swapv1.DeliveryDelivered}},
		{"204 on the last attempt delivered", noJitter, 8, Result{Code: 204},
			Decision{Outcome: OutcomeDelivered, Phase: swapv1.DeliveryDelivered}},
		{"500 after the first attempt waits 5s", noJitter, 1, Result{Code: 500},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 500", NextAttemptAt: now.Add(5 * time.Second)}},
		{"400 is retried too", noJitter, 2, Result{Code: 400},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 400", NextAttemptAt: now.Add(5 * time.Minute)}},
		{"302 is not followed and retried", noJitter, 3, Result{Code: 302},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "redirect not followed (HTTP 302)", NextAttemptAt: now.Add(30 * time.Minute)}},
		{"connection error retried", noJitter, 4, Result{Err: dialErr(&os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED})},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "connection refused", NextAttemptAt: now.Add(2 * time.Hour)}},
		{"7th failure waits the last 10h", noJitter, 7, Result{Code: 503},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 503", NextAttemptAt: now.Add(10 * time.Hour)}},
		{"410 fails at once", noJitter, 1, Result{Code: http.StatusGone},
			Decision{Outcome: OutcomeGone, Phase: swapv1.DeliveryFailed, AttemptError: "HTTP 410", Reason: "endpoint gone (HTTP 410)"}},
		{"8th failure gives up", noJitter, 8, Result{Code: 500},
			Decision{Outcome: OutcomeExhausted, Phase: swapv1.DeliveryFailed, AttemptError: "HTTP 500", Reason: "gave up after 8 attempts: HTTP 500"}},
		{"8th connection error gives up", noJitter, 8, Result{Err: dialErr(os.ErrDeadlineExceeded)},
			Decision{Outcome: OutcomeExhausted, Phase: swapv1.DeliveryFailed, AttemptError: "timeout", Reason: "gave up after 8 attempts: timeout"}},
		{"later Retry-After wins", noJitter, 1, Result{Code: 429, RetryAfter: "120"},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 429", NextAttemptAt: now.Add(2 * time.Minute)}},
		{"earlier Retry-After loses to the schedule", noJitter, 2, Result{Code: 503, RetryAfter: "1"},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 503", NextAttemptAt: now.Add(5 * time.Minute)}},
		{"Retry-After as HTTP-date", noJitter, 1, Result{Code: 503, RetryAfter: now.Add(time.Hour).Format(http.TimeFormat)},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 503", NextAttemptAt: now.Add(time.Hour)}},
		{"huge Retry-After is capped", noJitter, 1, Result{Code: 429, RetryAfter: "99999999999999999"},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 429", NextAttemptAt: now.Add(DefaultMaxRetryAfter)}},
		{"garbage Retry-After ignored", noJitter, 1, Result{Code: 429, RetryAfter: "soon"},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 429", NextAttemptAt: now.Add(5 * time.Second)}},
		{"Retry-After does not extend past the last attempt", noJitter, 8, Result{Code: 429, RetryAfter: "60"},
			Decision{Outcome: OutcomeExhausted, Phase: swapv1.DeliveryFailed, AttemptError: "HTTP 429", Reason: "gave up after 8 attempts: HTTP 429"}},
		{"jitter low end -20%", Policy{Schedule: DefaultSchedule, Jitter: 0.2, Rand: fixedRand(0)}, 3, Result{Code: 500},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 500", NextAttemptAt: now.Add(24 * time.Minute)}},
		{"jitter high end +20%", Policy{Schedule: DefaultSchedule, Jitter: 0.2, Rand: fixedRand(1)}, 3, Result{Code: 500},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 500", NextAttemptAt: now.Add(36 * time.Minute)}},
		{"short test schedule", Policy{Schedule: []time.Duration{0, 10 * time.Millisecond}}, 1, Result{Code: 500},
			Decision{Outcome: OutcomeRetry, Phase: swapv1.DeliveryPending, AttemptError: "HTTP 500", NextAttemptAt: now.Add(10 * time.Millisecond)}},
		{"short test schedule exhausted", Policy{Schedule: []time.Duration{0, 10 * time.Millisecond}}, 2, Result{Code: 500},
			Decision{Outcome: OutcomeExhausted, Phase: swapv1.DeliveryFailed, AttemptError: "HTTP 500", Reason: "gave up after 2 attempts: HTTP 500"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.policy.Decide(tc.attempt, tc.res, now)
			if got != tc.want {
				t.Fatalf("Decide(%d, %+v)\n got %+v\nwant %+v", tc.attempt, tc.res, got, tc.want)
			}
		})
	}
}

func TestDecideJitterStaysWithinBounds(t *testing.T) {
	now := time.Unix(0, 0)
	p := DefaultPolicy() // real random source
	for i := 0; i < 1000; i++ {
		d := p.Decide(5, Result{Code: 500}, now).NextAttemptAt.Sub(now)
		if d < 4*time.Hour || d > 6*time.Hour {
			t.Fatalf("5h ±20%% gave %v", d)
		}
	}
}

func TestDefaultScheduleIsTheDesignSchedule(t *testing.T) {
	want := "[0s 5s 5m0s 30m0s 2h0m0s 5h0m0s 10h0m0s 10h0m0s]"
	if got := formatDurations(DefaultSchedule); got != want {
		t.Fatalf("DefaultSchedule = %s, want %s", got, want)
	}
	if DefaultPolicy().MaxAttempts() != 8 || swapv1.MaxDeliveryAttempts < 8 {
		t.Fatal("8 attempts, all recordable in status")
	}
}

func formatDurations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{" 30 ", 30 * time.Second, true},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"tomorrow", 0, false},
		{"Sun, 01 Mar 2026 12:10:00 GMT", 10 * time.Minute, true},
		{"Sun, 01 Mar 2026 11:00:00 GMT", 0, true}, // in the past: now
		{"Sunday, 01-Mar-26 12:00:30 GMT", 30 * time.Second, true},
	}
	for _, tc := range tests {
		got, ok := ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}
