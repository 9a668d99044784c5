package resilience

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func TestRecord(t *testing.T) {
	doubling := Policy{Threshold: 3, Cooldown: 10 * time.Second, MaxCooldown: time.Minute, Jitter: 0.2}
	fixed := Policy{Threshold: 2, Cooldown: 30 * time.Second, MaxCooldown: 30 * time.Second}
	fail, ok, gaveUp := Failed, Succeeded, Abandoned
	tests := []struct {
		name       string
		policy     Policy
		from       State
		outcomes   []Outcome
		retryAfter time.Duration
		wantPhase  Phase
		wantRetry  time.Duration // from t0, when open
	}{
		{"below threshold stays closed", doubling, State{}, []Outcome{fail, fail}, 0, Closed, 0},
		{"threshold opens", doubling, State{}, []Outcome{fail, fail, fail}, 0, Open, 10 * time.Second},
		{"a success resets the count", doubling, State{}, []Outcome{fail, fail, ok, fail}, 0, Closed, 0},
		{"the callee's Retry-After lengthens the cooldown", doubling, State{}, []Outcome{fail, fail, fail}, 30 * time.Second, Open, 30 * time.Second},
		{"a failed trial doubles the cooldown", doubling, State{Phase: HalfOpen, Failures: 3, Trips: 1}, []Outcome{fail}, 0, Open, 20 * time.Second},
		{"the cooldown is capped", doubling, State{Phase: HalfOpen, Failures: 30, Trips: 9}, []Outcome{fail}, 0, Open, time.Minute},
		{"a successful trial closes", doubling, State{Phase: HalfOpen, Failures: 3, Trips: 4}, []Outcome{ok}, 0, Closed, 0},
		{"an abandoned trial lets the next call try", doubling, State{Phase: HalfOpen, Failures: 3, Trips: 1}, []Outcome{gaveUp}, 0, Open, 0},
		{"abandoned calls count nothing", doubling, State{}, []Outcome{fail, fail, gaveUp, gaveUp}, 0, Closed, 0},
		{"late failures do not extend an open breaker", doubling, State{Phase: Open, Failures: 3, Trips: 1, RetryAt: t0.Add(5 * time.Second)}, []Outcome{fail}, 0, Open, 5 * time.Second},
		{"a fixed open period", fixed, State{}, []Outcome{fail, fail}, 0, Open, 30 * time.Second},
		{"a fixed open period stays fixed after a failed trial", fixed, State{Phase: HalfOpen, Failures: 2, Trips: 3}, []Outcome{fail}, 0, Open, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.from
			for _, o := range tt.outcomes {
				s = Record(s, o, tt.retryAfter, t0, tt.policy, 0.5)
			}
			if s.Phase != tt.wantPhase || (s.Phase == Open && s.RetryAt.Sub(t0) != tt.wantRetry) {
				t.Errorf("%s retry in %v; want %s in %v", s.Phase, s.RetryAt.Sub(t0), tt.wantPhase, tt.wantRetry)
			}
		})
	}
}

// FailingSince is the first failure of the current run: later failures keep it, a success
// clears it, and the next failure starts a new run.
func TestFailingSince(t *testing.T) {
	p := Policy{Threshold: 3, Cooldown: 10 * time.Second, MaxCooldown: time.Minute}
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	var s State
	for _, sec := range []int{0, 5, 20, 40} {
		s = Record(s, Failed, 0, at(sec), p, 0.5)
	}
	if !s.FailingSince.Equal(at(0)) {
		t.Fatalf("after four failures from t0: failing since %v", s.FailingSince)
	}
	if s = Record(s, Succeeded, 0, at(50), p, 0.5); !s.FailingSince.IsZero() {
		t.Fatalf("after a success: failing since %v", s.FailingSince)
	}
	if s = Record(s, Failed, 0, at(60), p, 0.5); !s.FailingSince.Equal(at(60)) {
		t.Fatalf("a new run: failing since %v, want %v", s.FailingSince, at(60))
	}
	if s = Record(s, Abandoned, 0, at(70), p, 0.5); !s.FailingSince.Equal(at(60)) {
		t.Fatalf("an abandoned call ended the run: failing since %v", s.FailingSince)
	}
}

func TestAllow(t *testing.T) {
	open := State{Phase: Open, RetryAt: t0.Add(time.Second)}
	if ok, _ := Allow(open, t0); ok {
		t.Fatal("open breaker let a call through before its cooldown")
	}
	ok, trial := Allow(open, t0.Add(time.Second))
	if !ok || trial.Phase != HalfOpen {
		t.Fatalf("cooldown over: allowed %v, phase %s; want one trial", ok, trial.Phase)
	}
	if ok, _ := Allow(trial, t0.Add(2*time.Second)); ok {
		t.Fatal("a second call went through while the trial runs")
	}
	if ok, _ := Allow(State{}, t0); !ok {
		t.Fatal("closed breaker refused a call")
	}
}

func TestCooldownJitter(t *testing.T) {
	p := Policy{Threshold: 3, Cooldown: 10 * time.Second, MaxCooldown: time.Minute, Jitter: 0.2}
	lo := Record(State{Failures: 2}, Failed, 0, t0, p, 0)
	hi := Record(State{Failures: 2}, Failed, 0, t0, p, 0.999)
	if lo.RetryAt.Sub(t0) != 8*time.Second || hi.RetryAt.Sub(t0) <= 11*time.Second {
		t.Fatalf("cooldowns %v and %v; want 8 s and just under 12 s", lo.RetryAt.Sub(t0), hi.RetryAt.Sub(t0))
	}
}
