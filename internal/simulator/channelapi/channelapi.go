// Package channelapi serves route_B's wire protocol, a deposit-channel protocol shaped like
// Chainflip's swap service (v2): GET /v2/assets with per-asset minimumSwapAmount /
// maximumSwapAmount, GET /v2/quote, POST /v2/swap/deposit-channel to open a channel, and
// GET /v2/swaps/{id} with the channel's state.
//
// Additions to the Chainflip shapes, documented here because the real service lacks them:
// the quote takes `egressAmount` instead of `amount` for an exact-output quote, and opening a
// channel takes a `clientReference`: the same reference returns the same channel.
package channelapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/swaprouter/swaprouter/internal/simulator/market"
	"github.com/swaprouter/swaprouter/internal/simulator/orders"
	"github.com/swaprouter/swaprouter/internal/simulator/settlement"
	"github.com/swaprouter/swaprouter/internal/simulator/venue"
	"github.com/swaprouter/swaprouter/internal/simulator/wire"
)

// Call names, for faults and stats.
const (
	CallAssets = "assets"
	CallQuote  = "quote"
	CallOpen   = "open"
	CallStatus = "status"
)

// blockTime is the simulated source-chain block time used for expiry blocks.
const blockTime = 6 * time.Second

// ChainNames are the Chainflip-style chain names of the simulated chains.
var ChainNames = map[string]string{
	"eth": "Ethereum", "arb": "Arbitrum", "sol": "Solana", "btc": "Bitcoin", "tron": "Tron", "doge": "Dogecoin",
}

// API is route_B's protocol over a venue.
type API struct{ V *venue.Venue }

// Routes lists the endpoints.
func (a API) Routes() []venue.Route {
	return []venue.Route{
		{Pattern: "GET /v2/assets", Call: CallAssets, Handler: a.assets},
		{Pattern: "GET /v2/quote", Call: CallQuote, Handler: a.quote},
		{Pattern: "POST /v2/swap/deposit-channel", Call: CallOpen, Handler: a.open},
		{Pattern: "GET /v2/swaps/{id}", Call: CallStatus, Handler: a.status},
	}
}

type chainAsset struct {
	Chain string `json:"chain"`
	Asset string `json:"asset"`
}

func chainAssetOf(m market.Asset) chainAsset {
	return chainAsset{Chain: ChainNames[m.Chain], Asset: m.Symbol}
}

func (a API) lookup(chain, asset string) (market.Asset, bool) {
	for _, k := range a.V.Provider.Assets {
		if m, _ := market.Lookup(k); chainAssetOf(m) == (chainAsset{chain, asset}) {
			return m, true
		}
	}
	return market.Asset{}, false
}

type assetData struct {
	ChainflipID       string `json:"chainflipId"`
	Asset             string `json:"asset"`
	Chain             string `json:"chain"`
	ContractAddress   string `json:"contractAddress,omitempty"`
	Decimals          int    `json:"decimals"`
	Name              string `json:"name"`
	Symbol            string `json:"symbol"`
	IsMainnet         bool   `json:"isMainnet"`
	MinimumSwapAmount string `json:"minimumSwapAmount"`
	MaximumSwapAmount string `json:"maximumSwapAmount"`
}

func (a API) assets(w http.ResponseWriter, _ *http.Request) {
	out := []assetData{}
	for _, k := range a.V.Provider.Assets {
		m, _ := market.Lookup(k)
		// route_B's limits depend on the source asset only.
		minIn, maxIn := a.V.Provider.LimitsIn(m, m)
		ca := chainAssetOf(m)
		out = append(out, assetData{
			ChainflipID: chainflipID(m), Asset: ca.Asset, Chain: ca.Chain, ContractAddress: m.Contract,
			Decimals: m.Decimals, Name: m.Name, Symbol: m.Symbol, IsMainnet: true,
			MinimumSwapAmount: minIn.String(), MaximumSwapAmount: maxIn.String(),
		})
	}
	wire.JSON(w, http.StatusOK, map[string]any{"assets": out})
}

// chainflipID is the internal asset id in Chainflip's style: "Usdc" on Ethereum, "ArbUsdc"
// elsewhere.
func chainflipID(m market.Asset) string {
	sym := strings.ToUpper(m.Symbol[:1]) + strings.ToLower(m.Symbol[1:])
	if m.Chain == "eth" {
		return sym
	}
	chain := ChainNames[m.Chain]
	if m.IsNative() {
		return sym
	}
	return chain[:3] + sym
}

type fee struct {
	Type   string `json:"type"`
	Chain  string `json:"chain"`
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
}

type quoteResponse struct {
	Type                                string     `json:"type"`
	SrcAsset                            chainAsset `json:"srcAsset"`
	DestAsset                           chainAsset `json:"destAsset"`
	DepositAmount                       string     `json:"depositAmount"`
	IntermediateAmount                  string     `json:"intermediateAmount,omitempty"`
	EgressAmount                        string     `json:"egressAmount"`
	IncludedFees                        []fee      `json:"includedFees"`
	RecommendedSlippageTolerancePercent float64    `json:"recommendedSlippageTolerancePercent"`
	EstimatedDurationSeconds            int64      `json:"estimatedDurationSeconds"`
	LowLiquidityWarning                 bool       `json:"lowLiquidityWarning"`
}

// pairRequest is the asset pair and amount every call names.
type pairRequest struct {
	SrcChain, SrcAsset, DestChain, DestAsset string
	Amount                                   string
	ExactOutput                              bool
}

// price resolves and prices a pair; on failure it answers and returns ok=false.
func (a API) price(w http.ResponseWriter, pr pairRequest) (from, to market.Asset, res market.Result, ok bool) {
	from, okFrom := a.lookup(pr.SrcChain, pr.SrcAsset)
	to, okTo := a.lookup(pr.DestChain, pr.DestAsset)
	if !okFrom || !okTo {
		wire.Error(w, http.StatusBadRequest, fmt.Sprintf("route not supported: %s.%s -> %s.%s", pr.SrcChain, pr.SrcAsset, pr.DestChain, pr.DestAsset))
		return from, to, res, false
	}
	res, err := a.V.Price(from, to, pr.Amount, pr.ExactOutput)
	var le *market.LimitError
	switch {
	case err == nil:
		return from, to, res, true
	case errors.Is(err, market.ErrUnsupportedPair):
		wire.Error(w, http.StatusBadRequest, fmt.Sprintf("route not supported: %s.%s -> %s.%s", pr.SrcChain, pr.SrcAsset, pr.DestChain, pr.DestAsset))
	case errors.As(err, &le) && le.TooLow:
		wire.Error(w, http.StatusBadRequest, fmt.Sprintf("expected amount is below minimum swap amount (%s)", le.Limit))
	case errors.As(err, &le):
		wire.Error(w, http.StatusBadRequest, fmt.Sprintf("expected amount is above maximum swap amount (%s)", le.Limit))
	default:
		wire.Error(w, http.StatusBadRequest, "invalid request: "+err.Error())
	}
	return from, to, res, false
}

func (a API) quote(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	pr := pairRequest{SrcChain: q.Get("srcChain"), SrcAsset: q.Get("srcAsset"), DestChain: q.Get("destChain"), DestAsset: q.Get("destAsset"), Amount: q.Get("amount")}
	if eg := q.Get("egressAmount"); eg != "" {
		if pr.Amount != "" {
			wire.Error(w, http.StatusBadRequest, "invalid request: give amount or egressAmount, not both")
			return
		}
		pr.Amount, pr.ExactOutput = eg, true
	}
	from, to, res, ok := a.price(w, pr)
	if !ok {
		return
	}
	wire.JSON(w, http.StatusOK, []quoteResponse{{
		Type: "REGULAR", SrcAsset: chainAssetOf(from), DestAsset: chainAssetOf(to),
		DepositAmount: res.AmountIn.String(), EgressAmount: res.AmountOut.String(),
		IncludedFees: []fee{
			{Type: "BROKER", Chain: ChainNames[from.Chain], Asset: from.Symbol, Amount: res.ProtocolFee.String()},
			{Type: "NETWORK", Chain: ChainNames[to.Chain], Asset: to.Symbol, Amount: res.NetworkFee.String()},
		},
		RecommendedSlippageTolerancePercent: 1,
		EstimatedDurationSeconds:            res.EstimatedSeconds,
	}})
}

type fillOrKillParams struct {
	RefundAddress       string `json:"refundAddress"`
	RetryDurationBlocks int64  `json:"retryDurationBlocks"`
	MinPrice            string `json:"minPrice"`
}

type openChannelRequest struct {
	SrcChain         string           `json:"srcChain"`
	SrcAsset         string           `json:"srcAsset"`
	DestChain        string           `json:"destChain"`
	DestAsset        string           `json:"destAsset"`
	DestAddress      string           `json:"destAddress"`
	Amount           string           `json:"amount"`
	EgressAmount     string           `json:"egressAmount,omitempty"`
	FillOrKillParams fillOrKillParams `json:"fillOrKillParams"`
	ClientReference  string           `json:"clientReference,omitempty"`
}

type depositAddressResponse struct {
	DepositChannelID                  string `json:"depositChannelId"`
	DepositAddress                    string `json:"depositAddress"`
	SrcChainExpiryBlock               string `json:"srcChainExpiryBlock"`
	DepositChannelExpiryBlock         string `json:"depositChannelExpiryBlock"`
	EstimatedDepositChannelExpiryTime int64  `json:"estimatedDepositChannelExpiryTime"`
	BrokerCommissionBps               int64  `json:"brokerCommissionBps"`
	ChannelOpeningFee                 string `json:"channelOpeningFee"`
	ExpectedDepositAmount             string `json:"expectedDepositAmount"`
	EgressAmount                      string `json:"egressAmount"`
}

// block is the simulated source-chain height at t.
func block(t time.Time) int64 { return t.Unix() / int64(blockTime/time.Second) }

func (a API) open(w http.ResponseWriter, r *http.Request) {
	var req openChannelRequest
	if !wire.Decode(w, r, &req) {
		return
	}
	if req.DestAddress == "" || req.FillOrKillParams.RefundAddress == "" {
		wire.Error(w, http.StatusBadRequest, "invalid request: destAddress and fillOrKillParams.refundAddress are required")
		return
	}
	pr := pairRequest{SrcChain: req.SrcChain, SrcAsset: req.SrcAsset, DestChain: req.DestChain, DestAsset: req.DestAsset, Amount: req.Amount}
	if req.EgressAmount != "" {
		pr.Amount, pr.ExactOutput = req.EgressAmount, true
	}
	from, to, res, ok := a.price(w, pr)
	if !ok {
		return
	}
	o, _ := a.V.Open(venue.OpenRequest{
		ClientRef: req.ClientReference, From: from, To: to, Priced: res, ExactOutput: pr.ExactOutput,
		Recipient: req.DestAddress, RefundTo: req.FillOrKillParams.RefundAddress,
		ChannelID: func(seq int) string {
			return fmt.Sprintf("%d-%s-%d", block(a.V.Now()), ChainNames[from.Chain], seq)
		},
	})
	expiry := block(o.Terms.Deadline)
	wire.JSON(w, http.StatusOK, depositAddressResponse{
		DepositChannelID: o.ChannelID, DepositAddress: o.DepositAddress,
		SrcChainExpiryBlock: fmt.Sprint(expiry), DepositChannelExpiryBlock: fmt.Sprint(expiry),
		EstimatedDepositChannelExpiryTime: o.Terms.Deadline.UnixMilli(),
		BrokerCommissionBps:               a.V.Provider.FeeBps, ChannelOpeningFee: "0",
		ExpectedDepositAmount: o.Terms.ExpectedIn.String(), EgressAmount: o.Terms.QuotedOut.String(),
	})
}

// State is the channel state of a phase.
func State(p settlement.Phase) string {
	switch p {
	case settlement.AwaitingDeposit:
		return "WAITING"
	case settlement.DepositSeen, settlement.Incomplete:
		return "RECEIVING"
	case settlement.Swapping:
		return "SWAPPING"
	case settlement.Sending, settlement.Refunding:
		return "SENDING"
	case settlement.Sent:
		return "SENT"
	case settlement.Completed, settlement.Refunded:
		return "COMPLETED"
	}
	return "FAILED"
}

type depositChannel struct {
	ID                  string `json:"id"`
	DepositAddress      string `json:"depositAddress"`
	CreatedAt           int64  `json:"createdAt"`
	SrcChainExpiryBlock string `json:"srcChainExpiryBlock"`
	EstimatedExpiryTime int64  `json:"estimatedExpiryTime"`
	IsExpired           bool   `json:"isExpired"`
}

type deposit struct {
	Amount      string `json:"amount"`
	TxRef       string `json:"txRef,omitempty"`
	WitnessedAt int64  `json:"witnessedAt"`
}

type swapAmounts struct {
	OriginalInputAmount string `json:"originalInputAmount"`
	SwappedInputAmount  string `json:"swappedInputAmount"`
	SwappedOutputAmount string `json:"swappedOutputAmount"`
}

type egress struct {
	Amount      string `json:"amount"`
	TxRef       string `json:"txRef,omitempty"`
	WitnessedAt int64  `json:"witnessedAt,omitempty"`
}

type statusResponse struct {
	State                    string         `json:"state"`
	SrcChain                 string         `json:"srcChain"`
	SrcAsset                 string         `json:"srcAsset"`
	DestChain                string         `json:"destChain"`
	DestAsset                string         `json:"destAsset"`
	DestAddress              string         `json:"destAddress"`
	DepositChannel           depositChannel `json:"depositChannel"`
	Deposit                  *deposit       `json:"deposit,omitempty"`
	Swap                     *swapAmounts   `json:"swap,omitempty"`
	SwapEgress               *egress        `json:"swapEgress,omitempty"`
	RefundEgress             *egress        `json:"refundEgress,omitempty"`
	EstimatedDurationSeconds int64          `json:"estimatedDurationSeconds"`
	LastStatechainUpdateAt   int64          `json:"lastStatechainUpdateAt"`
}

func (a API) status(w http.ResponseWriter, r *http.Request) {
	o, ok := a.V.Book.ByChannel(a.V.Provider.ID, r.PathValue("id"))
	if !ok {
		wire.Error(w, http.StatusNotFound, "resource not found")
		return
	}
	wire.JSON(w, http.StatusOK, a.statusOf(o))
}

func (a API) statusOf(o orders.Order) statusResponse {
	p := a.V.Progress(o)
	src, dst := chainAssetOf(o.From), chainAssetOf(o.To)
	s := statusResponse{
		State: State(p.Phase), SrcChain: src.Chain, SrcAsset: src.Asset, DestChain: dst.Chain, DestAsset: dst.Asset,
		DestAddress: o.Recipient,
		DepositChannel: depositChannel{
			ID: o.ChannelID, DepositAddress: o.DepositAddress, CreatedAt: o.CreatedAt.UnixMilli(),
			SrcChainExpiryBlock: fmt.Sprint(block(o.Terms.Deadline)), EstimatedExpiryTime: o.Terms.Deadline.UnixMilli(),
			IsExpired: p.Expired,
		},
		EstimatedDurationSeconds: a.V.Provider.EstimatedSeconds,
		LastStatechainUpdateAt:   a.V.Now().UnixMilli(),
	}
	if p.Phase != settlement.AwaitingDeposit {
		first := o.Deposits[0]
		for _, d := range o.Deposits[1:] {
			if d.At.Before(first.At) {
				first = d
			}
		}
		s.Deposit = &deposit{Amount: p.Deposited.String(), TxRef: first.TxHash, WitnessedAt: first.At.UnixMilli()}
	}
	switch p.Phase {
	case settlement.Swapping, settlement.Sending, settlement.Sent:
		s.Swap = &swapAmounts{OriginalInputAmount: p.Deposited.String(), SwappedInputAmount: "0", SwappedOutputAmount: "0"}
	case settlement.Completed:
		s.Swap = &swapAmounts{OriginalInputAmount: p.Deposited.String(), SwappedInputAmount: p.AmountIn.String(), SwappedOutputAmount: p.AmountOut.String()}
		s.SwapEgress = &egress{Amount: p.AmountOut.String(), TxRef: o.OutTxHash, WitnessedAt: p.Since.UnixMilli()}
		if p.Refunded.Sign() > 0 {
			s.RefundEgress = &egress{Amount: p.Refunded.String(), TxRef: o.RefundTxHash, WitnessedAt: p.Since.UnixMilli()}
		}
	case settlement.Refunded:
		s.RefundEgress = &egress{Amount: p.Refunded.String(), TxRef: o.RefundTxHash, WitnessedAt: p.Since.UnixMilli()}
	}
	return s
}
