package health

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/resilience"
)

var (
	t0        = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	policy    = resilience.Policy{Threshold: 3, Cooldown: 10 * time.Second, MaxCooldown: time.Minute, Jitter: resilience.Jitter}
	outage    = &provider.Error{Kind: provider.KindUpstream}
	throttled = &provider.Error{Kind: provider.KindUpstream, RetryAfter: 30 * time.Second}
	revoked   = &provider.Error{Kind: provider.KindCredentials}
)

// The provider's side of its breaker: which answers are failures, what class they leave, how
// the RoutingProvider judges the state (the breaker itself is resilience's, tested there).
func TestBreaker(t *testing.T) {
	type step struct {
		outcome resilience.Outcome
		pe      *provider.Error
	}
	fail := func(pe *provider.Error) step { return step{resilience.Failed, pe} }
	ok := step{resilience.Succeeded, nil}
	halfOpen := State{State: resilience.State{Phase: resilience.HalfOpen, Failures: 3, Trips: 1}}
	tests := []struct {
		name      string
		from      State
		steps     []step
		wantPhase resilience.Phase
		wantRetry time.Duration // from t0, when open
		judge     string
	}{
		{"below threshold stays closed", State{}, []step{fail(outage), fail(outage)}, resilience.Closed, 0, ReasonAvailable},
		{"threshold opens", State{}, []step{fail(outage), fail(outage), fail(outage)}, resilience.Open, 10 * time.Second, ReasonDegraded},
		{"404s and refusals are answers", State{}, []step{fail(outage), fail(outage), {resilience.Succeeded, &provider.Error{Kind: provider.KindNotFound}}, fail(outage)}, resilience.Closed, 0, ReasonAvailable},
		{"credentials", State{}, []step{fail(revoked), fail(revoked), fail(revoked)}, resilience.Open, 10 * time.Second, ReasonCredentialsRejected},
		{"Retry-After lengthens the cooldown", State{}, []step{fail(outage), fail(outage), fail(throttled)}, resilience.Open, 30 * time.Second, ReasonDegraded},
		{"failed trial doubles the cooldown", halfOpen, []step{fail(outage)}, resilience.Open, 20 * time.Second, ReasonDegraded},
		{"successful trial closes", halfOpen, []step{ok}, resilience.Closed, 0, ReasonAvailable},
		{"abandoned trial keeps the class", State{State: halfOpen.State, Class: provider.ClassCredentials}, []step{{resilience.Abandoned, nil}}, resilience.Open, 0, ReasonCredentialsRejected},
	}
	for _, tt := range tests {
		s := tt.from
		for _, st := range tt.steps {
			s = Record(s, st.outcome, st.pe, t0, policy, 0.5)
		}
		if s.Phase != tt.wantPhase || (s.Phase == resilience.Open && s.RetryAt.Sub(t0) != tt.wantRetry) || Judge(s).Reason != tt.judge {
			t.Errorf("%s: %s retry in %v judged %s; want %s in %v judged %s", tt.name, s.Phase, s.RetryAt.Sub(t0), Judge(s).Reason, tt.wantPhase, tt.wantRetry, tt.judge)
		}
	}
}

func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		err    error
		gaveUp bool
		want   resilience.Outcome
	}{
		{nil, false, resilience.Succeeded},
		{outage, false, resilience.Failed},
		{revoked, false, resilience.Failed},
		{&provider.Error{Kind: provider.KindTimeout}, false, resilience.Failed},
		{&provider.Error{Kind: provider.KindNotFound}, false, resilience.Succeeded},
		{&provider.Error{Kind: provider.KindAmountTooLow}, false, resilience.Succeeded},
		{outage, true, resilience.Abandoned},
		{errors.New("dial tcp: refused"), false, resilience.Failed},
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
	tr := NewTracker(prometheus.NewRegistry())
	tr.Policy, tr.Now, tr.Rand = policy, func() time.Time { return now }, func() float64 { return 0.5 }
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
