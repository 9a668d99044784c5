// Package relay is the adapter for Relay's API in its deposit-address mode: GET /chains and
// POST /currencies/v2 for the currencies Relay takes at deposit addresses (mapped to CAIP-19),
// POST /quote/v2 for prices and deposit addresses, GET /deposit-addresses/v1 to check what an
// address is bound to, GET /intents/status/v3 for a request's status and POST
// /transactions/index for deposit hints. The RoutingProvider's token is sent as Relay's API
// key (x-api-key).
//
// One order is one deposit and one outcome although Relay reuses open deposit addresses for a
// route: every address is asked for strict (bound to the quote's request: an under-payment is
// refunded, an over-payment fills the quoted amount and refunds the excess, a later deposit
// is not the request's), the order is tracked by that request id and never by address, and an
// address Relay's lookup does not show strict and created for this very request is refused
// (provider.ReasonDepositAddressShared) before anyone sees it.
//
// Relay's quotes are not signed. Every strict quote creates a new address, so IdempotentCreate
// is false.
package relay

import (
	"cmp"
	"context"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/address"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/assetindex"
	"github.com/swaprouter/swaprouter/internal/provider/httpcall"
	"github.com/swaprouter/swaprouter/internal/provider/placeholder"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// assetTTL is how long the currency list is trusted for CAIP-19 lookups.
	assetTTL = 5 * time.Minute
	// depositWindow is how long the user has to deposit.
	depositWindow = time.Hour
	// fillAllowance is how much longer than the deposit window Relay may take to confirm and
	// fill a deposit made at its last moment; the request's ttl covers both, and Relay
	// refunds what it has not filled by then.
	fillAllowance = 30 * time.Minute
	// currencyLimit bounds the currencies asked for; Relay takes a handful per chain at
	// deposit addresses.
	currencyLimit = 100
)

// Adapter talks to one Relay-compatible API.
type Adapter struct {
	c      *httpcall.Client
	assets *assetindex.Index[token]
	now    func() time.Time
	// window and fillAllowance shape each request's deposit deadline and ttl.
	window, fillAllowance time.Duration
}

// token is a Relay currency: its chain and address.
type token struct {
	ChainID int64
	Address string
	VM      string
}

var _ provider.Provider = (*Adapter)(nil)

// New builds the adapter.
func New(cfg provider.Config) (*Adapter, error) {
	c, err := httpcall.New(cfg, httpcall.APIKeyHeader("x-api-key"))
	if err != nil {
		return nil, err
	}
	a := &Adapter{c: c, now: time.Now, window: depositWindow, fillAllowance: fillAllowance}
	a.assets = assetindex.New(assetTTL, a.loadAssets)
	return a, nil
}

// ID is the provider id.
func (a *Adapter) ID() swapv1.ProviderID { return a.c.Provider() }

// IdempotentCreate: every strict quote creates another deposit address.
func (a *Adapter) IdempotentCreate() bool { return false }

// do makes a call and classifies Relay's error codes.
func (a *Adapter) do(ctx context.Context, call httpcall.Call, out any) error {
	err := a.c.Do(ctx, call, out)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindRefused {
		return err
	}
	kind, ok := ErrorKind(pe.Code)
	if !ok {
		return err
	}
	refined := *pe
	refined.Kind = kind
	return &refined
}

// Assets lists the currencies Relay takes at deposit addresses on the chains of the chain
// table, with CAIP-19 ids; disabled chains, chains that cannot be a destination and chains
// outside the table are skipped.
func (a *Adapter) Assets(ctx context.Context) ([]provider.Asset, error) { return a.assets.Refresh(ctx) }

func (a *Adapter) loadAssets(ctx context.Context) ([]assetindex.Entry[token], error) {
	var cr chainsResponse
	if err := a.do(ctx, httpcall.Call{Method: http.MethodGet, Path: "/chains"}, &cr); err != nil {
		return nil, err
	}
	known := map[int64]knownChain{}
	var ids []int64
	for _, c := range cr.Chains {
		key, ok := ChainKey(c.ID, c.VMType)
		if !ok || c.Disabled || !c.DepositEnabled {
			continue
		}
		known[c.ID] = knownChain{Key: key, VM: c.VMType, Native: c.Currency.Address}
		ids = append(ids, c.ID)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var currencies []currency
	body := currenciesRequest{ChainIDs: ids, DepositAddressOnly: true, Verified: true, Limit: currencyLimit}
	if err := a.do(ctx, httpcall.Call{Method: http.MethodPost, Path: "/currencies/v2", Body: body}, &currencies); err != nil {
		return nil, err
	}
	out := make([]assetindex.Entry[token], 0, len(currencies))
	for _, c := range currencies {
		ch, ok := known[c.ChainID]
		if !ok {
			continue
		}
		id, ok := AssetID(ch, c)
		if !ok {
			continue
		}
		out = append(out, assetindex.Entry[token]{
			Asset: provider.Asset{AssetID: id, Chain: ch.Key, Symbol: c.Symbol, Name: c.Name, Decimals: c.Decimals,
				ProviderToken: strconv.FormatInt(c.ChainID, 10) + ":" + c.Address},
			Token: token{ChainID: c.ChainID, Address: c.Address, VM: ch.VM},
		})
	}
	return out, nil
}

// lookup finds the Relay currency of a CAIP-19 id; an asset Relay does not list makes the
// pair unsupported.
func (a *Adapter) lookup(ctx context.Context, assetID string) (assetindex.Entry[token], error) {
	e, ok, err := a.assets.Lookup(ctx, assetID)
	if err != nil {
		return e, err
	}
	if !ok {
		return e, &provider.Error{Provider: a.ID(), Kind: provider.KindUnsupportedPair, Detail: "asset not listed: " + assetID}
	}
	return e, nil
}

// Quote prices a swap without a deposit address (nothing is created at Relay). An address
// the partner has not given yet is a chain's unspendable placeholder.
func (a *Adapter) Quote(ctx context.Context, req provider.QuoteRequest) (provider.Quote, error) {
	q, _, err := a.quote(ctx, req, false)
	return q, err
}

func (a *Adapter) quote(ctx context.Context, req provider.QuoteRequest, deposit bool) (provider.Quote, quoteResponse, error) {
	origin, err := a.lookup(ctx, req.OriginAsset)
	if err != nil {
		return provider.Quote{}, quoteResponse{}, err
	}
	dest, err := a.lookup(ctx, req.DestinationAsset)
	if err != nil {
		return provider.Quote{}, quoteResponse{}, err
	}
	swapType := cmp.Or(req.SwapType, swapv1.ExactInput)
	body := quoteRequest{
		User: cmp.Or(req.Sender, placeholder.Address(origin.Asset.Chain)), Recipient: req.Recipient,
		OriginChainID: origin.Token.ChainID, OriginCurrency: origin.Token.Address,
		DestinationChainID: dest.Token.ChainID, DestinationCurrency: dest.Token.Address,
		Amount: req.Amount, TradeType: string(swapType), RefundTo: cmp.Or(req.RefundTo, req.Sender),
	}
	if deposit {
		body.UseDepositAddress, body.Strict = true, true
		body.TTL = int64((a.window + a.fillAllowance) / time.Second)
	} else {
		body.Recipient = cmp.Or(body.Recipient, placeholder.Address(dest.Asset.Chain))
	}
	if req.SlippageBps != nil {
		body.SlippageTolerance = strconv.Itoa(int(*req.SlippageBps))
	}
	if f := req.AppFee; f != nil && f.Bps > 0 && isEVMAddress(f.Recipient) {
		body.AppFees = []appFee{{Recipient: f.Recipient, Fee: strconv.Itoa(int(f.Bps))}}
	}
	call := httpcall.Call{Method: http.MethodPost, Path: "/quote/v2", Body: body}
	var resp quoteResponse
	if err := a.do(ctx, call, &resp); err != nil {
		return provider.Quote{}, quoteResponse{}, err
	}
	q, err := a.candidate(resp, swapType, len(body.AppFees) > 0)
	return q, resp, err
}

func (a *Adapter) candidate(resp quoteResponse, swapType swapv1.SwapType, appFee bool) (provider.Quote, error) {
	in, out := resp.Details.CurrencyIn, resp.Details.CurrencyOut
	if !provider.IsAmount(in.Amount) || !provider.IsAmount(out.Amount) || (swapType == swapv1.ExactInput && !provider.IsAmount(out.MinimumAmount)) {
		return provider.Quote{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "quote without amounts",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: "POST /quote/v2"}}
	}
	c := provider.Quote{ProviderID: a.ID(), AmountIn: in.Amount, AmountOut: out.Amount,
		EstimatedTimeSeconds: int64(math.Ceil(resp.Details.TimeEstimate))}
	if swapType == swapv1.ExactOutput {
		// A strict address takes exactly amountIn: less is refunded, the excess comes back.
		c.MaxAmountIn = in.Amount
	} else {
		// Relay refunds a fill that would pay less than its quoted minimum.
		c.MinAmountOut = out.MinimumAmount
	}
	c.Fees = a.fees(resp.Fees, appFee)
	return c, nil
}

// fees lists Relay's fee (already out of the output) and the partner's, in assets Relay lists.
func (a *Adapter) fees(f fees, appFee bool) []swapv1.Fee {
	var out []swapv1.Fee
	add := func(typ string, x amount) {
		e, ok := a.assets.Find(func(t token) bool {
			return t.ChainID == x.Currency.ChainID && sameAddress(t.VM, t.Address, x.Currency.Address)
		})
		if ok && provider.IsAmount(x.Amount) {
			out = append(out, swapv1.Fee{Type: typ, Asset: e.Asset.AssetID, Amount: x.Amount})
		}
	}
	add("relayer", f.Relayer)
	if appFee {
		add(provider.FeeTypePartner, f.App)
	}
	return out
}

// CreateDeposit asks for a strict deposit address and checks that Relay bound it to the
// quote's request alone before it is used.
func (a *Adapter) CreateDeposit(ctx context.Context, req provider.DepositRequest) (provider.Deposit, error) {
	if req.Recipient == "" || cmp.Or(req.RefundTo, req.Sender) == "" {
		return provider.Deposit{}, &provider.Error{Provider: a.ID(), Kind: provider.KindRefused,
			Detail: "a Relay deposit address needs a recipient and a refund address"}
	}
	q, resp, err := a.quote(ctx, req.QuoteRequest, true)
	if err != nil {
		return provider.Deposit{}, err
	}
	// The request's ttl runs from Relay's quote, a moment before this one; the fill allowance
	// keeps the deadline well inside it.
	now := a.now()
	var st step
	for _, s := range resp.Steps {
		if s.DepositAddress != "" {
			st = s
			break
		}
	}
	if st.DepositAddress == "" || st.RequestID == "" {
		return provider.Deposit{}, &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "quote without depositAddress or requestId",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: "POST /quote/v2"}}
	}
	origin, err := a.lookup(ctx, req.OriginAsset)
	if err != nil {
		return provider.Deposit{}, err
	}
	if err := a.checkBound(ctx, origin.Token.VM, st); err != nil {
		return provider.Deposit{}, err
	}
	deadline := now.Add(a.window)
	q.ExpiresAt = &metav1.Time{Time: deadline}
	return provider.Deposit{Quote: q, DepositAddress: st.DepositAddress, ProviderRef: st.RequestID, Deadline: deadline, Raw: statusWaiting}, nil
}

// checkBound looks the address up: one not bound to the step's request alone is refused.
func (a *Adapter) checkBound(ctx context.Context, vm string, st step) error {
	call := httpcall.Call{Method: http.MethodGet, Path: "/deposit-addresses/v1", Query: url.Values{"address": {st.DepositAddress}}}
	var lookup depositAddressResponse
	err := a.do(ctx, call, &lookup)
	if provider.IsKind(err, provider.KindNotFound) {
		// Relay does not know the address it just gave out: an answer to retry, not a
		// refusal of the order.
		pe := *provider.AsError(err)
		pe.Kind, pe.Detail = provider.KindUpstream, "the deposit address just quoted is not known to Relay's lookup yet"
		return &pe
	}
	if err != nil {
		return err
	}
	if !Bound(lookup, vm, st.DepositAddress, st.RequestID) {
		return &provider.Error{Provider: a.ID(), Kind: provider.KindRefused, Reason: provider.ReasonDepositAddressShared,
			Detail:   "Relay answered a deposit address of type " + strconv.Quote(lookup.Type) + " not created for this request; a deposit to it could be another order's",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: call.String()}}
	}
	return nil
}

func (a *Adapter) status(ctx context.Context, ref provider.OrderRef) (statusResponse, error) {
	if ref.ProviderRef == "" {
		return statusResponse{}, &provider.Error{Provider: a.ID(), Kind: provider.KindNotFound, Detail: "order has no Relay request id"}
	}
	var resp statusResponse
	err := a.do(ctx, httpcall.Call{Method: http.MethodGet, Path: "/intents/status/v3", Query: url.Values{"requestId": {ref.ProviderRef}}}, &resp)
	return resp, err
}

// Status reads the status of the order's request. Relay's status names the deposit and fill
// transactions, no amounts: the order's amounts stay unknown rather than guessed.
func (a *Adapter) Status(ctx context.Context, ref provider.OrderRef) (provider.Status, error) {
	resp, err := a.status(ctx, ref)
	if err != nil {
		return provider.Status{}, err
	}
	out := MapStatus(resp.Status, len(resp.InTxHashes) > 0)
	return provider.Status{Status: out.Status, Substatus: out.Substatus, Raw: resp.Status, Reason: out.Reason,
		InTxHashes: resp.InTxHashes, OutTxHashes: resp.TxHashes}, nil
}

// SubmitDeposit hands the user's deposit transaction to Relay's indexer under the order's
// request, on the request's origin chain (read from its status, which also confirms Relay
// knows the request: KindNotFound otherwise).
func (a *Adapter) SubmitDeposit(ctx context.Context, ref provider.OrderRef, hint swapv1.DepositHint) error {
	st, err := a.status(ctx, ref)
	if err != nil {
		return err
	}
	if st.OriginChainID == 0 {
		return &provider.Error{Provider: a.ID(), Kind: provider.KindUpstream, Detail: "status without originChainId",
			Upstream: &provider.Upstream{Status: http.StatusOK, Path: "GET /intents/status/v3"}}
	}
	body := indexRequest{ChainID: strconv.FormatInt(st.OriginChainID, 10), TxHash: hint.TxHash, RequestID: ref.ProviderRef}
	var resp struct {
		Message string `json:"message"`
	}
	return a.do(ctx, httpcall.Call{Method: http.MethodPost, Path: "/transactions/index", Body: body}, &resp)
}

// isEVMAddress: Relay credits app fees to an EVM wallet.
func isEVMAddress(s string) bool { return address.Check("eth", s) == nil }
