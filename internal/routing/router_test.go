package routing

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/providerset"
)

const (
	eth  = "eip155:1/slip44:60"
	usdc = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
	sol  = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	btc  = "bip122:000000000019d6689c085ae165831e93/slip44:0"
)

// fakeProvider answers quotes with out or err once hold is closed (at once when nil),
// honouring ctx while it waits unless ignoreCtx.
type fakeProvider struct {
	provider.Provider // only ID and Quote are used by the router
	id                swapv1.ProviderID
	hold              <-chan struct{}
	ignoreCtx         bool
	out               string
	err               error
	calls             atomic.Int32
}

// never is a hold that is never released: the provider does not answer in the test's life.
var never = make(chan struct{})

// noTimeout is a provider timeout no answer of a test comes near.
const noTimeout = time.Hour

func (f *fakeProvider) ID() swapv1.ProviderID { return f.id }

func (f *fakeProvider) Quote(ctx context.Context, req provider.QuoteRequest) (provider.Quote, error) {
	f.calls.Add(1)
	if f.ignoreCtx {
		if f.hold != nil {
			<-f.hold
		}
	} else if f.hold != nil {
		select {
		case <-f.hold:
		case <-ctx.Done():
			return provider.Quote{}, ctx.Err() // an unclassified error, as a careless adapter would
		}
	}
	if f.err != nil {
		return provider.Quote{}, f.err
	}
	return provider.Quote{AmountIn: req.Amount, AmountOut: f.out, EstimatedTimeSeconds: 60}, nil
}

func asset(id string) provider.Asset { return provider.Asset{AssetID: id, Chain: "x", Symbol: id} }

// newRouter: both providers list eth and usdc; only route_A lists sol; only route_B lists btc.
func newRouter(a, b provider.Provider, timeout time.Duration) *Router {
	set := providerset.New()
	cat := catalog.New(nil)
	set.Put(A, providerset.Entry{Provider: a, Enabled: true, Timeout: timeout})
	set.Put(B, providerset.Entry{Provider: b, Enabled: true, Timeout: timeout})
	cat.SetProviderAssets(A, []provider.Asset{asset(eth), asset(usdc), asset(sol)})
	cat.SetProviderAssets(B, []provider.Asset{asset(eth), asset(usdc), asset(btc)})
	return &Router{Providers: set, Catalog: cat}
}

func req(to string) provider.QuoteRequest {
	return provider.QuoteRequest{OriginAsset: eth, DestinationAsset: to, Amount: "1000", SwapType: swapv1.ExactInput}
}

func providerIDs(r Result) (cands, errs []swapv1.ProviderID) {
	for _, c := range r.Candidates {
		cands = append(cands, c.ProviderID)
	}
	for _, e := range r.Errors {
		errs = append(errs, e.ProviderID)
	}
	return
}

func TestQuoteAsksBothAndPicksBest(t *testing.T) {
	a := &fakeProvider{id: A, out: "990"}
	b := &fakeProvider{id: B, out: "995"}
	res := newRouter(a, b, noTimeout).Quote(context.Background(), req(usdc))
	cands, errs := providerIDs(res)
	if !slices.Equal(cands, []swapv1.ProviderID{A, B}) || len(errs) != 0 {
		t.Fatalf("candidates %v errors %v", cands, errs)
	}
	if res.Best == nil || res.Best.ProviderID != B || res.Best.AmountOut != "995" {
		t.Errorf("best = %+v, want route_B's", res.Best)
	}
	if res.Failure() != nil {
		t.Errorf("Failure() = %v with candidates", res.Failure())
	}
}

func TestQuoteAsksOnlyProvidersThatRouteThePair(t *testing.T) {
	a := &fakeProvider{id: A, out: "1"}
	b := &fakeProvider{id: B, out: "1"}
	r := newRouter(a, b, noTimeout)

	res := r.Quote(context.Background(), req(sol))
	if cands, _ := providerIDs(res); !slices.Equal(cands, []swapv1.ProviderID{A}) || b.calls.Load() != 0 {
		t.Errorf("sol: candidates %v, route_B called %d times", cands, b.calls.Load())
	}

	// sol -> btc: no provider lists both; nobody is called.
	res = r.Quote(context.Background(), provider.QuoteRequest{OriginAsset: sol, DestinationAsset: btc, Amount: "1"})
	if len(res.Candidates)+len(res.Errors) != 0 || a.calls.Load() != 1 || b.calls.Load() != 0 {
		t.Errorf("unrouted pair: %+v, calls A=%d B=%d", res, a.calls.Load(), b.calls.Load())
	}
	if f := res.Failure(); f == nil || f.Kind != provider.KindUnsupportedPair || f.Detail != NoProviderDetail {
		t.Errorf("unrouted pair failure = %v", f)
	}
}

func TestQuoteSkipsDisabledProviders(t *testing.T) {
	a := &fakeProvider{id: A, out: "1"}
	b := &fakeProvider{id: B, out: "2"}
	r := newRouter(a, b, noTimeout)
	r.Providers.Put(B, providerset.Entry{Provider: b, Enabled: false})
	res := r.Quote(context.Background(), req(usdc))
	if cands, _ := providerIDs(res); !slices.Equal(cands, []swapv1.ProviderID{A}) || b.calls.Load() != 0 {
		t.Errorf("candidates %v, disabled route_B called %d times", cands, b.calls.Load())
	}
}

func TestQuoteKeepsPerProviderErrors(t *testing.T) {
	a := &fakeProvider{id: A, err: &provider.Error{Kind: provider.KindAmountTooLow, Limit: "5000"}}
	b := &fakeProvider{id: B, err: &provider.Error{Kind: provider.KindUnsupportedPair}}
	res := newRouter(a, b, noTimeout).Quote(context.Background(), req(usdc))
	if _, errs := providerIDs(res); !slices.Equal(errs, []swapv1.ProviderID{A, B}) {
		t.Fatalf("errors from %v", errs)
	}
	if res.Errors[0].Err.Provider != A {
		t.Errorf("error not attributed to its provider: %+v", res.Errors[0].Err)
	}
	if f := res.Failure(); f == nil || f.Kind != provider.KindAmountTooLow || f.Limit != "5000" {
		t.Errorf("Failure() = %v, want route_A's amount_too_low", f)
	}
}

func TestQuoteRejectsMalformedCandidate(t *testing.T) {
	a := &fakeProvider{id: A, out: "12.5"}
	b := &fakeProvider{id: B, out: "10"}
	res := newRouter(a, b, noTimeout).Quote(context.Background(), req(usdc))
	cands, errs := providerIDs(res)
	if !slices.Equal(cands, []swapv1.ProviderID{B}) || !slices.Equal(errs, []swapv1.ProviderID{A}) {
		t.Fatalf("candidates %v errors %v", cands, errs)
	}
	if k := res.Errors[0].Err.Kind; k != provider.KindUpstream {
		t.Errorf("malformed quote kind = %v", k)
	}
}

// A provider that never answers times out on its own without holding back the other's
// candidate, whether or not it honours its context: were the router to wait for it, Quote
// would never return.
func TestQuoteSlowProviderTimesOutAlone(t *testing.T) {
	for _, ignoreCtx := range []bool{false, true} {
		name := map[bool]string{false: "honours ctx", true: "ignores ctx"}[ignoreCtx]
		t.Run(name, func(t *testing.T) {
			a := &fakeProvider{id: A, out: "1"}
			b := &fakeProvider{id: B, out: "2", hold: never, ignoreCtx: ignoreCtx}
			r := newRouter(a, b, noTimeout)
			r.Providers.Put(B, providerset.Entry{Provider: b, Enabled: true, Timeout: 50 * time.Millisecond})
			res := r.Quote(context.Background(), req(usdc))

			cands, errs := providerIDs(res)
			if !slices.Equal(cands, []swapv1.ProviderID{A}) || !slices.Equal(errs, []swapv1.ProviderID{B}) {
				t.Fatalf("candidates %v errors %v", cands, errs)
			}
			if e := res.Errors[0].Err; e.Kind != provider.KindTimeout || e.Provider != B {
				t.Errorf("slow provider error = %+v, want route_B timeout", e)
			}
		})
	}
}

// Each provider answers only once both have been asked: asked one after the other, the first
// would wait for the second until its timeout.
func TestQuoteConcurrentNotSequential(t *testing.T) {
	both := make(chan struct{})
	var asked atomic.Int32
	arrive := func() {
		if asked.Add(1) == 2 {
			close(both)
		}
	}
	a := &barrierProvider{fakeProvider: fakeProvider{id: A, out: "1", hold: both}, arrive: arrive}
	b := &barrierProvider{fakeProvider: fakeProvider{id: B, out: "2", hold: both}, arrive: arrive}
	res := newRouter(a, b, noTimeout).Quote(context.Background(), req(usdc))
	if len(res.Candidates) != 2 {
		t.Errorf("candidates = %+v, errors = %+v", res.Candidates, res.Errors)
	}
}

// barrierProvider calls arrive when asked, before waiting for its hold.
type barrierProvider struct {
	fakeProvider
	arrive func()
}

func (p *barrierProvider) Quote(ctx context.Context, req provider.QuoteRequest) (provider.Quote, error) {
	p.arrive()
	return p.fakeProvider.Quote(ctx, req)
}

func TestQuoteRouterDefaultTimeout(t *testing.T) {
	a := &fakeProvider{id: A, out: "1", hold: never}
	b := &fakeProvider{id: B, out: "2"}
	r := newRouter(a, b, 0)
	r.DefaultTimeout = 50 * time.Millisecond
	res := r.Quote(context.Background(), req(usdc))
	if _, errs := providerIDs(res); !slices.Equal(errs, []swapv1.ProviderID{A}) || res.Errors[0].Err.Kind != provider.KindTimeout {
		t.Errorf("errors = %+v, want route_A timeout", res.Errors)
	}
}

func TestRatesOneBadTargetNeverFailsTheRest(t *testing.T) {
	a := &fakeProvider{id: A, out: "7"}
	b := &fakeProvider{id: B, err: &provider.Error{Kind: provider.KindUpstream, Detail: "503"}}
	r := newRouter(a, b, noTimeout)
	r.MaxParallelTargets = 2
	targets := []string{usdc, "unknown:asset", btc, sol}
	rates := r.Rates(context.Background(), req(""), targets)
	if len(rates) != len(targets) {
		t.Fatalf("%d rates for %d targets", len(rates), len(targets))
	}
	type want struct {
		best    swapv1.ProviderID
		failure provider.Kind
	}
	wants := []want{
		{best: A},                               // A answers, B fails
		{failure: provider.KindUnsupportedPair}, // nobody lists it
		{failure: provider.KindUpstream},        // only B routes btc, and B fails
		{best: A},                               // only A routes sol
	}
	for i, w := range wants {
		rt := rates[i]
		if rt.To != targets[i] {
			t.Errorf("rate %d is for %q, want %q (order kept)", i, rt.To, targets[i])
		}
		switch {
		case w.best != "":
			if rt.Result.Best == nil || rt.Result.Best.ProviderID != w.best {
				t.Errorf("%s: best = %+v, want %s", rt.To, rt.Result.Best, w.best)
			}
		default:
			if f := rt.Result.Failure(); f == nil || f.Kind != w.failure || rt.Result.Best != nil {
				t.Errorf("%s: failure = %v best %v, want %v", rt.To, f, rt.Result.Best, w.failure)
			}
		}
	}
}

// panicky stands for a broken adapter: it must not take the process or the answer down.
type panicky struct{ fakeProvider }

func (p *panicky) Quote(context.Context, provider.QuoteRequest) (provider.Quote, error) {
	panic("adapter bug")
}

func TestQuoteSurvivesAdapterPanic(t *testing.T) {
	a := &fakeProvider{id: A, out: "1"}
	r := newRouter(a, &fakeProvider{id: B}, noTimeout)
	r.Providers.Put(B, providerset.Entry{Provider: &panicky{fakeProvider{id: B}}, Enabled: true})
	res := r.Quote(context.Background(), req(usdc))
	if res.Best == nil || res.Best.ProviderID != A || len(res.Errors) != 1 || res.Errors[0].Err.Kind != provider.KindUpstream {
		t.Errorf("result = %+v", res)
	}
}
