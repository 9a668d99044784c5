// Package channel is the adapter for the Chainflip swap backend (route_B by default), speaking
// the protocol of Chainflip's public SDK: GET /api/networkInfo for the assets the network
// serves, GET /v2/quote for REGULAR and DCA quotes, POST /api/openSwapDepositChannel to open
// a deposit channel with fill-or-kill parameters, and GET /v2/swaps/{id} for the swap status.
// The backend needs no credentials.
//
// Chainflip quotes only the input side: an exact-output request is refused with a per-provider
// error, never priced. Opening a channel is not idempotent (the body has no client reference):
// every successful call opens a new channel.
package channel

import (
	"cmp"
	"context"
	"math"
	"net/http"
	"net/url"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/assetindex"
	"github.com/swaprouter/swaprouter/internal/provider/httpcall"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// assetTTL is how long the network's asset list is trusted.
	assetTTL = 5 * time.Minute
	// blocksPerMinute converts the quote's recommended retry duration into State Chain blocks
	// (6 s blocks), as the SDK does.
	blocksPerMinute = 10
)

// Adapter talks to one Chainflip swap backend.
type Adapter struct {
	c      *httpcall.Client
	assets *assetindex.Index[cfAsset]
}

var _ provider.Provider = (*Adapter)(nil)

// New builds the adapter.
func New(cfg provider.Config) (*Adapter, error) {
	c, err := httpcall.New(cfg)
	if err != nil {
		return nil, err
	}
	a := &Adapter{c: c}
	a.assets = assetindex.New(assetTTL, a.loadAssets)
	return a, nil
}

// ID is the provider id.
func (a *Adapter) ID() swapv1.ProviderID { return a.c.Provider() }

// IdempotentCreate: opening a channel twice opens two channels.
func (a *Adapter) IdempotentCreate() bool { return false }

// Assets lists the assets the network serves for deposit channels in both directions, with
// CAIP-19 ids; internal ids this adapter does not know and chains outside the chain table are
// skipped. The backend serves no limits: they come back as amount_too_low/high refusals.
func (a *Adapter) Assets(ctx context.Context) ([]provider.Asset, error) { return a.assets.Refresh(ctx) }

func (a *Adapter) loadAssets(ctx context.Context) ([]assetindex.Entry[cfAsset], error) {
	var info networkInfo
	if err := a.c.Do(ctx, httpcall.Call{Method: http.MethodGet, Path: "/api/networkInfo"}, &info); err != nil {
		return nil, err
	}
	out := make([]assetindex.Entry[cfAsset], 0, len(info.Assets))
	for _, n := range info.Assets {
		if !n.DepositChannelCreationEnabled || !n.DepositChannelDepositsEnabled || !n.EgressEnabled {
			continue
		}
		cf, ok := lookupCFAsset(n.Asset)
		if !ok {
			continue
		}
		listed, ok := cf.listing()
		if !ok {
			continue
		}
		out = append(out, assetindex.Entry[cfAsset]{Asset: listed, Token: cf})
	}
	return out, nil
}

func (a *Adapter) lookup(ctx context.Context, assetID string) (cfAsset, error) {
	e, ok, err := a.assets.Lookup(ctx, assetID)
	if err != nil {
		return cfAsset{}, err
	}
	if !ok {
		return cfAsset{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUnsupportedPair, Detail: "asset not listed: " + assetID}
	}
	return e.Token, nil
}

// priced is a quote with what opening a channel for it needs.
type priced struct {
	src, dst  cfAsset
	raw       quote
	candidate provider.Quote
}

// price resolves the pair and asks for a quote. Exact output is refused before any call.
func (a *Adapter) price(ctx context.Context, req provider.QuoteRequest) (priced, error) {
	if req.SwapType == swapv1.ExactOutput {
		return priced{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUnsupportedPair,
			Detail: "Chainflip quotes only exact-input swaps; EXACT_OUTPUT is not offered"}
	}
	src, err := a.lookup(ctx, req.OriginAsset)
	if err != nil {
		return priced{}, err
	}
	dst, err := a.lookup(ctx, req.DestinationAsset)
	if err != nil {
		return priced{}, err
	}
	q := url.Values{
		"amount": {req.Amount}, "srcChain": {src.Chain}, "srcAsset": {src.Symbol}, "destChain": {dst.Chain}, "destAsset": {dst.Symbol},
		"isVaultSwap": {"false"}, "isOnChain": {"false"}, "dcaV2Enabled": {"false"},
	}
	call := httpcall.Call{Method: http.MethodGet, Path: "/v2/quote", Query: q}
	var quotes []quote
	if err := a.c.Do(ctx, call, &quotes); err != nil {
		return priced{}, httpcall.Refine(err, refine)
	}
	best, ok := pickQuote(quotes)
	if !ok || !provider.IsAmount(best.DepositAmount) || !provider.IsAmount(best.EgressAmount) {
		return priced{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "quote without amounts",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: call.String()}}
	}
	c := provider.Quote{
		ProviderID: a.ID(), AmountIn: best.DepositAmount, AmountOut: best.EgressAmount,
		EstimatedTimeSeconds: int64(math.Ceil(best.EstimatedDurationSeconds)),
		Fees:                 a.fees(best.IncludedFees),
	}
	bps := slippageBps(req.SlippageBps, best.RecommendedSlippageTolerancePercent)
	if c.MinAmountOut, err = provider.ApplySlippage(best.EgressAmount, bps, false); err != nil {
		return priced{}, &provider.Error{Provider: a.ID(), Kind: provider.KindRefused, Detail: err.Error()}
	}
	return priced{src: src, dst: dst, raw: best, candidate: c}, nil
}

// Quote prices a swap.
func (a *Adapter) Quote(ctx context.Context, req provider.QuoteRequest) (provider.Quote, error) {
	p, err := a.price(ctx, req)
	return p.candidate, err
}

// fees converts the included fees whose asset is listed; the rest cannot be named in CAIP-19.
func (a *Adapter) fees(in []fee) []swapv1.Fee {
	var out []swapv1.Fee
	for _, f := range in {
		e, ok := a.assets.Find(func(t cfAsset) bool { return t.pair() == chainAsset{Chain: f.Chain, Asset: f.Asset} })
		if !ok || !provider.IsAmount(f.Amount) {
			continue
		}
		out = append(out, swapv1.Fee{Type: f.Type, Asset: e.Asset.AssetID, Amount: f.Amount})
	}
	return out
}

// CreateDeposit quotes, then opens a deposit channel whose fill-or-kill floor is the order's
// minimum output (the fresh quote's after slippage, never below what the partner accepted): a
// swap below it is refunded to the refund address, never executed.
func (a *Adapter) CreateDeposit(ctx context.Context, req provider.DepositRequest) (provider.Deposit, error) {
	p, err := a.price(ctx, req.QuoteRequest)
	if err != nil {
		return provider.Deposit{}, err
	}
	minOut := maxAmount(p.candidate.MinAmountOut, req.MinAmountOut)
	minPrice, err := MinPriceX128(minOut, p.raw.DepositAmount, p.src.Decimals, p.dst.Decimals)
	if err != nil {
		return provider.Deposit{}, &provider.Error{Provider: a.ID(), Kind: provider.KindRefused, Detail: err.Error()}
	}
	fok := fillOrKillParams{
		RetryDurationBlocks: int64(math.Ceil(p.raw.RecommendedRetryDurationMinutes * blocksPerMinute)),
		RefundAddress:       cmp.Or(req.RefundTo, req.Sender),
		MinPriceX128:        minPrice,
	}
	if lp := p.raw.RecommendedLivePriceSlippageTolerancePercent; lp != nil {
		bps := int64(math.Round(*lp * 100))
		fok.MaxOraclePriceSlippage = &bps
	}
	body := openChannelRequest{
		SrcAsset: p.src.pair(), DestAsset: p.dst.pair(), DestAddress: req.Recipient, Amount: p.raw.DepositAmount,
		SrcAddress: req.Sender, FillOrKillParams: fok, DcaParams: p.raw.DcaParams,
		Quote: channelQuote{
			IntermediateAmount: p.raw.IntermediateAmount, EgressAmount: p.raw.EgressAmount, EstimatedPrice: p.raw.EstimatedPrice,
			RecommendedSlippageTolerancePercent:          p.raw.RecommendedSlippageTolerancePercent,
			RecommendedLivePriceSlippageTolerancePercent: p.raw.RecommendedLivePriceSlippageTolerancePercent,
		},
	}
	call := httpcall.Call{Method: http.MethodPost, Path: "/api/openSwapDepositChannel", Body: body}
	var resp depositChannelInfo
	if err := a.c.Do(ctx, call, &resp); err != nil {
		return provider.Deposit{}, httpcall.Refine(err, refine)
	}
	if resp.DepositAddress == "" || resp.ID == "" {
		return provider.Deposit{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "channel without address or id",
			Upstream: &provider.Upstream{Status: http.StatusCreated, Path: call.String()}}
	}
	d := provider.Deposit{Quote: p.candidate, DepositAddress: resp.DepositAddress, ProviderRef: resp.ID, Raw: stateWaiting}
	// The channel's floor is what it refunds below: the partner's bound when that is higher.
	d.Quote.MinAmountOut = minOut
	if resp.EstimatedExpiryTime != nil && *resp.EstimatedExpiryTime > 0 {
		d.Deadline = time.UnixMilli(*resp.EstimatedExpiryTime)
		d.Quote.ExpiresAt = &metav1.Time{Time: d.Deadline}
	}
	return d, nil
}

func (a *Adapter) swapStatus(ctx context.Context, ref provider.OrderRef) (swapStatus, error) {
	if ref.ProviderRef == "" {
		return swapStatus{}, &provider.Error{Provider: a.ID(), Kind: provider.KindNotFound, Detail: "order has no channel id"}
	}
	var resp swapStatus
	err := a.c.Do(ctx, httpcall.Call{Method: http.MethodGet, Path: "/v2/swaps/" + url.PathEscape(ref.ProviderRef)}, &resp)
	return resp, err
}

// Status reads the channel's latest swap. A channel that received several deposits answers
// with the swap of the latest one.
func (a *Adapter) Status(ctx context.Context, ref provider.OrderRef) (provider.Status, error) {
	resp, err := a.swapStatus(ctx, ref)
	if err != nil {
		return provider.Status{}, err
	}
	out := MapStatus(factsOf(resp))
	st := provider.Status{Status: out.Status, Substatus: out.Substatus, Raw: resp.State, Reason: out.Reason}
	if d := resp.Deposit; d != nil {
		st.DepositedAmount = d.Amount
		if d.TxRef != "" {
			st.InTxHashes = []string{d.TxRef}
		}
	}
	if resp.Swap != nil && resp.SwapEgress != nil {
		st.AmountIn, st.AmountOut = resp.Swap.SwappedInputAmount, resp.SwapEgress.Amount
	}
	for _, e := range []*egress{resp.SwapEgress, resp.RefundEgress, resp.FallbackEgress} {
		if e != nil && e.TxRef != "" {
			st.OutTxHashes = append(st.OutTxHashes, e.TxRef)
		}
	}
	// Refunded means back at the refund address: shown once the provider says so.
	if e := cmp.Or(resp.RefundEgress, resp.FallbackEgress); e != nil && (out.Status == swapv1.OrderRefunded || out.Status == swapv1.OrderSuccess) {
		st.RefundedAmount = e.Amount
	}
	return st, nil
}

func factsOf(s swapStatus) Facts {
	f := Facts{State: s.State}
	if s.DepositChannel != nil {
		f.Expired = s.DepositChannel.IsExpired
	}
	f.DepositFailed = s.Deposit != nil && s.Deposit.Failure != nil
	f.DepositShort = s.Deposit != nil && s.DepositChannel != nil && below(s.Deposit.Amount, s.DepositChannel.ExpectedDepositAmount)
	sent := func(e *egress) bool { return e != nil && e.TxRef != "" && e.WitnessedAt != nil }
	failed := func(e *egress) bool { return e != nil && e.Failure != nil }
	f.SwapOut, f.SwapOutFailed = s.SwapEgress != nil, failed(s.SwapEgress)
	f.Refund, f.RefundSent, f.RefundFailed = s.RefundEgress != nil, sent(s.RefundEgress), failed(s.RefundEgress)
	f.Fallback, f.FallbackSent, f.FallbackFailed = s.FallbackEgress != nil, sent(s.FallbackEgress), failed(s.FallbackEgress)
	return f
}

// SubmitDeposit: Chainflip witnesses channel deposits itself and has no submission call; the
// call confirms the backend still knows the channel (KindNotFound otherwise).
func (a *Adapter) SubmitDeposit(ctx context.Context, ref provider.OrderRef, _ swapv1.DepositHint) error {
	_, err := a.swapStatus(ctx, ref)
	return err
}
