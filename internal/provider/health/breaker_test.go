package health

import (
	"context"
	"errors"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

var (
	t0        = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	policy    = Policy{Threshold: 3, Cooldown: 10 * time.Second, MaxCooldown: time.Minute}
	outage    = &provider.Error{Kind: provider.KindUpstream}
	throttled = &provider.Error{Kind: provider.KindUpstream, RetryAfter: 30 * time.Second}
	revoked   = &provider.Error{Kind: provider.KindCredentials}
)

func TestBreaker(t *testing.T) {
	type step struct {
		outcome Outcome
		pe      *provider.Error
	}
	fail := func(pe *provider.Error) step { return step{Failed, pe} }
	ok := step{Answered, nil}
	tests := []struct {
		name      string
		from      State
		steps     []step
		wantPhase Phase
		wantRetry time.Duration // from t0, when open
		judge     string
	}{
		{"below threshold stays closed", State{}, []step{fail(outage), fail(outage)}, Closed, 0, ReasonAvailable},
		{"threshold opens", State{}, []step{fail(outage), fail(outage), fail(outage)}, Open, 10 * time.Second, ReasonDegraded},
		{"an answer resets the count", State{}, []step{fail(outage), fail(outage), ok, fail(outage)}, Closed, 0, ReasonAvailable},
		{"404s and refusals are answers", State{}, []step{fail(outage), fail(outage), {Answered, &provider.Error{Kind: provider.KindNotFound}}, fail(outage)}, Closed, 0, ReasonAvailable},
		{"credentials", State{}, []step{fail(revoked), fail(revoked), fail(revoked)}, Open, 10 * time.Second, ReasonCredentialsRejected},
		{"Retry-After lengthens the cooldown", State{}, []step{fail(outage), fail(outage), fail(throttled)}, Open, 30 * time.Second, ReasonDegraded},
		{"failed trial doubles the cooldown", State{Phase: HalfOpen, Failures: 3, Trips: 1}, []step{fail(outage)}, Open, 20 * time.Second, ReasonDegraded},
		{"cooldown is capped", State{Phase: HalfOpen, Failures: 30, Trips: 9}, []step{fail(outage)}, Open, time.Minute, ReasonDegraded},
		{"successful trial closes", State{Phase: HalfOpen, Failures: 3, Trips: 4}, []step{ok}, Closed, 0, ReasonAvailable},
		{"abandoned trial lets the next call try", State{Phase: HalfOpen, Failures: 3, Trips: 1}, []step{{Abandoned, nil}}, Open, 0, ReasonDegraded},
		{"late failures do not extend an open breaker", State{Phase: Open, Failures: 3, Trips: 1, RetryAt: t0.Add(5 * time.Second)}, []step{fail(outage)}, Open, 5 * time.Second, ReasonDegraded},
	}
	for _, tt := range tests {
		s := tt.from
		for _, st := range tt.steps {
			s = Record(s, st.outcome, st.pe, t0, policy, 0.5)
		}
		if s.Phase != tt.wantPhase || (s.Phase == Open && s.RetryAt.Sub(t0) != tt.wantRetry) || Judge(s).Reason != tt.judge {
			t.Errorf("%s: %s retry in %v judged %s; want %s in %v judged %s", tt.name, s.Phase, s.RetryAt.Sub(t0), Judge(s).Reason, tt.wantPhase, tt.wantRetry, tt.judge)
		}
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
	lo := Record(State{Failures: 2}, Failed, outage, t0, policy, 0)
	hi := Record(State{Failures: 2}, Failed, outage, t0, policy, 0.999)
	if lo.RetryAt.Sub(t0) != 8*time.Second || hi.RetryAt.Sub(t0) <= 11*time.Second {
		t.Fatalf("cooldowns %v and %v; want 8 s and just under 12 s", lo.RetryAt.Sub(t0), hi.RetryAt.Sub(t0))
	}
}

func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		err    error
		gaveUp bool
		want   Outcome
	}{
		{nil, false, Answered},
		{outage, false, Failed},
		{revoked, false, Failed},
		{&provider.Error{Kind: provider.KindTimeout}, false, Failed},
		{&provider.Error{Kind: provider.KindNotFound}, false, Answered},
		{&provider.Error{Kind: provider.KindAmountTooLow}, false, Answered},
		{outage, true, Abandoned},
		{errors.New("dial tcp: refused"), false, Failed},
	}
	for _, tt := range tests {
		if got, _ := OutcomeOf(tt.err, tt.gaveUp); got != tt.want {
			t.Errorf("OutcomeOf(%v, %v) = %d, want %d", tt.err, tt.gaveUp, got, tt.want)
		}
	}
}

// Guard fails fast once the breaker opened, and tells its consumer once.
func TestGuardFailsFast(t *testing.T) {
	now := t0
	tr := &Tracker{Policy: policy, Now: func() time.Time { return now }, Rand: func() float64 { return 0.5 }}
	calls := 0
	p := Guard(failing{calls: &calls}, tr)
	for range 10 {
		_, err := p.Status(context.Background(), provider.OrderRef{})
		if err == nil {
			t.Fatal("failing provider answered")
		}
	}
	if calls != 3 {
		t.Fatalf("%d calls reached the provider; want 3 (the threshold), the rest held back", calls)
	}
	_, err := p.Status(context.Background(), provider.OrderRef{})
	if pe := provider.AsError(err); pe.Kind != provider.KindUnavailable || pe.RetryAfter != 10*time.Second {
		t.Fatalf("held-back call: %v (retry in %v); want KindUnavailable in 10 s", err, pe.RetryAfter)
	}
	select {
	case id := <-tr.Changes():
		if id != "route_A" {
			t.Fatalf("change for %s", id)
		}
	default:
		t.Fatal("no change notified")
	}
	now = now.Add(10 * time.Second)
	_, _ = p.Status(context.Background(), provider.OrderRef{})
	if calls != 4 {
		t.Fatalf("after the cooldown %d calls; want one trial", calls)
	}
}

type failing struct {
	provider.Provider
	calls *int
}

func (failing) ID() swapv1.ProviderID { return "route_A" }

func (f failing) Status(context.Context, provider.OrderRef) (provider.Status, error) {
	*f.calls++
	return provider.Status{}, &provider.Error{Kind: provider.KindTimeout}
}

// FailingSince is the first failure of the current run: later failures keep it, an answer
// clears it, and the next failure starts a new run.
func TestFailingSince(t *testing.T) {
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	var s State
	for _, sec := range []int{0, 5, 20, 40} {
		s = Record(s, Failed, outage, at(sec), policy, 0.5)
	}
	if !s.FailingSince.Equal(at(0)) {
		t.Fatalf("after four failures from t0: failing since %v", s.FailingSince)
	}
	if s = Record(s, Answered, nil, at(50), policy, 0.5); !s.FailingSince.IsZero() {
		t.Fatalf("after an answer: failing since %v", s.FailingSince)
	}
	if s = Record(s, Failed, outage, at(60), policy, 0.5); !s.FailingSince.Equal(at(60)) {
		t.Fatalf("a new run: failing since %v, want %v", s.FailingSince, at(60))
	}
	if s = Record(s, Abandoned, nil, at(70), policy, 0.5); !s.FailingSince.Equal(at(60)) {
		t.Fatalf("an abandoned call ended the run: failing since %v", s.FailingSince)
	}
}
