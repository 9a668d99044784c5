// Package oneclickapi serves route_A's wire protocol, the NEAR Intents 1Click API v0 field for
// field as its public SDK's models define it: GET /v0/tokens, POST /v0/quote, GET /v0/status,
// POST /v0/deposit/submit, each behind a bearer JWT, errors as {"message": ...}.
//
// Like the real service: every quote is signed with ed25519 over the fields 1Click's SDK
// verifies, a non-dry quote always creates a new deposit address (1Click has no idempotency
// field), recipient and refundTo are required even for a dry quote, an exact-input deposit
// above amountIn is swapped for amountIn and the excess refunded with SUCCESS, and a deposit
// below it is INCOMPLETE_DEPOSIT until topped up or refunded. A FLEX_INPUT deposit of at least
// minAmountIn is swapped whole at the quoted rate.
package oneclickapi

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/swaprouter/swaprouter/internal/units"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/chainaddr"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/fault"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/ledger"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/settlement"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/venue"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/wire"
	"github.com/swaprouter/swaprouter/internal/quotesig"
)

// Call names, for faults and stats.
const (
	CallTokens = "tokens"
	CallQuote  = "quote"
	CallStatus = "status"
	CallSubmit = "submit"
)

// API is route_A's protocol over a venue; SigningKey signs its quotes.
type API struct {
	V          *venue.Venue
	SigningKey ed25519.PrivateKey
}

// Routes lists the endpoints.
func (a API) Routes() []venue.Route {
	return []venue.Route{
		{Pattern: "GET /v0/tokens", Call: CallTokens, Handler: a.tokens},
		{Pattern: "POST /v0/quote", Call: CallQuote, Handler: a.quote},
		{Pattern: "GET /v0/status", Call: CallStatus, Handler: a.status},
		{Pattern: "POST /v0/deposit/submit", Call: CallSubmit, Handler: a.submit},
	}
}

// TokenID is the 1Click asset id of a simulated asset: NEAR tokens by their contract, other
// chains' assets as omft.near bridged tokens.
func TokenID(a market.Asset) string {
	switch {
	case a.Chain == "near":
		return "nep141:" + a.Contract
	case a.IsNative():
		return "nep141:" + a.Chain + ".omft.near"
	case strings.HasPrefix(a.Contract, "0x"):
		return "nep141:" + a.Chain + "-" + strings.ToLower(a.Contract) + ".omft.near"
	}
	h := sha256.Sum256([]byte(a.Contract))
	return "nep141:" + a.Chain + "-" + hex.EncodeToString(h[:20]) + ".omft.near"
}

func (a API) lookupToken(id string) (market.Asset, bool) {
	for _, k := range a.V.Provider.Assets {
		if m, _ := market.Lookup(k); TokenID(m) == id {
			return m, true
		}
	}
	return market.Asset{}, false
}

type tokenResponse struct {
	AssetID         string  `json:"assetId"`
	Decimals        int     `json:"decimals"`
	Blockchain      string  `json:"blockchain"`
	Symbol          string  `json:"symbol"`
	Price           float64 `json:"price"`
	PriceUpdatedAt  string  `json:"priceUpdatedAt"`
	ContractAddress string  `json:"contractAddress,omitempty"`
}

func (a API) tokens(w http.ResponseWriter, r *http.Request) {
	if !wire.BearerOK(w, r, a.V.Token) {
		return
	}
	out := []tokenResponse{}
	for _, k := range a.V.Provider.Assets {
		m, _ := market.Lookup(k)
		price, _ := new(big.Rat).SetString(m.PriceUSD)
		f, _ := price.Float64()
		out = append(out, tokenResponse{
			AssetID: TokenID(m), Decimals: m.Decimals, Blockchain: m.Chain, Symbol: m.Symbol,
			Price: f, PriceUpdatedAt: a.V.Now().UTC().Format(time.RFC3339), ContractAddress: m.Contract,
		})
	}
	wire.JSON(w, http.StatusOK, out)
}

type appFee struct {
	Recipient string `json:"recipient"`
	Fee       int64  `json:"fee"`
}

// rebate is the SDK's Rebate: a Confidential Intents account and its share in percent.
type rebate struct {
	Recipient string      `json:"recipient"`
	Share     json.Number `json:"share"`
}

type quoteRequest struct {
	Dry                         bool     `json:"dry"`
	DepositMode                 string   `json:"depositMode,omitempty"`
	SwapType                    string   `json:"swapType"`
	SlippageTolerance           int64    `json:"slippageTolerance"`
	OriginAsset                 string   `json:"originAsset"`
	DepositType                 string   `json:"depositType"`
	DestinationAsset            string   `json:"destinationAsset"`
	Amount                      string   `json:"amount"`
	RefundTo                    string   `json:"refundTo"`
	RefundType                  string   `json:"refundType"`
	Recipient                   string   `json:"recipient"`
	ConnectedWallets            []string `json:"connectedWallets,omitempty"`
	SessionID                   string   `json:"sessionId,omitempty"`
	VirtualChainRecipient       string   `json:"virtualChainRecipient,omitempty"`
	VirtualChainRefundRecipient string   `json:"virtualChainRefundRecipient,omitempty"`
	CustomRecipientMsg          string   `json:"customRecipientMsg,omitempty"`
	RecipientType               string   `json:"recipientType"`
	Deadline                    string   `json:"deadline"`
	Confidentiality             string   `json:"confidentiality,omitempty"`
	Referral                    string   `json:"referral,omitempty"`
	Rebates                     []rebate `json:"rebates,omitempty"`
	QuoteWaitingTimeMs          int64    `json:"quoteWaitingTimeMs,omitempty"`
	AppFees                     []appFee `json:"appFees,omitempty"`
}

type quote struct {
	DepositAddress     string  `json:"depositAddress,omitempty"`
	DepositMemo        string  `json:"depositMemo,omitempty"`
	AmountIn           string  `json:"amountIn"`
	AmountInFormatted  string  `json:"amountInFormatted"`
	AmountInUsd        string  `json:"amountInUsd"`
	MinAmountIn        string  `json:"minAmountIn"`
	AmountOut          string  `json:"amountOut"`
	AmountOutFormatted string  `json:"amountOutFormatted"`
	AmountOutUsd       string  `json:"amountOutUsd"`
	MinAmountOut       string  `json:"minAmountOut"`
	Deadline           string  `json:"deadline,omitempty"`
	TimeWhenInactive   string  `json:"timeWhenInactive,omitempty"`
	TimeEstimate       float64 `json:"timeEstimate"`
	RefundFee          string  `json:"refundFee,omitempty"`
	WithdrawFee        string  `json:"withdrawFee,omitempty"`
}

type quoteResponse struct {
	CorrelationID string       `json:"correlationId"`
	Timestamp     string       `json:"timestamp"`
	Signature     string       `json:"signature"`
	QuoteRequest  quoteRequest `json:"quoteRequest"`
	Quote         quote        `json:"quote"`
}

func (a API) quote(w http.ResponseWriter, r *http.Request) {
	if !wire.BearerOK(w, r, a.V.Token) {
		return
	}
	var req quoteRequest
	if !wire.Decode(w, r, &req) {
		return
	}
	if msg := validateQuote(req); msg != "" {
		wire.Error(w, http.StatusBadRequest, msg)
		return
	}
	from, okFrom := a.lookupToken(req.OriginAsset)
	to, okTo := a.lookupToken(req.DestinationAsset)
	if !okFrom || !okTo {
		wire.Error(w, http.StatusBadRequest, "originAsset or destinationAsset is not supported")
		return
	}
	exactOut, flex := req.SwapType == "EXACT_OUTPUT", req.SwapType == "FLEX_INPUT"
	var appFeeBps int64
	for _, f := range req.AppFees {
		appFeeBps += f.Fee
	}
	priced, err := a.V.Price(from, to, req.Amount, exactOut, appFeeBps)
	if err != nil {
		a.quoteError(w, err)
		return
	}
	now := a.V.Now().UTC()
	resp := quoteResponse{
		CorrelationID: correlationID(now, req.OriginAsset, req.DestinationAsset, req.Amount),
		Timestamp:     now.Format(time.RFC3339Nano),
		QuoteRequest:  req,
		Quote:         a.buildQuote(from, to, priced, req.SlippageTolerance, req.SwapType),
	}
	if req.Dry {
		resp.Signature = a.sign(r.Context(), resp)
		wire.JSON(w, http.StatusOK, resp)
		return
	}
	deadline, _ := time.Parse(time.RFC3339, req.Deadline)
	open := venue.OpenRequest{
		From: from, To: to, Priced: priced, ExactOutput: exactOut,
		Recipient: req.Recipient, RefundTo: req.RefundTo, RequestedDeadline: deadline,
		Payload: func(o ledger.Order) any {
			saved := resp
			saved.Quote.DepositAddress = o.DepositAddress
			saved.Quote.Deadline = o.Terms.Deadline.UTC().Format(time.RFC3339Nano)
			// The address turns cold (slower processing) well before it stops accepting funds.
			saved.Quote.TimeWhenInactive = o.CreatedAt.Add(o.Terms.Deadline.Sub(o.CreatedAt) / 2).UTC().Format(time.RFC3339Nano)
			saved.Signature = a.sign(r.Context(), saved)
			return saved
		},
	}
	if flex {
		open.MinAmountIn, _ = new(big.Int).SetString(resp.Quote.MinAmountIn, 10)
	}
	o := a.V.Open(open)
	wire.JSON(w, http.StatusOK, o.Payload)
}

// sign is 1Click's signature of resp, or, under a BadSignature fault, a well-formed one over
// a larger amountOut than resp promises.
func (a API) sign(ctx context.Context, resp quoteResponse) string {
	if fault.FromContext(ctx).BadSignature {
		resp.Quote.AmountOut += "0"
	}
	body, _ := json.Marshal(resp) // the protocol's own types always encode
	sig, _ := quotesig.Sign(a.SigningKey, body)
	return sig
}

func validateQuote(req quoteRequest) string {
	switch {
	case req.OriginAsset == "" || req.DestinationAsset == "":
		return "originAsset and destinationAsset are required"
	case req.SwapType == "ANY_INPUT":
		return "swapType ANY_INPUT is only available for authorized partners"
	case req.SwapType != "EXACT_INPUT" && req.SwapType != "EXACT_OUTPUT" && req.SwapType != "FLEX_INPUT":
		return "swapType must be EXACT_INPUT, EXACT_OUTPUT or FLEX_INPUT"
	case req.SlippageTolerance < 0 || req.SlippageTolerance > 10000:
		return "slippageTolerance must be within 0..10000"
	case req.Recipient == "" || req.RefundTo == "":
		return "recipient and refundTo are required"
	case req.DepositMode != "" && req.DepositMode != "SIMPLE" && req.DepositMode != "MEMO":
		return "depositMode must be SIMPLE or MEMO"
	case !validAppFees(req.AppFees):
		return "appFees: each needs a recipient and a fee in basis points, together below 10000"
	case !validRebates(req.Rebates):
		return "rebates: up to 3, each with a recipient and a positive share, the shares adding up to 100"
	case req.Dry:
		return ""
	case req.DepositType != "ORIGIN_CHAIN":
		return "depositType must be ORIGIN_CHAIN"
	}
	if _, err := time.Parse(time.RFC3339, req.Deadline); err != nil {
		return "deadline must be an ISO 8601 timestamp"
	}
	return ""
}

// validAppFees: 1Click takes integrators' fees in basis points of the input, each to an
// Intents account.
func validAppFees(fees []appFee) bool {
	var total int64
	for _, f := range fees {
		if f.Recipient == "" || f.Fee < 0 {
			return false
		}
		total += f.Fee
	}
	return total < 10000
}

// validRebates: 1Click splits a rebate among up to 3 accounts by percent shares that add up
// to 100.
func validRebates(rebates []rebate) bool {
	if len(rebates) == 0 {
		return true
	}
	total := new(big.Rat)
	for _, r := range rebates {
		share, ok := new(big.Rat).SetString(string(r.Share))
		if r.Recipient == "" || !ok || share.Sign() <= 0 {
			return false
		}
		total.Add(total, share)
	}
	return len(rebates) <= 3 && total.Cmp(big.NewRat(100, 1)) == 0
}

// quoteError answers the pricing failures with 1Click-style messages.
func (a API) quoteError(w http.ResponseWriter, err error) {
	var le *market.LimitError
	isLimit := errors.As(err, &le)
	switch {
	case errors.Is(err, market.ErrUnsupportedPair):
		wire.Error(w, http.StatusBadRequest, "No quotes available for this pair")
	case isLimit && le.TooLow:
		wire.Error(w, http.StatusBadRequest, fmt.Sprintf("Amount is too low for bridge, try at least %s", le.Limit))
	case isLimit:
		wire.Error(w, http.StatusBadRequest, fmt.Sprintf("Amount is too high for bridge, try at most %s", le.Limit))
	default:
		wire.Error(w, http.StatusBadRequest, err.Error())
	}
}

func (a API) buildQuote(from, to market.Asset, p market.Result, slippageBps int64, swapType string) quote {
	q := quote{
		AmountIn: p.AmountIn.String(), AmountInFormatted: units.Format(p.AmountIn, from.Decimals),
		AmountInUsd: usd(p.AmountIn, from), MinAmountIn: p.AmountIn.String(),
		AmountOut: p.AmountOut.String(), AmountOutFormatted: units.Format(p.AmountOut, to.Decimals),
		AmountOutUsd: usd(p.AmountOut, to), MinAmountOut: venue.Slippage(p.AmountOut, slippageBps).String(),
		// Real estimates are fractional seconds.
		TimeEstimate: float64(p.EstimatedSeconds) - 0.4,
		RefundFee:    "0", WithdrawFee: p.NetworkFee.String(),
	}
	switch swapType {
	case "EXACT_OUTPUT": // the output is fixed; the input may move by the tolerance
		q.MinAmountOut = p.AmountOut.String()
		q.MinAmountIn = venue.Slippage(p.AmountIn, slippageBps).String()
	case "FLEX_INPUT": // the tolerance bounds the input; the least input buys at the quoted rate
		minIn := venue.Slippage(p.AmountIn, slippageBps)
		q.MinAmountIn = minIn.String()
		q.MinAmountOut = minIn.Mul(minIn, p.AmountOut).Quo(minIn, p.AmountIn).String()
	}
	return q
}

func usd(amount *big.Int, a market.Asset) string { return market.ValueUSD(amount, a).FloatString(4) }

func correlationID(now time.Time, parts ...string) string {
	h := sha256.Sum256([]byte(now.Format(time.RFC3339Nano) + strings.Join(parts, "|")))
	return hex.EncodeToString(h[:16])
}

type transactionDetails struct {
	Hash        string `json:"hash"`
	ExplorerURL string `json:"explorerUrl"`
}

type swapDetails struct {
	IntentHashes             []string             `json:"intentHashes"`
	NearTxHashes             []string             `json:"nearTxHashes"`
	AmountIn                 string               `json:"amountIn,omitempty"`
	AmountInFormatted        string               `json:"amountInFormatted,omitempty"`
	AmountInUsd              string               `json:"amountInUsd,omitempty"`
	AmountOut                string               `json:"amountOut,omitempty"`
	AmountOutFormatted       string               `json:"amountOutFormatted,omitempty"`
	AmountOutUsd             string               `json:"amountOutUsd,omitempty"`
	Slippage                 *float64             `json:"slippage,omitempty"`
	OriginChainTxHashes      []transactionDetails `json:"originChainTxHashes"`
	DestinationChainTxHashes []transactionDetails `json:"destinationChainTxHashes"`
	RefundedAmount           string               `json:"refundedAmount,omitempty"`
	RefundedAmountFormatted  string               `json:"refundedAmountFormatted,omitempty"`
	RefundReason             string               `json:"refundReason,omitempty"`
	DepositedAmount          string               `json:"depositedAmount,omitempty"`
	DepositedAmountFormatted string               `json:"depositedAmountFormatted,omitempty"`
	DepositedAmountUsd       string               `json:"depositedAmountUsd,omitempty"`
	WithdrawFee              string               `json:"withdrawFee,omitempty"`
	Referral                 string               `json:"referral,omitempty"`
}

type statusResponse struct {
	CorrelationID string        `json:"correlationId"`
	QuoteResponse quoteResponse `json:"quoteResponse"`
	Status        string        `json:"status"`
	UpdatedAt     string        `json:"updatedAt"`
	SwapDetails   swapDetails   `json:"swapDetails"`
}

// Status is the 1Click execution status of a phase.
func Status(p settlement.Phase) string {
	switch p {
	case settlement.AwaitingDeposit:
		return "PENDING_DEPOSIT"
	case settlement.DepositSeen:
		return "KNOWN_DEPOSIT_TX"
	case settlement.Incomplete:
		return "INCOMPLETE_DEPOSIT"
	case settlement.Swapping, settlement.Sending, settlement.Sent, settlement.Refunding:
		return "PROCESSING"
	case settlement.Completed:
		return "SUCCESS"
	case settlement.Refunded:
		return "REFUNDED"
	}
	return "FAILED"
}

func (a API) statusOf(o ledger.Order) statusResponse {
	p := a.V.Progress(o)
	d := swapDetails{IntentHashes: []string{}, NearTxHashes: []string{}, OriginChainTxHashes: []transactionDetails{}, DestinationChainTxHashes: []transactionDetails{}}
	for _, dep := range o.Deposits {
		if !dep.At.After(a.V.Now()) {
			d.OriginChainTxHashes = append(d.OriginChainTxHashes, transactionDetails{dep.TxHash, chainaddr.ExplorerURL(o.From.Chain, dep.TxHash)})
		}
	}
	var saved quoteResponse
	_ = json.Unmarshal(o.Payload, &saved) // written by quote; empty only if it was not
	d.Referral = saved.QuoteRequest.Referral
	if p.Deposited.Sign() > 0 {
		d.DepositedAmount, d.DepositedAmountFormatted = p.Deposited.String(), units.Format(p.Deposited, o.From.Decimals)
		d.DepositedAmountUsd = usd(p.Deposited, o.From)
	}
	switch p.Phase {
	case settlement.Completed:
		d.AmountIn, d.AmountInFormatted = p.AmountIn.String(), units.Format(p.AmountIn, o.From.Decimals)
		d.AmountOut, d.AmountOutFormatted = p.AmountOut.String(), units.Format(p.AmountOut, o.To.Decimals)
		d.AmountInUsd, d.AmountOutUsd, d.WithdrawFee = usd(p.AmountIn, o.From), usd(p.AmountOut, o.To), saved.Quote.WithdrawFee
		slippage := 0.0 // the simulated market executes at the quoted price
		d.Slippage = &slippage
		d.DestinationChainTxHashes = append(d.DestinationChainTxHashes, transactionDetails{o.OutTxHash, chainaddr.ExplorerURL(o.To.Chain, o.OutTxHash)})
		d.NearTxHashes = append(d.NearTxHashes, chainaddr.TxHash("near", o.OutTxHash))
		if p.Refunded.Sign() > 0 {
			d.RefundedAmount, d.RefundedAmountFormatted = p.Refunded.String(), units.Format(p.Refunded, o.From.Decimals)
		}
	case settlement.Refunded:
		d.RefundedAmount, d.RefundedAmountFormatted = p.Refunded.String(), units.Format(p.Refunded, o.From.Decimals)
		d.RefundReason = p.RefundReason
	}
	updated := o.CreatedAt
	if !p.Since.IsZero() {
		updated = p.Since
	}
	return statusResponse{
		CorrelationID: saved.CorrelationID, QuoteResponse: saved, Status: Status(p.Phase),
		UpdatedAt: updated.UTC().Format(time.RFC3339Nano), SwapDetails: d,
	}
}

func (a API) status(w http.ResponseWriter, r *http.Request) {
	if !wire.BearerOK(w, r, a.V.Token) {
		return
	}
	addr := r.URL.Query().Get("depositAddress")
	if addr == "" {
		wire.Error(w, http.StatusBadRequest, "depositAddress is required")
		return
	}
	o, ok := a.V.Book.ByAddress(a.V.Provider.ID, addr)
	if !ok {
		wire.Error(w, http.StatusNotFound, "Deposit address not found")
		return
	}
	wire.JSON(w, http.StatusOK, a.statusOf(o))
}

type submitDepositTxRequest struct {
	TxHash            string `json:"txHash"`
	DepositAddress    string `json:"depositAddress"`
	NearSenderAccount string `json:"nearSenderAccount,omitempty"`
	Memo              string `json:"memo,omitempty"`
}

func (a API) submit(w http.ResponseWriter, r *http.Request) {
	if !wire.BearerOK(w, r, a.V.Token) {
		return
	}
	var req submitDepositTxRequest
	if !wire.Decode(w, r, &req) {
		return
	}
	if req.TxHash == "" || req.DepositAddress == "" {
		wire.Error(w, http.StatusBadRequest, "txHash and depositAddress are required")
		return
	}
	o, ok := a.V.Book.SubmitTx(a.V.Provider.ID, req.DepositAddress, req.TxHash)
	a.V.Log.Info("deposit tx submitted", "provider", a.V.Provider.ID, "depositAddress", req.DepositAddress, "txHash", req.TxHash, "known", ok)
	if !ok {
		wire.Error(w, http.StatusNotFound, "Deposit address not found")
		return
	}
	wire.JSON(w, http.StatusOK, a.statusOf(o))
}
