// Package channelapi serves route_B's wire protocol: the Chainflip swap backend as its public
// SDK calls it. GET /api/networkInfo lists the network's internal assets, GET /v2/quote answers
// an array of REGULAR and/or DCA quotes, POST /api/openSwapDepositChannel opens a deposit
// channel (201) with fill-or-kill parameters, and GET /v2/swaps/{id} reports the channel's
// latest swap. Errors are {"message": ...} with the backend's own messages.
//
// Like the real backend: opening a channel is not idempotent, a deposit at or above the
// source minimum is swapped whatever its size (one swap per deposit; the status shows the
// latest), a deposit below the minimum is ignored (FAILED with deposit.failure), a deposit to
// an expired channel is rejected and refunded, and a swap whose output misses the channel's
// minPriceX128 is refunded instead of executed.
package channelapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/ledger"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/venue"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/wire"
)

// Call names, for faults and stats.
const (
	CallNetworkInfo = "networkInfo"
	CallQuote       = "quote"
	CallOpen        = "open"
	CallStatus      = "status"
)

// blockTime is the simulated source-chain block time used for expiry blocks.
const blockTime = 6 * time.Second

// DCAMode says which quote types /v2/quote answers.
type DCAMode string

const (
	// DCANone: only the REGULAR quote (the default).
	DCANone DCAMode = ""
	// DCAAlso: a REGULAR and a DCA quote.
	DCAAlso DCAMode = "also"
	// DCAOnly: only a DCA quote, as for amounts too large for one swap.
	DCAOnly DCAMode = "only"
)

// dcaChunks and dcaInterval shape the simulated DCA quote.
const (
	dcaChunks   = 3
	dcaInterval = 2
)

// cfIDs are Chainflip's internal ids of the simulated assets route_B routes.
var cfIDs = map[string]string{
	"eth:ETH": "Eth", "eth:USDC": "Usdc", "eth:USDT": "Usdt", "arb:ETH": "ArbEth", "arb:USDC": "ArbUsdc",
	"sol:SOL": "Sol", "sol:USDC": "SolUsdc", "btc:BTC": "Btc", "tron:TRX": "Trx", "tron:USDT": "TrxUsdt",
}

// chainNames are Chainflip's chain names of the simulated chains.
var chainNames = map[string]string{"eth": "Ethereum", "arb": "Arbitrum", "sol": "Solana", "btc": "Bitcoin", "tron": "Tron"}

// API is route_B's protocol over a venue. DCA, when set, is read on every quote.
type API struct {
	V   *venue.Venue
	DCA func() DCAMode
}

// Routes lists the endpoints.
func (a API) Routes() []venue.Route {
	return []venue.Route{
		{Pattern: "GET /api/networkInfo", Call: CallNetworkInfo, Handler: a.networkInfo},
		{Pattern: "GET /v2/quote", Call: CallQuote, Handler: a.quote},
		{Pattern: "POST /api/openSwapDepositChannel", Call: CallOpen, Handler: a.open},
		{Pattern: "GET /v2/swaps/{id}", Call: CallStatus, Handler: a.status},
	}
}

type assetAndChain struct {
	Chain string `json:"chain"`
	Asset string `json:"asset"`
}

func pairOf(m market.Asset) assetAndChain {
	return assetAndChain{Chain: chainNames[m.Chain], Asset: m.Symbol}
}

func (a API) lookup(ac assetAndChain) (market.Asset, bool) {
	for _, k := range a.V.Provider.Assets {
		if m, _ := market.Lookup(k); pairOf(m) == ac {
			return m, true
		}
	}
	return market.Asset{}, false
}

type networkAsset struct {
	Asset                         string `json:"asset"`
	VaultSwapDepositsEnabled      bool   `json:"vaultSwapDepositsEnabled"`
	DepositChannelDepositsEnabled bool   `json:"depositChannelDepositsEnabled"`
	DepositChannelCreationEnabled bool   `json:"depositChannelCreationEnabled"`
	EgressEnabled                 bool   `json:"egressEnabled"`
	BoostDepositsEnabled          bool   `json:"boostDepositsEnabled"`
	LivePriceProtectionEnabled    bool   `json:"livePriceProtectionEnabled"`
}

type networkInfoResponse struct {
	Assets                []networkAsset `json:"assets"`
	CfBrokerCommissionBps int64          `json:"cfBrokerCommissionBps"`
}

func (a API) networkInfo(w http.ResponseWriter, _ *http.Request) {
	out := networkInfoResponse{Assets: []networkAsset{}}
	for _, k := range a.V.Provider.Assets {
		out.Assets = append(out.Assets, networkAsset{
			Asset: cfIDs[k], VaultSwapDepositsEnabled: true, DepositChannelDepositsEnabled: true, DepositChannelCreationEnabled: true,
			EgressEnabled: true, BoostDepositsEnabled: k == "btc:BTC",
		})
	}
	// The network also serves assets the simulated chains do not carry.
	out.Assets = append(out.Assets, networkAsset{Asset: "HubDot", VaultSwapDepositsEnabled: false, DepositChannelDepositsEnabled: true,
		DepositChannelCreationEnabled: true, EgressEnabled: true})
	wire.JSON(w, http.StatusOK, out)
}

type fee struct {
	Type   string `json:"type"`
	Chain  string `json:"chain"`
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
}

type durations struct {
	Deposit float64 `json:"deposit"`
	Swap    float64 `json:"swap"`
	Egress  float64 `json:"egress"`
}

type dcaParams struct {
	NumberOfChunks      int64 `json:"numberOfChunks"`
	ChunkIntervalBlocks int64 `json:"chunkIntervalBlocks"`
}

type quoteResponse struct {
	Type                                string        `json:"type"`
	SrcAsset                            assetAndChain `json:"srcAsset"`
	DestAsset                           assetAndChain `json:"destAsset"`
	DepositAmount                       string        `json:"depositAmount"`
	EgressAmount                        string        `json:"egressAmount"`
	IncludedFees                        []fee         `json:"includedFees"`
	PoolInfo                            []any         `json:"poolInfo"`
	LowLiquidityWarning                 bool          `json:"lowLiquidityWarning"`
	EstimatedDurationSeconds            float64       `json:"estimatedDurationSeconds"`
	EstimatedDurationsSeconds           durations     `json:"estimatedDurationsSeconds"`
	EstimatedPrice                      string        `json:"estimatedPrice"`
	RecommendedSlippageTolerancePercent float64       `json:"recommendedSlippageTolerancePercent"`
	RecommendedRetryDurationMinutes     float64       `json:"recommendedRetryDurationMinutes"`
	DcaParams                           *dcaParams    `json:"dcaParams,omitempty"`
}

var numeric = regexp.MustCompile(`^[0-9]+$`)

func (a API) quote(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for _, b := range []string{"isVaultSwap", "isOnChain", "dcaEnabled", "dcaV2Enabled"} {
		if v := q.Get(b); v != "" && v != "true" && v != "false" {
			wire.Error(w, http.StatusBadRequest, "invalid request")
			return
		}
	}
	amount := q.Get("amount")
	if !numeric.MatchString(amount) || strings.TrimLeft(amount, "0") == "" {
		wire.Error(w, http.StatusBadRequest, "invalid request")
		return
	}
	from, to, res, ok := a.price(w, assetAndChain{q.Get("srcChain"), q.Get("srcAsset")}, assetAndChain{q.Get("destChain"), q.Get("destAsset")}, amount)
	if !ok {
		return
	}
	regular := a.quoteOf(from, to, res)
	dca := regular
	dca.Type = "DCA"
	dca.DcaParams = &dcaParams{NumberOfChunks: dcaChunks, ChunkIntervalBlocks: dcaInterval}
	extra := float64(dcaChunks * dcaInterval * int64(blockTime/time.Second))
	dca.EstimatedDurationsSeconds.Swap += extra
	dca.EstimatedDurationSeconds += extra
	mode := DCANone
	if a.DCA != nil {
		mode = a.DCA()
	}
	if mode == DCANone && (q.Get("dcaEnabled") == "true" || q.Get("dcaV2Enabled") == "true") {
		// A client that allows DCA gets the DCA quote beside the REGULAR one, as the
		// backend answers it.
		mode = DCAAlso
	}
	switch mode {
	case DCAOnly:
		wire.JSON(w, http.StatusOK, []quoteResponse{dca})
	case DCAAlso:
		wire.JSON(w, http.StatusOK, []quoteResponse{regular, dca})
	default:
		wire.JSON(w, http.StatusOK, []quoteResponse{regular})
	}
}

// quoteOf builds the REGULAR quote: durations are fractional like the real ones, and the
// estimated price is the output per input in whole units.
func (a API) quoteOf(from, to market.Asset, res market.Result) quoteResponse {
	total := float64(a.V.Provider.EstimatedSeconds) - 0.6
	retry := 5.0
	if from.Chain == "btc" || to.Chain == "btc" {
		retry = 30
	}
	return quoteResponse{
		Type: "REGULAR", SrcAsset: pairOf(from), DestAsset: pairOf(to),
		DepositAmount: res.AmountIn.String(), EgressAmount: res.AmountOut.String(),
		IncludedFees: []fee{
			{Type: "INGRESS", Chain: chainNames[from.Chain], Asset: from.Symbol, Amount: "0"},
			{Type: "NETWORK", Chain: chainNames[from.Chain], Asset: from.Symbol, Amount: res.ProtocolFee.String()},
			{Type: "EGRESS", Chain: chainNames[to.Chain], Asset: to.Symbol, Amount: res.NetworkFee.String()},
		},
		PoolInfo:                            []any{},
		EstimatedDurationSeconds:            total,
		EstimatedDurationsSeconds:           durations{Deposit: total * 0.5, Swap: 12, Egress: total*0.5 - 12},
		EstimatedPrice:                      decimal(new(big.Rat).Mul(new(big.Rat).SetFrac(res.AmountOut, res.AmountIn), new(big.Rat).SetFrac(from.Unit(), to.Unit()))),
		RecommendedSlippageTolerancePercent: 0.5,
		RecommendedRetryDurationMinutes:     retry,
	}
}

// price resolves and prices a pair with the backend's messages; on failure it answers.
func (a API) price(w http.ResponseWriter, src, dst assetAndChain, amount string) (from, to market.Asset, res market.Result, ok bool) {
	from, okFrom := a.lookup(src)
	to, okTo := a.lookup(dst)
	if !okFrom || !okTo {
		wire.Error(w, http.StatusBadRequest, "Requested assets cannot be swapped")
		return from, to, res, false
	}
	res, err := a.V.Price(from, to, amount, false, 0)
	var le *market.LimitError
	switch {
	case err == nil:
		return from, to, res, true
	case errors.Is(err, market.ErrUnsupportedPair):
		wire.Error(w, http.StatusBadRequest, "Requested assets cannot be swapped")
	case errors.As(err, &le) && le.TooLow:
		wire.Error(w, http.StatusBadRequest, fmt.Sprintf("expected amount is below minimum swap amount (%s)", le.Limit))
	case errors.As(err, &le):
		wire.Error(w, http.StatusBadRequest, fmt.Sprintf("expected amount is above maximum swap amount (%s)", le.Limit))
	default:
		wire.Error(w, http.StatusBadRequest, "invalid request")
	}
	return from, to, res, false
}

type fillOrKillParams struct {
	RetryDurationBlocks    *int64          `json:"retryDurationBlocks"`
	RefundAddress          string          `json:"refundAddress"`
	MinPriceX128           string          `json:"minPriceX128"`
	MaxOraclePriceSlippage *int64          `json:"maxOraclePriceSlippage"`
	RefundCcmMetadata      json.RawMessage `json:"refundCcmMetadata,omitempty"`
}

type channelQuote struct {
	IntermediateAmount                           string   `json:"intermediateAmount,omitempty"`
	EgressAmount                                 string   `json:"egressAmount"`
	EstimatedPrice                               string   `json:"estimatedPrice"`
	RecommendedSlippageTolerancePercent          *float64 `json:"recommendedSlippageTolerancePercent,omitempty"`
	RecommendedLivePriceSlippageTolerancePercent *float64 `json:"recommendedLivePriceSlippageTolerancePercent,omitempty"`
}

type openRequest struct {
	SrcAsset         assetAndChain     `json:"srcAsset"`
	DestAsset        assetAndChain     `json:"destAsset"`
	DestAddress      string            `json:"destAddress"`
	Amount           string            `json:"amount"`
	CcmParams        json.RawMessage   `json:"ccmParams,omitempty"`
	MaxBoostFeeBps   *int64            `json:"maxBoostFeeBps,omitempty"`
	SrcAddress       string            `json:"srcAddress,omitempty"`
	FillOrKillParams *fillOrKillParams `json:"fillOrKillParams"`
	DcaParams        *dcaParams        `json:"dcaParams,omitempty"`
	Quote            *channelQuote     `json:"quote,omitempty"`
	TakeCommission   bool              `json:"takeCommission,omitempty"`
}

type depositChannelInfo struct {
	ID                  string `json:"id"`
	DepositAddress      string `json:"depositAddress"`
	BrokerCommissionBps int64  `json:"brokerCommissionBps"`
	MaxBoostFeeBps      int64  `json:"maxBoostFeeBps"`
	IssuedBlock         int64  `json:"issuedBlock"`
	SrcChainExpiryBlock string `json:"srcChainExpiryBlock"`
	EstimatedExpiryTime int64  `json:"estimatedExpiryTime"`
	ChannelOpeningFee   string `json:"channelOpeningFee"`
}

// channel is what the simulator keeps of an open request, beside the order.
// channel is route_B's data saved with an order (JSON: the book persists it).
type channel struct {
	Req         openRequest `json:"req"`
	IssuedBlock int64       `json:"issuedBlock"`
	MinPrice    *big.Int    `json:"minPrice"`
}

// block is the simulated source-chain height at t.
func block(t time.Time) int64 { return t.Unix() / int64(blockTime/time.Second) }

func (a API) open(w http.ResponseWriter, r *http.Request) {
	var req openRequest
	if !wire.Decode(w, r, &req) {
		return
	}
	fok := req.FillOrKillParams
	minPrice, okPrice := new(big.Int).SetString(fokPrice(fok), 10)
	if req.DestAddress == "" || fok == nil || fok.RefundAddress == "" || fok.RetryDurationBlocks == nil || !okPrice || minPrice.Sign() < 0 ||
		!numeric.MatchString(req.Amount) {
		wire.Error(w, http.StatusBadRequest, "invalid request")
		return
	}
	from, to, res, ok := a.price(w, req.SrcAsset, req.DestAsset, req.Amount)
	if !ok {
		return
	}
	issued := block(a.V.Now())
	o := a.V.Open(venue.OpenRequest{
		From: from, To: to, Priced: res, Recipient: req.DestAddress, RefundTo: fok.RefundAddress,
		ChannelID: func(seq int) string { return fmt.Sprintf("%d-%s-%d", issued, chainNames[from.Chain], seq) },
		Payload:   func(ledger.Order) any { return channel{Req: req, IssuedBlock: issued, MinPrice: minPrice} },
	})
	a.V.Log.Info("deposit channel opened", "provider", a.V.Provider.ID, "channel", o.ChannelID, "minPriceX128", minPrice.String(), "dca", req.DcaParams != nil)
	wire.JSON(w, http.StatusCreated, depositChannelInfo{
		ID: o.ChannelID, DepositAddress: o.DepositAddress, IssuedBlock: issued,
		SrcChainExpiryBlock: fmt.Sprint(block(o.Terms.Deadline)), EstimatedExpiryTime: o.Terms.Deadline.UnixMilli(), ChannelOpeningFee: "0",
	})
}

func fokPrice(f *fillOrKillParams) string {
	if f == nil || !numeric.MatchString(f.MinPriceX128) {
		return "x"
	}
	return f.MinPriceX128
}

func (a API) status(w http.ResponseWriter, r *http.Request) {
	o, ok := a.V.Book.ByChannel(a.V.Provider.ID, r.PathValue("id"))
	if !ok {
		wire.Error(w, http.StatusNotFound, "resource not found")
		return
	}
	wire.JSON(w, http.StatusOK, a.statusOf(o))
}

// decimal prints a rational the way BigNumber's toFixed() does: exact digits, no trailing zeros.
func decimal(r *big.Rat) string {
	s := r.FloatString(24)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
