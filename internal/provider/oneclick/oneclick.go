// Package oneclick is the adapter for the NEAR Intents 1Click API v0 (route_A by default):
// GET /v0/tokens, POST /v0/quote, GET /v0/status, POST /v0/deposit/submit, with the JWT from
// the RoutingProvider's Secret as a bearer token.
//
// 1Click's QuoteRequest has no idempotency field (referral is a public analytics tag, not a
// key): every non-dry quote creates a new deposit address, so IdempotentCreate is false.
//
// 1Click signs every quote with ed25519; a quote whose signature does not verify with the
// RoutingProvider's key (1Click's published key by default) is refused with
// provider.ReasonSignatureInvalid before anything in it is read.
package oneclick

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/caip"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/assetindex"
	"github.com/swaprouter/swaprouter/internal/provider/httpcall"
	"github.com/swaprouter/swaprouter/internal/provider/placeholder"
	"github.com/swaprouter/swaprouter/internal/quotesig"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// tokenTTL is how long the token list is trusted for CAIP-19 lookups.
	tokenTTL = 5 * time.Minute
	// requestedDeadline is how long the user has to deposit; the provider may shorten it.
	requestedDeadline = time.Hour
)

// Adapter talks to one 1Click-compatible provider.
type Adapter struct {
	c          *httpcall.Client
	tokens     *assetindex.Index[string]
	now        func() time.Time
	signingKey ed25519.PublicKey
}

var _ provider.Provider = (*Adapter)(nil)

// New builds the adapter.
func New(cfg provider.Config) (*Adapter, error) {
	key, err := quotesig.ParsePublicKey(cmp.Or(cfg.QuoteSigningKey, quotesig.PublishedKey))
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", cfg.ID, err)
	}
	c, err := httpcall.New(cfg)
	if err != nil {
		return nil, err
	}
	a := &Adapter{c: c, now: time.Now, signingKey: key}
	a.tokens = assetindex.New(tokenTTL, a.loadTokens)
	return a, nil
}

// ID is the provider id.
func (a *Adapter) ID() swapv1.ProviderID { return a.c.Provider() }

// IdempotentCreate: a repeated non-dry quote creates another deposit address.
func (a *Adapter) IdempotentCreate() bool { return false }

// Assets lists the provider's tokens with CAIP-19 ids; tokens on chains outside the chain
// table are skipped.
func (a *Adapter) Assets(ctx context.Context) ([]provider.Asset, error) { return a.tokens.Refresh(ctx) }

func (a *Adapter) loadTokens(ctx context.Context) ([]assetindex.Entry[string], error) {
	var tokens []tokenResponse
	if err := a.c.Do(ctx, httpcall.Call{Method: http.MethodGet, Path: "/v0/tokens"}, &tokens); err != nil {
		return nil, err
	}
	out := make([]assetindex.Entry[string], 0, len(tokens))
	for _, t := range tokens {
		id, ok := AssetID(t.Blockchain, t.ContractAddress)
		if !ok {
			continue
		}
		out = append(out, assetindex.Entry[string]{
			Asset: provider.Asset{AssetID: id, Chain: t.Blockchain, Symbol: t.Symbol, Name: t.Symbol, Decimals: t.Decimals, ProviderToken: t.AssetID, PriceUSD: t.Price},
			Token: t.AssetID,
		})
	}
	return out, nil
}

// AssetID maps a 1Click token (blockchain + contract address) onto CAIP-19: no contract
// means the chain's native asset.
func AssetID(blockchain, contract string) (string, bool) {
	if contract == "" {
		id, ok := caip.NativeAsset(blockchain)
		return id.String(), ok
	}
	id, err := caip.TokenAsset(blockchain, contract)
	return id.String(), err == nil
}

// Quote prices a swap (dry quote: no deposit address).
func (a *Adapter) Quote(ctx context.Context, req provider.QuoteRequest) (provider.Quote, error) {
	q, _, err := a.quote(ctx, req, true)
	return q, err
}

// CreateDeposit asks for a non-dry quote, which carries the deposit address.
func (a *Adapter) CreateDeposit(ctx context.Context, req provider.DepositRequest) (provider.Deposit, error) {
	q, resp, err := a.quote(ctx, req.QuoteRequest, false)
	if err != nil {
		return provider.Deposit{}, err
	}
	raw := resp.Quote
	if raw.DepositAddress == "" {
		return provider.Deposit{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "quote without depositAddress",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: "POST /v0/quote"}}
	}
	d := provider.Deposit{Quote: q, DepositAddress: raw.DepositAddress, DepositMemo: raw.DepositMemo, ProviderRef: raw.DepositAddress,
		Raw: statusPendingDeposit, Signature: resp.Signature}
	if q.ExpiresAt != nil {
		d.Deadline = q.ExpiresAt.Time
	}
	return d, nil
}

func (a *Adapter) quote(ctx context.Context, req provider.QuoteRequest, dry bool) (provider.Quote, quoteResponse, error) {
	origin, err := a.token(ctx, req.OriginAsset)
	if err != nil {
		return provider.Quote{}, quoteResponse{}, err
	}
	dest, err := a.token(ctx, req.DestinationAsset)
	if err != nil {
		return provider.Quote{}, quoteResponse{}, err
	}
	refundTo, recipient := cmp.Or(req.RefundTo, req.Sender), req.Recipient
	if dry { // 1Click requires both even for a dry quote; a preview may not know them yet
		refundTo, recipient = cmp.Or(refundTo, placeholder.Address(origin.Asset.Chain)), cmp.Or(recipient, placeholder.Address(dest.Asset.Chain))
	}
	slippage := int64(provider.DefaultSlippageBps)
	if req.SlippageBps != nil {
		slippage = int64(*req.SlippageBps)
	}
	swapType := req.SwapType
	if swapType == "" {
		swapType = swapv1.ExactInput
	}
	body := quoteRequest{
		Dry: dry, DepositMode: "SIMPLE", SwapType: string(swapType), SlippageTolerance: slippage,
		OriginAsset: origin.Token, DepositType: "ORIGIN_CHAIN", DestinationAsset: dest.Token, Amount: req.Amount,
		RefundTo: refundTo, RefundType: "ORIGIN_CHAIN", Recipient: recipient, RecipientType: "DESTINATION_CHAIN",
		Deadline: a.now().Add(requestedDeadline).UTC().Format(time.RFC3339),
	}
	if f := req.AppFee; f != nil && f.Bps > 0 {
		body.AppFees = []appFee{{Recipient: f.Recipient, Fee: int64(f.Bps)}}
	}
	call := httpcall.Call{Method: http.MethodPost, Path: "/v0/quote", Body: body}
	var resp signedResponse
	if err := a.c.Do(ctx, call, &resp); err != nil {
		return provider.Quote{}, quoteResponse{}, httpcall.Refine(err, refine)
	}
	if err := quotesig.Verify(a.signingKey, resp.raw); err != nil {
		return provider.Quote{}, quoteResponse{}, &provider.Error{Provider: a.ID(), Kind: provider.KindRefused,
			Reason: provider.ReasonSignatureInvalid, Detail: "quote signature does not verify with the RoutingProvider's quoteSigningKey",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: call.String()}, Err: err}
	}
	q, err := a.candidate(resp.Quote, swapType)
	if err == nil && len(body.AppFees) > 0 {
		q.Fees = append(q.Fees, provider.Fee{Type: provider.FeeTypePartner, Asset: req.OriginAsset,
			Amount: provider.BpsOf(q.AmountIn, req.AppFee.Bps)})
	}
	return q, resp.quoteResponse, err
}

// token finds the 1Click token of a CAIP-19 id; an asset the provider does not list makes the
// pair unsupported.
func (a *Adapter) token(ctx context.Context, assetID string) (assetindex.Entry[string], error) {
	e, ok, err := a.tokens.Lookup(ctx, assetID)
	if err != nil {
		return e, err
	}
	if !ok {
		return e, &provider.Error{Provider: a.ID(), Kind: provider.KindUnsupportedPair, Detail: "asset not listed: " + assetID}
	}
	return e, nil
}

func (a *Adapter) candidate(q quote, swapType swapv1.SwapType) (provider.Quote, error) {
	if !provider.IsAmount(q.AmountIn) || !provider.IsAmount(q.AmountOut) {
		return provider.Quote{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "quote without amounts",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: "POST /v0/quote"}}
	}
	c := provider.Quote{ProviderID: a.ID(), AmountIn: q.AmountIn, AmountOut: q.AmountOut, EstimatedTimeSeconds: int64(math.Ceil(q.TimeEstimate))}
	if swapType == swapv1.ExactOutput {
		c.MaxAmountIn = q.AmountIn // 1Click takes amountIn and refunds what the swap did not need
	} else {
		c.MinAmountOut = q.MinAmountOut
	}
	if t, err := time.Parse(time.RFC3339, q.Deadline); err == nil {
		c.ExpiresAt = &metav1.Time{Time: t}
	}
	return c, nil
}

// Status reads the execution status of the deposit address.
func (a *Adapter) Status(ctx context.Context, ref provider.OrderRef) (provider.Status, error) {
	var resp executionStatusResponse
	call := httpcall.Call{Method: http.MethodGet, Path: "/v0/status", Query: url.Values{"depositAddress": {ref.DepositAddress}}}
	if ref.DepositMemo != "" {
		call.Query.Set("depositMemo", ref.DepositMemo)
	}
	if err := a.c.Do(ctx, call, &resp); err != nil {
		return provider.Status{}, err
	}
	d := resp.SwapDetails
	out := MapStatus(resp.Status, isPositive(d.RefundedAmount))
	if out.Status == swapv1.OrderRefunded && isReason(d.RefundReason) {
		out.Reason = d.RefundReason
	}
	return provider.Status{
		Status: out.Status, Substatus: out.Substatus, Raw: resp.Status, Reason: out.Reason,
		InTxHashes: hashes(d.OriginChainTxHashes), OutTxHashes: hashes(d.DestinationChainTxHashes),
		DepositedAmount: d.DepositedAmount, AmountIn: d.AmountIn, AmountOut: d.AmountOut, RefundedAmount: d.RefundedAmount,
	}, nil
}

// SubmitDeposit forwards the user's deposit transaction hash.
func (a *Adapter) SubmitDeposit(ctx context.Context, ref provider.OrderRef, hint swapv1.DepositHint) error {
	body := submitDepositTxRequest{TxHash: hint.TxHash, DepositAddress: ref.DepositAddress, NearSenderAccount: hint.NearSenderAccount, Memo: ref.DepositMemo}
	// The answer is the execution status; decoding it catches a malformed answer.
	var resp executionStatusResponse
	return a.c.Do(ctx, httpcall.Call{Method: http.MethodPost, Path: "/v0/deposit/submit", Body: body}, &resp)
}

// isPositive reports whether an amount string is a positive integer.
func isPositive(s string) bool { return provider.IsAmount(s) && strings.TrimLeft(s, "0") != "" }

func hashes(ts []transactionDetails) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.Hash)
	}
	return out
}
