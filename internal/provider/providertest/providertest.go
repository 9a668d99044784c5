// Package providertest is the behaviour every provider adapter must show against the real
// simulator over HTTP on 127.0.0.1: asset mapping, quotes, limits, unsupported pairs, every
// error class on every call (429 with Retry-After included), what a repeated deposit creation
// does, and the settlement paths with their substatus: full, under, half and late deposits, a
// partial fill and a missed price floor.
package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/caip"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Suite describes one adapter.
type Suite struct {
	Provider swapv1.ProviderID
	New      func(cfg provider.Config) (provider.Provider, error)
	// Calls maps each Provider method to the simulator call it makes first
	// ("Assets", "Quote", "CreateDeposit", "Status", "SubmitDeposit").
	Calls map[string]string
	// Unlisted is a pair with an asset the provider does not list; Excluded a pair of listed
	// assets it refuses.
	Unlisted, Excluded [2]string
	// SubmitCounted: SubmitDeposit reaches the provider as a deposit submission.
	SubmitCounted bool
	// ExactOutput: the provider quotes exact-output swaps; otherwise it refuses them with
	// KindUnsupportedPair.
	ExactOutput bool
	// UnderDeposit is where a deposit of a tenth of the quoted input comes to rest.
	UnderDeposit Want
	// HalfDeposit is where a deposit of half the quoted input (above every minimum) ends.
	HalfDeposit Want
	// LateDeposit is how a deposit after the deposit window ends.
	LateDeposit Want
}

// Want is an expected final status.
type Want struct {
	Status    swapv1.OrderStatus
	Substatus swapv1.OrderSubstatus
	Reason    string
}

// Routed pair used throughout: USDC on Ethereum to USDC on Arbitrum, which both route.
var (
	usdcEth = asset("eth:USDC")
	usdcArb = asset("arb:USDC")
)

func asset(key string) market.Asset {
	a, ok := market.Lookup(key)
	if !ok {
		panic(key)
	}
	return a
}

func quoteReq(from, to market.Asset, amount string, st swapv1.SwapType) provider.QuoteRequest {
	return provider.QuoteRequest{
		OriginAsset: from.AssetID(), DestinationAsset: to.AssetID(), Amount: amount, SwapType: st,
		Sender: "0x1111111111111111111111111111111111111111", Recipient: "0x2222222222222222222222222222222222222222",
	}
}

// adapter speaks to the simulator at url, trusting the key it signs quotes with.
func (s Suite) adapter(t *testing.T, url string, timeout time.Duration) provider.Provider {
	t.Helper()
	var key struct{ PublicKey string }
	if err := json.Unmarshal(Fetch(t, "GET", url+"/control/quote-signing-key", nil), &key); err != nil {
		t.Fatal(err)
	}
	p, err := s.New(provider.Config{ID: s.Provider, Endpoint: url + "/" + string(s.Provider), Timeout: timeout,
		QuoteSigningKey: key.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Run runs every check.
func (s Suite) Run(t *testing.T) {
	t.Run("Assets", s.testAssets)
	t.Run("Quote", s.testQuote)
	t.Run("ErrorClasses", s.testErrorClasses)
	t.Run("NotFound", s.testNotFound)
	t.Run("RepeatedCreateDeposit", s.testRepeatedCreate)
	t.Run("Settlement", s.testSettlement)
}

func (s Suite) testAssets(t *testing.T) {
	_, url := simtest.Start(t, simtest.FastOptions())
	p := s.adapter(t, url, time.Minute)
	assets, err := p.Assets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, k := range market.Providers[s.Provider].Assets {
		want[asset(k).AssetID()] = true
	}
	if len(assets) != len(want) {
		t.Fatalf("%d assets; want %d", len(assets), len(want))
	}
	for _, a := range assets {
		if !want[a.AssetID] {
			t.Errorf("unexpected asset %s", a.AssetID)
		}
		id, err := caip.ParseKnownAssetID(a.AssetID)
		if err != nil {
			t.Errorf("%s: %v", a.AssetID, err)
			continue
		}
		if key, _ := id.ChainKey(); key != a.Chain {
			t.Errorf("%s: chain %q; want %q", a.AssetID, a.Chain, key)
		}
		m, _ := market.LookupAssetID(a.AssetID)
		if a.Decimals != m.Decimals || a.Symbol != m.Symbol || a.ProviderToken == "" {
			t.Errorf("%s: %+v; want decimals %d symbol %s and a provider token", a.AssetID, a, m.Decimals, m.Symbol)
		}
	}
}

func (s Suite) testQuote(t *testing.T) {
	_, url := simtest.Start(t, simtest.FastOptions())
	p := s.adapter(t, url, time.Minute)
	econ := market.Providers[s.Provider]
	minIn, maxIn := econ.LimitsIn(usdcEth, usdcArb)
	below := minIn.String()[:len(minIn.String())-1] // a tenth of the minimum
	above := maxIn.String() + "0"
	tests := []struct {
		name      string
		req       provider.QuoteRequest
		wantKind  *provider.Kind
		wantLimit string
	}{
		{name: "exact input", req: quoteReq(usdcEth, usdcArb, "100000000", swapv1.ExactInput)},
		{name: "exact output", req: quoteReq(usdcEth, usdcArb, "90000000", swapv1.ExactOutput), wantKind: s.exactOutputRefusal()},
		{name: "below minimum", req: quoteReq(usdcEth, usdcArb, below, swapv1.ExactInput), wantKind: kind(provider.KindAmountTooLow), wantLimit: minIn.String()},
		{name: "above maximum", req: quoteReq(usdcEth, usdcArb, above, swapv1.ExactInput), wantKind: kind(provider.KindAmountTooHigh), wantLimit: maxIn.String()},
		{name: "unlisted asset", req: quoteReq(asset(s.Unlisted[0]), asset(s.Unlisted[1]), "100000000", swapv1.ExactInput), wantKind: kind(provider.KindUnsupportedPair)},
		{name: "excluded pair", req: quoteReq(asset(s.Excluded[0]), asset(s.Excluded[1]), "100000000000", swapv1.ExactInput), wantKind: kind(provider.KindUnsupportedPair)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := p.Quote(context.Background(), tt.req)
			if tt.wantKind != nil {
				pe := provider.AsError(err)
				if err == nil || pe.Kind != *tt.wantKind || pe.Limit != tt.wantLimit || pe.Provider != s.Provider {
					t.Fatalf("err = %v (limit %q); want %v with limit %q", err, pe.Limit, *tt.wantKind, tt.wantLimit)
				}
				if pe.Retryable() {
					t.Fatal("a refusal must not be retryable")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, _ := econ.Quote(market.Request{From: usdcEth, To: usdcArb, Amount: mustInt(tt.req.Amount), ExactOutput: tt.req.SwapType == swapv1.ExactOutput})
			if q.ProviderID != s.Provider || q.AmountIn != want.AmountIn.String() || q.AmountOut != want.AmountOut.String() {
				t.Fatalf("quote %+v; want in %s out %s", q, want.AmountIn, want.AmountOut)
			}
			if tt.req.SwapType == swapv1.ExactOutput {
				if !provider.IsAmount(q.MaxAmountIn) || q.MinAmountOut != "" || cmpInt(q.MaxAmountIn, q.AmountIn) < 0 {
					t.Fatalf("exact output: maxAmountIn %q minAmountOut %q", q.MaxAmountIn, q.MinAmountOut)
				}
			} else if !provider.IsAmount(q.MinAmountOut) || q.MaxAmountIn != "" || cmpInt(q.MinAmountOut, q.AmountOut) > 0 {
				t.Fatalf("exact input: minAmountOut %q maxAmountIn %q", q.MinAmountOut, q.MaxAmountIn)
			}
			if q.EstimatedTimeSeconds != econ.EstimatedSeconds {
				t.Fatalf("estimated time %d; want %d", q.EstimatedTimeSeconds, econ.EstimatedSeconds)
			}
		})
	}
}

// callAll makes every Provider call once, against an order that exists.
func (s Suite) callAll(ctx context.Context, p provider.Provider, d provider.Deposit) map[string]error {
	ref := provider.OrderRef{OrderID: "ord_x", DepositAddress: d.DepositAddress, ProviderRef: d.ProviderRef}
	out := map[string]error{}
	_, out["Assets"] = p.Assets(ctx)
	_, out["Quote"] = p.Quote(ctx, quoteReq(usdcEth, usdcArb, "100000000", swapv1.ExactInput))
	_, out["CreateDeposit"] = p.CreateDeposit(ctx, provider.DepositRequest{OrderID: "ord_y", QuoteRequest: quoteReq(usdcEth, usdcArb, "100000000", swapv1.ExactInput)})
	_, out["Status"] = p.Status(ctx, ref)
	out["SubmitDeposit"] = p.SubmitDeposit(ctx, ref, swapv1.DepositHint{TxHash: "0xabc"})
	return out
}

func (s Suite) testErrorClasses(t *testing.T) {
	tests := []struct {
		name       string
		fault      simulator.Fault
		wantKind   provider.Kind
		wantStatus int
	}{
		{name: "5xx", fault: simulator.Fault{ErrorRate: 1, Status: 500}, wantKind: provider.KindUpstream, wantStatus: 500},
		{name: "503", fault: simulator.Fault{ErrorRate: 1}, wantKind: provider.KindUpstream, wantStatus: 503},
		{name: "429 with Retry-After", fault: simulator.Fault{ErrorRate: 1, Status: 429, RetryAfter: 3 * time.Second}, wantKind: provider.KindUpstream, wantStatus: 429},
		{name: "malformed body", fault: simulator.Fault{Garbage: true}, wantKind: provider.KindUpstream, wantStatus: 200},
		{name: "latency over timeout", fault: simulator.Fault{Latency: 2 * time.Second}, wantKind: provider.KindTimeout},
		{name: "hang", fault: simulator.Fault{Hang: true}, wantKind: provider.KindTimeout},
	}
	for method, call := range s.Calls {
		for _, tt := range tests {
			t.Run(method+"/"+tt.name, func(t *testing.T) {
				sim, url := simtest.Start(t, simtest.FastOptions())
				// Only the call meant to time out has a short timeout: every other answer may
				// take as long as a busy machine needs.
				p := s.adapter(t, url, time.Minute)
				faulted := p
				if tt.wantKind == provider.KindTimeout {
					faulted = s.adapter(t, url, 150*time.Millisecond)
				}
				ctx := context.Background()
				if _, err := p.Assets(ctx); err != nil { // warm the asset index before faults
					t.Fatal(err)
				}
				// The short-timeout adapter warms its own index; a busy machine may need tries.
				simtest.Eventually(t, "the asset list within the short timeout", func() bool {
					_, err := faulted.Assets(ctx)
					return err == nil
				})
				d, err := p.CreateDeposit(ctx, provider.DepositRequest{OrderID: "ord_x", QuoteRequest: quoteReq(usdcEth, usdcArb, "100000000", swapv1.ExactInput)})
				if err != nil {
					t.Fatal(err)
				}
				sim.SetFault(s.Provider, call, tt.fault)
				err = s.callAll(ctx, faulted, d)[method]
				var pe *provider.Error
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v; want *provider.Error", err)
				}
				if pe.Kind != tt.wantKind || !pe.Retryable() || pe.Provider != s.Provider {
					t.Fatalf("err = %v; want retryable %v", err, tt.wantKind)
				}
				if pe.Upstream == nil || pe.Upstream.Path == "" || pe.Upstream.Status != tt.wantStatus {
					t.Fatalf("upstream = %+v; want status %d and a path", pe.Upstream, tt.wantStatus)
				}
				if pe.RetryAfter != tt.fault.RetryAfter {
					t.Fatalf("retry after = %v; want %v", pe.RetryAfter, tt.fault.RetryAfter)
				}
				sim.ClearFaults()
				if err := s.callAll(ctx, p, d)[method]; err != nil {
					t.Fatalf("after ClearFaults: %v", err)
				}
			})
		}
	}
}

func (s Suite) testNotFound(t *testing.T) {
	sim, url := simtest.Start(t, simtest.FastOptions())
	p := s.adapter(t, url, time.Minute)
	ctx := context.Background()
	d, err := p.CreateDeposit(ctx, provider.DepositRequest{OrderID: "ord_nf", QuoteRequest: quoteReq(usdcEth, usdcArb, "100000000", swapv1.ExactInput)})
	if err != nil {
		t.Fatal(err)
	}
	ref := provider.OrderRef{OrderID: "ord_nf", DepositAddress: d.DepositAddress, ProviderRef: d.ProviderRef}
	if _, err := p.Status(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if !sim.Forget(s.Provider, d.DepositAddress) {
		t.Fatal("simulator did not know the order")
	}
	if _, err := p.Status(ctx, ref); !provider.IsKind(err, provider.KindNotFound) || provider.IsRetryable(err) {
		t.Fatalf("Status of a forgotten order: %v; want not found", err)
	}
	if err := p.SubmitDeposit(ctx, ref, swapv1.DepositHint{TxHash: "0xabc"}); !provider.IsKind(err, provider.KindNotFound) {
		t.Fatalf("SubmitDeposit to a forgotten order: %v; want not found", err)
	}
}

// exactOutputRefusal is the error an exact-output quote must give, nil when it is priced.
func (s Suite) exactOutputRefusal() *provider.Kind {
	if s.ExactOutput {
		return nil
	}
	return kind(provider.KindUnsupportedPair)
}

// testRepeatedCreate: neither real provider has an idempotency field, so a repeated create
// opens a second address, and the adapter must say so.
func (s Suite) testRepeatedCreate(t *testing.T) {
	sim, url := simtest.Start(t, simtest.FastOptions())
	p := s.adapter(t, url, time.Minute)
	ctx := context.Background()
	req := provider.DepositRequest{OrderID: "ord_twice", QuoteRequest: quoteReq(usdcEth, usdcArb, "100000000", swapv1.ExactInput)}
	if p.IdempotentCreate() {
		t.Fatal("adapter claims idempotent creation; the real protocol has no idempotency field")
	}
	first, err := p.CreateDeposit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.DepositAddress == "" || first.ProviderRef == "" || first.Deadline.IsZero() || first.Quote.AmountIn != "100000000" {
		t.Fatalf("deposit %+v lacks address, reference, deadline or quote", first)
	}
	second, err := p.CreateDeposit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if second.DepositAddress == first.DepositAddress {
		t.Fatalf("a repeated create returned the same address %s; the provider is not idempotent", first.DepositAddress)
	}
	if n := sim.Stats().DepositAddressesCreated[s.Provider][req.Recipient]; n != 2 {
		t.Fatalf("simulator created %d addresses; want 2", n)
	}
	if _, err := p.Quote(ctx, req.QuoteRequest); err != nil {
		t.Fatal(err)
	}
	if n := sim.Stats().DepositAddressesCreated[s.Provider][req.Recipient]; n != 2 {
		t.Fatalf("a quote created an address: %d", n)
	}
}

func (s Suite) testSettlement(t *testing.T) {
	tenth := func(e string) string { return e[:len(e)-1] }
	half := func(e string) string { return new(big.Int).Quo(mustInt(e), big.NewInt(2)).String() }
	tests := []struct {
		name    string
		deposit func(expected string) string
		window  time.Duration
		wait    bool // for the deposit window to pass before depositing
		// unfilled is the share the market cannot fill at the order's price.
		unfilled int64
		want     Want
	}{
		{name: "full deposit", deposit: func(e string) string { return e }, want: Want{swapv1.OrderSuccess, swapv1.SubstatusSettled, "Settled"}},
		{name: "under-deposit", deposit: tenth, want: s.UnderDeposit},
		{name: "half deposit", deposit: half, want: s.HalfDeposit},
		{name: "late deposit", deposit: func(e string) string { return e }, window: 100 * time.Millisecond, wait: true, want: s.LateDeposit},
		{name: "partial fill", deposit: func(e string) string { return e }, unfilled: 2500, want: Want{swapv1.OrderSuccess, swapv1.SubstatusPartialRefund, "PartiallyRefunded"}},
		{name: "price floor missed", deposit: func(e string) string { return e }, unfilled: 10000, want: Want{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := simtest.FastOptions()
			if tt.window > 0 {
				opts.DepositWindow = tt.window
			}
			sim, url := simtest.Start(t, opts)
			p := s.adapter(t, url, time.Minute)
			ctx := context.Background()
			d, err := p.CreateDeposit(ctx, provider.DepositRequest{OrderID: "ord_settle", QuoteRequest: quoteReq(usdcEth, usdcArb, "100000000", swapv1.ExactInput)})
			if err != nil {
				t.Fatal(err)
			}
			ref := provider.OrderRef{OrderID: "ord_settle", DepositAddress: d.DepositAddress, ProviderRef: d.ProviderRef}
			st, err := p.Status(ctx, ref)
			if err != nil || st.Status != swapv1.OrderPending || st.Substatus != swapv1.SubstatusAwaitingDeposit || st.Raw == "" {
				t.Fatalf("before deposit: %+v, %v; want PENDING AWAITING_DEPOSIT", st, err)
			}
			if tt.wait {
				simtest.Eventually(t, "deposit window to pass", func() bool { return time.Now().After(d.Deadline) })
			}
			if tt.unfilled > 0 && !sim.SetUnfilled(s.Provider, d.DepositAddress, tt.unfilled) {
				t.Fatal("simulator does not know the order")
			}
			amount := tt.deposit(d.Quote.AmountIn)
			tx, err := sim.Deposit(d.DepositAddress, amount)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.SubmitDeposit(ctx, ref, swapv1.DepositHint{TxHash: tx}); err != nil {
				t.Fatal(err)
			}
			if got := sim.Stats().DepositSubmits[s.Provider]; (got == 1) != s.SubmitCounted {
				t.Fatalf("deposit submits = %d; counted %v", got, s.SubmitCounted)
			}
			simtest.Eventually(t, "a terminal status or the one wanted", func() bool {
				st, err = p.Status(ctx, ref)
				if err != nil {
					t.Fatal(err)
				}
				return st.Status.IsTerminal() || (st.Status == tt.want.Status && st.Substatus == tt.want.Substatus)
			})
			if st.Status != tt.want.Status || st.Substatus != tt.want.Substatus || (tt.want.Reason != "" && st.Reason != tt.want.Reason) || st.Raw == "" {
				t.Fatalf("final %+v; want %+v", st, tt.want)
			}
			if len(st.InTxHashes) == 0 || st.InTxHashes[0] != tx || st.DepositedAmount != amount {
				t.Fatalf("in tx hashes %v deposited %q; want [%s] and %s", st.InTxHashes, st.DepositedAmount, tx, amount)
			}
			checkAmounts(t, st, amount, d.Quote.AmountIn, d.Quote.AmountOut, tt.unfilled)
		})
	}
}

// checkAmounts: what settled adds up to what was deposited (the quote's output in proportion),
// and a refund is always shown.
func checkAmounts(t *testing.T, st provider.Status, deposited, quotedIn, quotedOut string, unfilled int64) {
	t.Helper()
	switch st.Status {
	case swapv1.OrderSuccess:
		refunded := mustInt(deposited)
		refunded.Sub(refunded, mustInt(st.AmountIn))
		out := new(big.Int).Mul(mustInt(quotedOut), mustInt(deposited))
		out.Quo(out, mustInt(quotedIn))
		if unfilled == 0 && (st.AmountIn != deposited || st.AmountOut != out.String() || st.RefundedAmount != "") {
			t.Fatalf("settled %+v; want in %s out %s and no refund", st, deposited, out)
		}
		if unfilled > 0 && (refunded.Sign() <= 0 || st.RefundedAmount != refunded.String() || cmpInt(st.AmountOut, quotedOut) >= 0) {
			t.Fatalf("partial fill %+v; want the unfilled input refunded beside a smaller output", st)
		}
		if len(st.OutTxHashes) == 0 {
			t.Fatal("a success without an out transaction")
		}
	case swapv1.OrderRefunded:
		if st.RefundedAmount != deposited {
			t.Fatalf("refunded %q; want %s", st.RefundedAmount, deposited)
		}
	case swapv1.OrderFailed:
		if st.RefundedAmount != "" {
			t.Fatalf("FAILED with a refunded amount %q: a refund must show as REFUNDED", st.RefundedAmount)
		}
	}
}

func kind(k provider.Kind) *provider.Kind { return &k }
