package health

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/metricsreg"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/resilience"
)

type trackerMetrics struct {
	breakerOpen *prometheus.GaugeVec
	heldBack    *prometheus.CounterVec
}

func newTrackerMetrics(reg prometheus.Registerer) trackerMetrics {
	return trackerMetrics{
		breakerOpen: metricsreg.MustRegister(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "swaprouter", Subsystem: "provider", Name: "breaker_open",
			Help: "1 while the provider's circuit breaker holds calls back (it kept failing), else 0.",
		}, []string{"provider"})),
		heldBack: metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "swaprouter", Subsystem: "provider", Name: "calls_held_back_total",
			Help: "Calls not made because the provider's circuit breaker was open.",
		}, []string{"provider"})),
	}
}

// Tracker holds the breaker of every provider of one process. Safe for concurrent use.
type Tracker struct {
	// Policy tunes every breaker; DefaultPolicy when zero.
	Policy resilience.Policy
	// Now and Rand default to time.Now and rand.Float64.
	Now  func() time.Time
	Rand func() float64

	metrics trackerMetrics
	mu      sync.Mutex
	states  map[swapv1.ProviderID]State
	changes chan swapv1.ProviderID
}

// NewTracker returns a Tracker with the default policy, its metrics registered with reg
// (nil: controller-runtime's registry).
func NewTracker(reg prometheus.Registerer) *Tracker {
	return &Tracker{Policy: DefaultPolicy, Now: time.Now, Rand: rand.Float64, metrics: newTrackerMetrics(reg)}
}

// Changes delivers the id of a provider whose Judgement changed. Sends never block: a
// consumer that falls behind misses notifications, not calls (the RoutingProvider
// reconciler reads the state again on every reconcile).
func (t *Tracker) Changes() <-chan swapv1.ProviderID {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	return t.changes
}

func (t *Tracker) init() {
	if t.states == nil {
		t.states = map[swapv1.ProviderID]State{}
		t.changes = make(chan swapv1.ProviderID, 64)
	}
}

// State returns the breaker of id.
func (t *Tracker) State(id swapv1.ProviderID) State {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	return t.states[id]
}

// Causes of a held-back call (provider.Error.Err of a KindUnavailable): what the breaker
// opened on.
var (
	ErrBreakerOpen         = errors.New("the provider kept failing")
	ErrCredentialsRejected = errors.New("the provider kept rejecting the credentials")
)

// CredentialsRejected reports whether err is a rejection of our credentials, or a call held
// back because of them.
func CredentialsRejected(err error) bool {
	return provider.IsKind(err, provider.KindCredentials) || errors.Is(err, ErrCredentialsRejected)
}

// allow asks whether a call to id may go now; when not, retryIn says when to ask again and
// cause why not.
func (t *Tracker) allow(id swapv1.ProviderID) (ok bool, retryIn time.Duration, cause error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	now := t.Now()
	ok, next := Allow(t.states[id], now)
	t.states[id] = next
	if ok {
		return true, 0, nil
	}
	t.metrics.heldBack.WithLabelValues(string(id)).Inc()
	cause = ErrBreakerOpen
	if next.Class == provider.ClassCredentials {
		cause = ErrCredentialsRejected
	}
	return false, max(next.RetryAt.Sub(now), 0), cause
}

// record feeds the outcome of a call to id.
func (t *Tracker) record(id swapv1.ProviderID, outcome resilience.Outcome, pe *provider.Error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	prev := t.states[id]
	next := Record(prev, outcome, pe, t.Now(), t.policy(), t.Rand())
	t.states[id] = next
	if Judge(prev) != Judge(next) {
		open := 0.0
		if next.Phase != resilience.Closed {
			open = 1
		}
		t.metrics.breakerOpen.WithLabelValues(string(id)).Set(open)
		select {
		case t.changes <- id:
		default:
		}
	}
}

func (t *Tracker) policy() resilience.Policy {
	if t.Policy.Threshold <= 0 {
		return DefaultPolicy
	}
	return t.Policy
}

// Guard wraps p so that every call consults and feeds t.
func Guard(p provider.Provider, t *Tracker) provider.Provider {
	return guarded{next: p, t: t}
}

type guarded struct {
	next provider.Provider
	t    *Tracker
}

// run makes one call through the breaker.
func (g guarded) run(ctx context.Context, call func() error) error {
	id := g.next.ID()
	if ok, retryIn, cause := g.t.allow(id); !ok {
		return &provider.Error{Provider: id, Kind: provider.KindUnavailable,
			Detail: "calls are held back for a while: " + cause.Error(), RetryAfter: retryIn, Err: cause}
	}
	err := call()
	gaveUp := err != nil && errors.Is(ctx.Err(), context.Canceled)
	outcome, pe := OutcomeOf(err, gaveUp)
	g.t.record(id, outcome, pe)
	return err
}

func (g guarded) ID() swapv1.ProviderID  { return g.next.ID() }
func (g guarded) IdempotentCreate() bool { return g.next.IdempotentCreate() }

// Unwrap returns the wrapped adapter.
func (g guarded) Unwrap() provider.Provider { return g.next }

func (g guarded) Assets(ctx context.Context) (out []provider.Asset, err error) {
	err = g.run(ctx, func() (err error) { out, err = g.next.Assets(ctx); return err })
	return out, err
}

func (g guarded) Quote(ctx context.Context, req provider.QuoteRequest) (out provider.Quote, err error) {
	err = g.run(ctx, func() (err error) { out, err = g.next.Quote(ctx, req); return err })
	return out, err
}

func (g guarded) CreateDeposit(ctx context.Context, req provider.DepositRequest) (out provider.Deposit, err error) {
	err = g.run(ctx, func() (err error) { out, err = g.next.CreateDeposit(ctx, req); return err })
	return out, err
}

func (g guarded) Status(ctx context.Context, ref provider.OrderRef) (out provider.Status, err error) {
	err = g.run(ctx, func() (err error) { out, err = g.next.Status(ctx, ref); return err })
	return out, err
}

func (g guarded) SubmitDeposit(ctx context.Context, ref provider.OrderRef, hint swapv1.DepositHint) error {
	return g.run(ctx, func() error { return g.next.SubmitDeposit(ctx, ref, hint) })
}
