// Package budget holds each provider's call budget (a token bucket: calls per second and a
// burst) and enforces it on every call made through the providerset's adapters, so the order
// reconciler's calls and the frontend's quotes draw from one budget per provider.
//
// A Budgets is per process: when the frontend and the controllers run in one process (the
// embedded system of `make run`) they share it; a separate frontend replica has its own, so
// the provider may see up to (1 + frontend replicas) times the configured rate.
//
// A call over budget is not made and not waited for: it fails at once with
// provider.KindUnavailable (cause ErrExhausted, RetryAfter when the next token is due), like
// a call an open circuit breaker holds back. Quotes list the provider in their errors; orders
// requeue without counting a failure.
package budget

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/metricsreg"
	"github.com/swaprouter/swaprouter/internal/provider"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
)

// ErrExhausted is the cause (provider.Error.Err) of a call refused for want of budget.
var ErrExhausted = errors.New("the provider's call budget is used up for now")

// Limit is a provider's budget. A zero Rate means no budget (every call goes).
type Limit struct {
	// Rate is the sustained number of calls per second.
	Rate float64
	// Burst is how many calls may go at once after a quiet period (at least 1).
	Burst int
}

// LimitOf reads a RoutingProvider's spec.callBudget (nil: no budget).
func LimitOf(b *swapv1.ProviderCallBudget) Limit {
	if b == nil {
		return Limit{}
	}
	return Limit{Rate: float64(b.RequestsPerSecond), Burst: max(int(b.Burst), 1)}
}

// Budgets holds the token bucket of every provider of one process. Safe for concurrent use.
// Buckets outlive adapters: the RoutingProvider reconciler rebuilds an adapter on every
// refresh, and the tokens used must not come back with it.
type Budgets struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	throttled *prometheus.CounterVec
	mu        sync.Mutex
	buckets   map[swapv1.ProviderID]*bucket
}

type bucket struct {
	limit   Limit
	limiter *rate.Limiter
}

// New returns Budgets without any budget, counting the calls they refuse into reg (nil:
// controller-runtime's registry).
func New(reg prometheus.Registerer) *Budgets {
	return &Budgets{throttled: metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "swaprouter", Subsystem: "provider", Name: "budget_throttled_total",
		Help: "Calls not made because the provider's call budget (RoutingProvider spec.callBudget) was used up, by provider and call.",
	}, []string{"provider", "call"}))}
}

// Set makes l the budget of id; a zero l removes it. An unchanged limit keeps its tokens.
func (b *Budgets) Set(id swapv1.ProviderID, l Limit) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l.Rate <= 0 {
		delete(b.buckets, id)
		return
	}
	l.Burst = max(l.Burst, 1)
	if cur, ok := b.buckets[id]; ok {
		if cur.limit != l {
			now := b.now()
			cur.limiter.SetLimitAt(now, rate.Limit(l.Rate))
			cur.limiter.SetBurstAt(now, l.Burst)
			cur.limit = l
		}
		return
	}
	if b.buckets == nil {
		b.buckets = map[swapv1.ProviderID]*bucket{}
	}
	b.buckets[id] = &bucket{limit: l, limiter: rate.NewLimiter(rate.Limit(l.Rate), l.Burst)}
}

func (b *Budgets) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// take spends one token of id when there is one; otherwise retryIn is when the next is due.
func (b *Budgets) take(id swapv1.ProviderID) (ok bool, retryIn time.Duration) {
	b.mu.Lock()
	bk := b.buckets[id]
	b.mu.Unlock()
	if bk == nil {
		return true, 0
	}
	now := b.now()
	r := bk.limiter.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// Guard wraps p so that every call except the asset probe spends one token of p's budget.
// The probe is exempt: refusing it would mark the provider not Ready for being busy.
func Guard(p provider.Provider, b *Budgets) provider.Provider {
	return guarded{next: p, b: b}
}

type guarded struct {
	next provider.Provider
	b    *Budgets
}

func (g guarded) spend(call string) error {
	id := g.next.ID()
	ok, retryIn := g.b.take(id)
	if ok {
		return nil
	}
	g.b.throttled.WithLabelValues(string(id), call).Inc()
	return &provider.Error{Provider: id, Kind: provider.KindUnavailable,
		Detail: "call budget used up for now", RetryAfter: retryIn, Err: ErrExhausted}
}

func (g guarded) ID() swapv1.ProviderID  { return g.next.ID() }
func (g guarded) IdempotentCreate() bool { return g.next.IdempotentCreate() }

// Unwrap returns the wrapped adapter.
func (g guarded) Unwrap() provider.Provider { return g.next }

func (g guarded) Assets(ctx context.Context) ([]provider.Asset, error) { return g.next.Assets(ctx) }

func (g guarded) Quote(ctx context.Context, req provider.QuoteRequest) (provider.Quote, error) {
	if err := g.spend(providermetrics.CallQuote); err != nil {
		return provider.Quote{}, err
	}
	return g.next.Quote(ctx, req)
}

func (g guarded) CreateDeposit(ctx context.Context, req provider.DepositRequest) (provider.Deposit, error) {
	if err := g.spend(providermetrics.CallCreateDeposit); err != nil {
		return provider.Deposit{}, err
	}
	return g.next.CreateDeposit(ctx, req)
}

func (g guarded) Status(ctx context.Context, ref provider.OrderRef) (provider.Status, error) {
	if err := g.spend(providermetrics.CallStatus); err != nil {
		return provider.Status{}, err
	}
	return g.next.Status(ctx, ref)
}

func (g guarded) SubmitDeposit(ctx context.Context, ref provider.OrderRef, hint swapv1.DepositHint) error {
	if err := g.spend(providermetrics.CallSubmitDeposit); err != nil {
		return err
	}
	return g.next.SubmitDeposit(ctx, ref, hint)
}
