// Package channel is the adapter for providers speaking a deposit-channel protocol in the
// style of Chainflip's swap service (route_B by default): assets with per-asset
// minimumSwapAmount/maximumSwapAmount, quotes, deposit channels with an expiry, and channel
// status WAITING | RECEIVING | SWAPPING | SENDING | SENT | COMPLETED | FAILED with refund
// details.
//
// Idempotency: the order id travels as the channel request's `clientReference`; the same
// reference returns the same channel. Exact-output quotes send `egressAmount` instead of
// `amount`. Both are additions to the Chainflip shapes (see internal/simulator/channelapi).
// Chainflip witnesses deposits itself and has no deposit-submission call, so SubmitDeposit
// only confirms that the provider knows the channel.
package channel

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/caip"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/assetindex"
	"github.com/swaprouter/swaprouter/internal/provider/httpcall"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// assetTTL is how long the asset list (and its limits) is trusted.
const assetTTL = 5 * time.Minute

// chainKeys maps the protocol's chain names onto the chain table's short keys.
var chainKeys = map[string]string{
	"Ethereum": "eth", "Arbitrum": "arb", "Solana": "sol", "Bitcoin": "btc", "Tron": "tron", "Dogecoin": "doge",
	"Base": "base", "Bsc": "bsc", "Polygon": "pol", "Optimism": "op", "Avalanche": "avax",
}

// token is a provider asset with its limits.
type token struct {
	chainAsset
	min, max string
}

// Adapter talks to one deposit-channel provider.
type Adapter struct {
	c      *httpcall.Client
	assets *assetindex.Index[token]
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

// Assets lists the provider's assets with CAIP-19 ids; chains outside the table are skipped.
func (a *Adapter) Assets(ctx context.Context) ([]provider.Asset, error) { return a.assets.Refresh(ctx) }

func (a *Adapter) loadAssets(ctx context.Context) ([]assetindex.Entry[token], error) {
	var resp assetsResponse
	if err := a.c.Do(ctx, httpcall.Call{Method: http.MethodGet, Path: "/v2/assets"}, &resp); err != nil {
		return nil, err
	}
	out := make([]assetindex.Entry[token], 0, len(resp.Assets))
	for _, d := range resp.Assets {
		id, key, ok := AssetID(d.Chain, d.ContractAddress)
		if !ok {
			continue
		}
		out = append(out, assetindex.Entry[token]{
			Asset: provider.Asset{AssetID: id, Chain: key, Symbol: d.Symbol, Name: d.Name, Decimals: d.Decimals, ProviderToken: d.Chain + "." + d.Asset},
			Token: token{chainAsset: chainAsset{Chain: d.Chain, Asset: d.Asset}, min: d.MinimumSwapAmount, max: d.MaximumSwapAmount},
		})
	}
	return out, nil
}

// AssetID maps a protocol asset (chain name + contract) onto CAIP-19 and the short chain key.
func AssetID(chainName, contract string) (id, chainKey string, ok bool) {
	key, ok := chainKeys[chainName]
	if !ok {
		return "", "", false
	}
	if contract == "" {
		n, ok := caip.NativeAsset(key)
		return n.String(), key, ok
	}
	t, err := caip.TokenAsset(key, contract)
	return t.String(), key, err == nil
}

func (a *Adapter) lookup(ctx context.Context, assetID string) (token, error) {
	e, ok, err := a.assets.Lookup(ctx, assetID)
	if err != nil {
		return token{}, err
	}
	if !ok {
		return token{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUnsupportedPair, Detail: "asset not listed: " + assetID}
	}
	return e.Token, nil
}

// pair is a resolved quote request.
type pair struct {
	src, dst token
	req      provider.QuoteRequest
}

func (p pair) exactOutput() bool { return p.req.SwapType == swapv1.ExactOutput }

func (a *Adapter) resolve(ctx context.Context, req provider.QuoteRequest) (pair, error) {
	src, err := a.lookup(ctx, req.OriginAsset)
	if err != nil {
		return pair{}, err
	}
	dst, err := a.lookup(ctx, req.DestinationAsset)
	if err != nil {
		return pair{}, err
	}
	return pair{src: src, dst: dst, req: req}, nil
}

// Quote prices a swap.
func (a *Adapter) Quote(ctx context.Context, req provider.QuoteRequest) (provider.Quote, error) {
	p, err := a.resolve(ctx, req)
	if err != nil {
		return provider.Quote{}, err
	}
	return a.quote(ctx, p)
}

func (a *Adapter) quote(ctx context.Context, p pair) (provider.Quote, error) {
	q := url.Values{"srcChain": {p.src.Chain}, "srcAsset": {p.src.Asset}, "destChain": {p.dst.Chain}, "destAsset": {p.dst.Asset}}
	if p.exactOutput() {
		q.Set("egressAmount", p.req.Amount)
	} else {
		q.Set("amount", p.req.Amount)
	}
	call := httpcall.Call{Method: http.MethodGet, Path: "/v2/quote", Query: q}
	var quotes []quote
	if err := a.c.Do(ctx, call, &quotes); err != nil {
		return provider.Quote{}, httpcall.Refine(err, refine)
	}
	malformed := &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "quote without amounts",
		Upstream: &provider.Upstream{Status: http.StatusOK, Path: call.String()}}
	if len(quotes) == 0 {
		return provider.Quote{}, malformed
	}
	best := quotes[0] // the service lists the regular quote first; DCA variants follow
	if !provider.IsAmount(best.DepositAmount) || !provider.IsAmount(best.EgressAmount) {
		return provider.Quote{}, malformed
	}
	c := provider.Quote{
		ProviderID: a.ID(), AmountIn: best.DepositAmount, AmountOut: best.EgressAmount,
		EstimatedTimeSeconds: best.EstimatedDurationSeconds,
		Limits:               &swapv1.QuoteLimits{MinAmountIn: p.src.min, MaxAmountIn: p.src.max},
		Fees:                 a.fees(best.IncludedFees),
	}
	bps := slippageBps(p.req.SlippageBps, best.RecommendedSlippageTolerancePercent)
	var err error
	if p.exactOutput() {
		c.MaxAmountIn, err = provider.ApplySlippage(best.DepositAmount, bps, true)
	} else {
		c.MinAmountOut, err = provider.ApplySlippage(best.EgressAmount, bps, false)
	}
	if err != nil {
		return provider.Quote{}, &provider.Error{Provider: a.ID(), Kind: provider.KindRefused, Detail: err.Error()}
	}
	return c, nil
}

// fees converts the included fees whose asset is listed; the rest cannot be named in CAIP-19.
func (a *Adapter) fees(in []fee) []swapv1.Fee {
	var out []swapv1.Fee
	for _, f := range in {
		e, ok := a.assets.Find(func(t token) bool { return t.chainAsset == chainAsset{Chain: f.Chain, Asset: f.Asset} })
		if !ok || !provider.IsAmount(f.Amount) {
			continue
		}
		out = append(out, swapv1.Fee{Type: f.Type, Asset: e.Asset.AssetID, Amount: f.Amount})
	}
	return out
}

// CreateDeposit quotes, then opens a deposit channel with the order id as clientReference.
func (a *Adapter) CreateDeposit(ctx context.Context, req provider.DepositRequest) (provider.Deposit, error) {
	p, err := a.resolve(ctx, req.QuoteRequest)
	if err != nil {
		return provider.Deposit{}, err
	}
	q, err := a.quote(ctx, p)
	if err != nil {
		return provider.Deposit{}, err
	}
	body := openChannelRequest{
		SrcChain: p.src.Chain, SrcAsset: p.src.Asset, DestChain: p.dst.Chain, DestAsset: p.dst.Asset,
		DestAddress:      req.Recipient,
		FillOrKillParams: fillOrKillParams{RefundAddress: cmp.Or(req.RefundTo, req.Sender), RetryDurationBlocks: 100, MinPrice: "0"},
		ClientReference:  req.OrderID,
	}
	if p.exactOutput() {
		body.EgressAmount = req.Amount
	} else {
		body.Amount = req.Amount
	}
	call := httpcall.Call{Method: http.MethodPost, Path: "/v2/swap/deposit-channel", Body: body}
	var resp depositAddressResponse
	if err := a.c.Do(ctx, call, &resp); err != nil {
		return provider.Deposit{}, httpcall.Refine(err, refine)
	}
	if resp.DepositAddress == "" || resp.DepositChannelID == "" {
		return provider.Deposit{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "channel without address or id",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: call.String()}}
	}
	d := provider.Deposit{Quote: q, DepositAddress: resp.DepositAddress, ProviderRef: resp.DepositChannelID}
	if resp.EstimatedDepositChannelExpiryTime > 0 {
		d.Deadline = time.UnixMilli(resp.EstimatedDepositChannelExpiryTime)
		d.Quote.ExpiresAt = &metav1.Time{Time: d.Deadline}
	}
	return d, nil
}

func (a *Adapter) channelStatus(ctx context.Context, ref provider.OrderRef) (statusResponse, error) {
	if ref.ProviderRef == "" {
		return statusResponse{}, &provider.Error{Provider: a.ID(), Kind: provider.KindNotFound, Detail: "order has no channel id"}
	}
	var resp statusResponse
	err := a.c.Do(ctx, httpcall.Call{Method: http.MethodGet, Path: "/v2/swaps/" + url.PathEscape(ref.ProviderRef)}, &resp)
	return resp, err
}

// Status reads the channel's state.
func (a *Adapter) Status(ctx context.Context, ref provider.OrderRef) (provider.Status, error) {
	resp, err := a.channelStatus(ctx, ref)
	if err != nil {
		return provider.Status{}, err
	}
	st, reason := MapStatus(ChannelFacts{
		State: resp.State, Expired: resp.DepositChannel.IsExpired, Refunded: resp.RefundEgress != nil, SwapOutput: resp.SwapEgress != nil,
	})
	out := provider.Status{Status: st, Raw: resp.State, Reason: reason}
	if resp.Deposit != nil && resp.Deposit.TxRef != "" {
		out.InTxHashes = []string{resp.Deposit.TxRef}
	}
	if resp.Swap != nil && resp.SwapEgress != nil {
		out.AmountIn, out.AmountOut = resp.Swap.SwappedInputAmount, resp.SwapEgress.Amount
	}
	for _, e := range []*egress{resp.SwapEgress, resp.RefundEgress} {
		if e != nil && e.TxRef != "" {
			out.OutTxHashes = append(out.OutTxHashes, e.TxRef)
		}
	}
	if resp.RefundEgress != nil {
		out.RefundedAmount = resp.RefundEgress.Amount
	}
	return out, nil
}

// SubmitDeposit: the protocol witnesses channel deposits itself, so the hint is not sent;
// the call confirms the provider still knows the channel (KindNotFound otherwise).
func (a *Adapter) SubmitDeposit(ctx context.Context, ref provider.OrderRef, _ swapv1.DepositHint) error {
	_, err := a.channelStatus(ctx, ref)
	return err
}
