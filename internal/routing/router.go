package routing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/providerset"
)

// DefaultMaxParallelTargets bounds how many targets of one Rates call are quoted at once. It
// equals the contract's 50-target maximum, so a rates call takes as long as its slowest
// target rather than rounds of them (a cap of 8 made 50 targets take 7 quote latencies);
// the per-key request limit is what bounds the load one partner can cause.
const DefaultMaxParallelTargets = 50

// Router answers quotes from the live providers. Its zero value is not usable: set Providers
// and Catalog. It keeps no state of its own and is safe for concurrent use.
type Router struct {
	Providers *providerset.Set
	Catalog   *catalog.Catalog
	// DefaultTimeout bounds a provider call whose Entry has no Timeout; 0 leaves it to ctx.
	DefaultTimeout time.Duration
	// MaxParallelTargets bounds the concurrent targets of Rates; 0 means
	// DefaultMaxParallelTargets.
	MaxParallelTargets int
}

// Quote asks every enabled provider that routes the pair (per the catalog), concurrently and
// each under its own timeout, so the answer takes as long as the slowest provider, not the sum.
// Candidates and Errors are ordered by provider id. A request no provider routes yields an
// empty Result, whose Failure() is "no provider supports this pair".
func (r *Router) Quote(ctx context.Context, req provider.QuoteRequest) Result {
	entries := r.routesFor(req.OriginAsset, req.DestinationAsset)
	answers := make([]answer, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() { answers[i] = r.ask(ctx, e, req) })
	}
	wg.Wait()

	var res Result
	for _, a := range answers {
		if a.err != nil {
			res.Errors = append(res.Errors, ProviderError{ProviderID: a.id, Err: a.err})
			continue
		}
		res.Candidates = append(res.Candidates, a.quote)
	}
	res.Choose(PreferPrice, req.SwapType, nil, nil)
	return res
}

// Rate is the outcome for one target of Rates.
type Rate struct {
	To     string
	Result Result
}

// Rates quotes base.OriginAsset against each target (base.DestinationAsset is ignored), at most
// MaxParallelTargets at a time. The answer has one Rate per target, in the order given; a
// target that fails carries its failure in its own Result and never affects the others.
func (r *Router) Rates(ctx context.Context, base provider.QuoteRequest, targets []string) []Rate {
	limit := r.MaxParallelTargets
	if limit <= 0 {
		limit = DefaultMaxParallelTargets
	}
	slots := make(chan struct{}, limit)
	out := make([]Rate, len(targets))
	var wg sync.WaitGroup
	for i, to := range targets {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			req := base
			req.DestinationAsset = to
			out[i] = Rate{To: to, Result: r.Quote(ctx, req)}
		})
	}
	wg.Wait()
	return out
}

// routesFor returns the enabled entries (ordered by provider id) that list both assets.
func (r *Router) routesFor(origin, destination string) []providerset.Entry {
	routing := r.Catalog.ProvidersFor(origin, destination)
	if len(routing) == 0 {
		return nil
	}
	var out []providerset.Entry
	for _, e := range r.Providers.Enabled() {
		for _, id := range routing {
			if e.Provider.ID() == id {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

type answer struct {
	id    swapv1.ProviderID
	quote provider.Quote
	err   *provider.Error
}

// ask calls one provider under its timeout. It returns when the timeout passes even if the
// adapter ignores ctx, so one misbehaving provider cannot hold the whole answer.
func (r *Router) ask(ctx context.Context, e providerset.Entry, req provider.QuoteRequest) answer {
	id := e.Provider.ID()
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = r.DefaultTimeout
	}
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	done := make(chan answer, 1) // buffered: a late adapter can always hand over and exit
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- answer{id: id, err: &provider.Error{Provider: id, Kind: provider.KindUpstream,
					Detail: "adapter failed", Err: fmt.Errorf("panic: %v", p)}}
			}
		}()
		q, err := e.Provider.Quote(callCtx, req)
		done <- answer{id: id, quote: q, err: provider.AsError(err)}
	}()

	var a answer
	select {
	case a = <-done:
	case <-callCtx.Done():
		a = answer{id: id, err: &provider.Error{Kind: provider.KindUpstream, Err: callCtx.Err()}}
	}
	if a.err != nil {
		a.err = classifyCallError(id, a.err, callCtx.Err(), timeout)
		return a
	}
	if err := checkQuote(a.quote); err != nil {
		return answer{id: id, err: &provider.Error{Provider: id, Kind: provider.KindUpstream,
			Detail: err.Error()}}
	}
	a.quote.ProviderID = id
	return a
}

// classifyCallError attributes err to provider id and reports an unclassified failure that
// happened because the call's context ended as the timeout it is. ctxErr is the call
// context's error when the answer came.
func classifyCallError(id swapv1.ProviderID, err *provider.Error, ctxErr error, timeout time.Duration) *provider.Error {
	out := *err
	if out.Provider == "" {
		out.Provider = id
	}
	if out.Kind == provider.KindUpstream && ctxErr != nil && out.Upstream == nil {
		out.Kind = provider.KindTimeout
		switch {
		case errors.Is(ctxErr, context.Canceled):
			out.Detail = "request cancelled"
		case timeout > 0:
			out.Detail = fmt.Sprintf("no answer within %s", timeout)
		default:
			out.Detail = "no answer before the request deadline"
		}
	}
	return &out
}

// checkQuote rejects a quote whose amounts cannot be compared: a malformed answer is the
// provider's fault, reported as an upstream error rather than a candidate that can never win.
func checkQuote(q provider.Quote) error {
	if _, ok := parseAmount(q.AmountIn); !ok {
		return fmt.Errorf("malformed quote: amountIn %q is not an integer", q.AmountIn)
	}
	if _, ok := parseAmount(q.AmountOut); !ok {
		return fmt.Errorf("malformed quote: amountOut %q is not an integer", q.AmountOut)
	}
	return nil
}
