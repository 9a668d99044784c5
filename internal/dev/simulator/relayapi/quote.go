package relayapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/chainaddr"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/ledger"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/venue"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/wire"
	"github.com/swaprouter/swaprouter/internal/units"
)

type appFee struct {
	Recipient string `json:"recipient"`
	Fee       string `json:"fee"`
}

// quoteRequest is the /quote/v2 body: the fields the simulator acts on, and the documented
// ones that change nothing it models (accepted and ignored). Calldata, authorizations, fee
// sponsorship and swap-source options are not modelled and are refused as unknown fields.
type quoteRequest struct {
	User                string   `json:"user"`
	Recipient           string   `json:"recipient,omitempty"`
	OriginChainID       int64    `json:"originChainId"`
	DestinationChainID  int64    `json:"destinationChainId"`
	OriginCurrency      string   `json:"originCurrency"`
	DestinationCurrency string   `json:"destinationCurrency"`
	Amount              string   `json:"amount"`
	TradeType           string   `json:"tradeType"`
	RefundTo            string   `json:"refundTo,omitempty"`
	RecoveryAddress     string   `json:"recoveryAddress,omitempty"`
	UseDepositAddress   bool     `json:"useDepositAddress,omitempty"`
	Strict              bool     `json:"strict,omitempty"`
	SlippageTolerance   string   `json:"slippageTolerance,omitempty"`
	AppFees             []appFee `json:"appFees,omitempty"`
	TTL                 int64    `json:"ttl,omitempty"`

	Referrer                     string          `json:"referrer,omitempty"`
	ReferrerAddress              string          `json:"referrerAddress,omitempty"`
	RefundOnOrigin               *bool           `json:"refundOnOrigin,omitempty"`
	TopupGas                     *bool           `json:"topupGas,omitempty"`
	TopupGasAmount               string          `json:"topupGasAmount,omitempty"`
	EnableTrueExactOutput        *bool           `json:"enableTrueExactOutput,omitempty"`
	ExplicitDeposit              *bool           `json:"explicitDeposit,omitempty"`
	UseExternalLiquidity         *bool           `json:"useExternalLiquidity,omitempty"`
	UseFallbacks                 *bool           `json:"useFallbacks,omitempty"`
	IncludeProtocolData          *bool           `json:"includeProtocolData,omitempty"`
	LatePaymentSlippageTolerance string          `json:"latePaymentSlippageTolerance,omitempty"`
	OverridePriceImpact          *bool           `json:"overridePriceImpact,omitempty"`
	AdditionalData               json.RawMessage `json:"additionalData,omitempty"`
}

var (
	amountRE = regexp.MustCompile(`^[0-9]+$`)
	evmRE    = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
)

// autoSlippageBps is the tolerance the simulated Relay picks when the request leaves it.
const autoSlippageBps = 50

// validate checks the request as Relay's schema and quote rules do: a message, and the error
// code when Relay gives one.
func validate(req quoteRequest) (code, msg string) {
	switch {
	case req.User == "":
		return "", "body must have required property 'user'"
	case req.Amount == "" || !amountRE.MatchString(req.Amount) || strings.TrimLeft(req.Amount, "0") == "":
		return "", "body/amount must be a positive integer string"
	case req.TradeType != "EXACT_INPUT" && req.TradeType != "EXACT_OUTPUT" && req.TradeType != "EXPECTED_OUTPUT":
		return "", "body/tradeType must be equal to one of the allowed values"
	case req.SlippageTolerance != "" && !validBps(req.SlippageTolerance):
		return "INVALID_SLIPPAGE_TOLERANCE", "slippageTolerance must be an integer between 0 and 10000"
	case req.Strict && !req.UseDepositAddress:
		return "", "strict requires useDepositAddress"
	case req.Strict && req.RefundTo == "":
		return "", "refundTo is required for strict deposit addresses"
	case req.RecoveryAddress != "" && !req.UseDepositAddress:
		return "", "recoveryAddress requires useDepositAddress"
	case req.UseDepositAddress && !req.Strict && req.TradeType == "EXACT_OUTPUT":
		return "", "EXACT_OUTPUT deposit address requests require strict"
	}
	for _, f := range req.AppFees {
		if !evmRE.MatchString(f.Recipient) || !validBps(f.Fee) {
			return "INVALID_ADDRESS", "appFees: each needs an EVM recipient address and a fee in basis points"
		}
	}
	return "", ""
}

func validBps(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && amountRE.MatchString(s) && n <= 10000
}

// priced is a valid request with its assets and price.
type priced struct {
	req      quoteRequest
	from, to market.Asset
	res      market.Result
	// recipient is the request's, else the user.
	recipient   string
	slippageBps int64
	exactOut    bool
}

// price resolves and prices a request; on failure it answers with Relay's error.
func (a API) price(w http.ResponseWriter, req quoteRequest) (priced, bool) {
	if code, msg := validate(req); msg != "" {
		fail(w, http.StatusBadRequest, code, msg)
		return priced{}, false
	}
	for _, id := range []int64{req.OriginChainID, req.DestinationChainID} {
		if _, ok := chainByID(id); !ok {
			fail(w, http.StatusBadRequest, "UNSUPPORTED_CHAIN", fmt.Sprintf("Chain %d is not supported", id))
			return priced{}, false
		}
	}
	from, okFrom := a.lookup(req.OriginChainID, req.OriginCurrency)
	if !okFrom {
		fail(w, http.StatusBadRequest, "INVALID_INPUT_CURRENCY", "Invalid input or output currency")
		return priced{}, false
	}
	to, okTo := a.lookup(req.DestinationChainID, req.DestinationCurrency)
	if !okTo {
		fail(w, http.StatusBadRequest, "INVALID_OUTPUT_CURRENCY", "Invalid input or output currency")
		return priced{}, false
	}
	p := priced{req: req, from: from, to: to, recipient: req.Recipient, slippageBps: autoSlippageBps, exactOut: req.TradeType == "EXACT_OUTPUT"}
	if p.recipient == "" {
		p.recipient = req.User
	}
	dst, _ := chainByID(req.DestinationChainID)
	if dst.VM == "evm" && !evmRE.MatchString(p.recipient) {
		fail(w, http.StatusBadRequest, "INVALID_ADDRESS", "Recipient is not a valid address for the destination chain")
		return priced{}, false
	}
	if req.SlippageTolerance != "" {
		p.slippageBps, _ = strconv.ParseInt(req.SlippageTolerance, 10, 64)
	}
	var feeBps int64
	for _, f := range req.AppFees {
		n, _ := strconv.ParseInt(f.Fee, 10, 64)
		feeBps += n
	}
	// EXPECTED_OUTPUT prices the input for the output, then executes as exact input.
	res, err := a.V.Price(from, to, req.Amount, req.TradeType != "EXACT_INPUT", feeBps)
	var le *market.LimitError
	switch {
	case err == nil:
		p.res = res
		return p, true
	case errors.Is(err, market.ErrUnsupportedPair):
		fail(w, http.StatusBadRequest, "NO_SWAP_ROUTES_FOUND", "No routes found")
	case errors.As(err, &le) && le.TooLow:
		fail(w, http.StatusBadRequest, "AMOUNT_TOO_LOW", "Amount is too low to cover fees")
	case errors.As(err, &le):
		fail(w, http.StatusBadRequest, "INSUFFICIENT_LIQUIDITY", "Insufficient liquidity to fill this amount")
	default:
		fail(w, http.StatusBadRequest, "UNKNOWN_ERROR", err.Error())
	}
	return priced{}, false
}

// order is what the simulated Relay keeps with a deposit address (JSON: the book persists it).
type order struct {
	Strict              bool   `json:"strict"`
	OriginChainID       int64  `json:"originChainId"`
	DestinationChainID  int64  `json:"destinationChainId"`
	OriginCurrency      string `json:"originCurrency"`
	RefundTo            string `json:"refundTo,omitempty"`
	QuoteCreatedAtMilli int64  `json:"quoteCreatedAt"`
}

func (a API) quote(w http.ResponseWriter, r *http.Request) {
	var req quoteRequest
	if !wire.Decode(w, r, &req) {
		return
	}
	p, ok := a.price(w, req)
	if !ok {
		return
	}
	now := a.V.Now()
	if !req.UseDepositAddress {
		// Calldata for the user's wallet; nothing is created.
		wire.JSON(w, http.StatusOK, a.response(p, a.requestID(now, "quote", req.Amount), ""))
		return
	}
	addr, requestID := a.handOut(p, now)
	wire.JSON(w, http.StatusOK, a.response(p, requestID, addr))
}

// handOut hands out the request's deposit address: a new one bound to the request (strict), or
// the route's open address, created on its first quote and answering each later quote's
// request id too.
func (a API) handOut(p priced, now time.Time) (addr, requestID string) {
	payload := order{Strict: p.req.Strict, OriginChainID: p.req.OriginChainID, DestinationChainID: p.req.DestinationChainID,
		OriginCurrency: address(p.from), RefundTo: p.req.RefundTo, QuoteCreatedAtMilli: now.UnixMilli()}
	open := venue.OpenRequest{
		From: p.from, To: p.to, Priced: p.res, ExactOutput: p.exactOut, Recipient: p.recipient, RefundTo: p.req.RefundTo,
		SingleDeposit: p.req.Strict,
		ChannelID:     func(seq int) string { return a.requestID(now, "seq", strconv.Itoa(seq)) },
		Payload:       func(ledger.Order) any { return payload },
	}
	if p.req.TTL > 0 {
		open.Deadline = now.Add(time.Duration(p.req.TTL) * time.Second)
	}
	if !p.req.Strict {
		open.Address = chainaddr.Address(p.from.Chain, a.V.Seed, string(a.V.Provider.ID), "open",
			p.from.Key, p.to.Key, p.recipient, p.req.RefundTo)
		// Any deposit the fees allow is swapped whole at the quoted rate.
		open.MinAmountIn = p.res.MinIn
		if o, ok := a.V.Book.ByAddress(a.V.Provider.ID, open.Address); ok {
			requestID = a.requestID(now, "reuse", o.DepositAddress, strconv.Itoa(len(o.Refs)))
			a.V.Book.AddRef(a.V.Provider.ID, o.DepositAddress, requestID)
			a.V.Log.Info("open deposit address quoted again", "provider", a.V.Provider.ID, "depositAddress", o.DepositAddress,
				"requestId", requestID, "firstRequestId", o.ChannelID)
			return o.DepositAddress, requestID
		}
	}
	o := a.V.Open(open)
	return o.DepositAddress, o.ChannelID
}

// requestID is a Relay request id (32 bytes, 0x-hex), unique per simulator run.
func (a API) requestID(now time.Time, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(append([]string{"relay request", a.V.Seed, string(a.V.Provider.ID),
		strconv.FormatInt(now.UnixNano(), 10)}, parts...), "|")))
	return "0x" + hex.EncodeToString(h[:])
}

type checkRef struct {
	Endpoint string `json:"endpoint"`
	Method   string `json:"method"`
}

type stepItem struct {
	Status string         `json:"status"`
	Data   map[string]any `json:"data"`
	Check  checkRef       `json:"check"`
}

type step struct {
	ID             string     `json:"id"`
	Action         string     `json:"action"`
	Description    string     `json:"description"`
	Kind           string     `json:"kind"`
	RequestID      string     `json:"requestId"`
	DepositAddress string     `json:"depositAddress,omitempty"`
	Items          []stepItem `json:"items"`
}

type amount struct {
	Currency        currency `json:"currency"`
	Amount          string   `json:"amount"`
	AmountFormatted string   `json:"amountFormatted"`
	AmountUsd       string   `json:"amountUsd"`
	MinimumAmount   string   `json:"minimumAmount"`
}

type fees struct {
	Gas            amount `json:"gas"`
	Relayer        amount `json:"relayer"`
	RelayerGas     amount `json:"relayerGas"`
	RelayerService amount `json:"relayerService"`
	App            amount `json:"app"`
	Subsidized     amount `json:"subsidized"`
}

type impact struct {
	Usd     string `json:"usd"`
	Percent string `json:"percent"`
}

type usdOnly struct {
	Usd string `json:"usd"`
}

type expandedImpact struct {
	Swap      usdOnly `json:"swap"`
	Execution usdOnly `json:"execution"`
	Relay     usdOnly `json:"relay"`
	App       usdOnly `json:"app"`
	Sponsored usdOnly `json:"sponsored"`
}

type slippageSide struct {
	Usd     string `json:"usd"`
	Value   string `json:"value"`
	Percent string `json:"percent"`
}

type slippage struct {
	Origin      slippageSide `json:"origin"`
	Destination slippageSide `json:"destination"`
}

type details struct {
	Operation           string         `json:"operation"`
	Sender              string         `json:"sender"`
	Recipient           string         `json:"recipient"`
	CurrencyIn          amount         `json:"currencyIn"`
	CurrencyOut         amount         `json:"currencyOut"`
	RefundCurrency      amount         `json:"refundCurrency"`
	TotalImpact         impact         `json:"totalImpact"`
	SwapImpact          impact         `json:"swapImpact"`
	ExpandedPriceImpact expandedImpact `json:"expandedPriceImpact"`
	Rate                string         `json:"rate"`
	SlippageTolerance   slippage       `json:"slippageTolerance"`
	TimeEstimate        int64          `json:"timeEstimate"`
	UserBalance         string         `json:"userBalance"`
	IsFixedRate         bool           `json:"isFixedRate"`
}

type quoteResponse struct {
	Steps   []step  `json:"steps"`
	Fees    fees    `json:"fees"`
	Details details `json:"details"`
}

// gasUSD is what a deposit transaction costs the user on the origin chain.
const gasUSD = "0.02"

func (a API) response(p priced, requestID, depositAddr string) quoteResponse {
	minOut := p.res.AmountOut
	if !p.exactOut {
		minOut = venue.Slippage(p.res.AmountOut, p.slippageBps)
	}
	in := amountOf(p.from, p.res.AmountIn, p.res.AmountIn)
	out := amountOf(p.to, p.res.AmountOut, minOut)
	native := nativeOf(p.from.Chain)
	gas := market.USD(gasUSD)
	relayerGas := market.Convert(p.res.NetworkFee, p.to, p.from)
	relayer := new(big.Int).Add(p.res.ProtocolFee, relayerGas)
	lossUSD := new(big.Rat).Sub(market.ValueUSD(p.res.AmountIn, p.from), market.ValueUSD(p.res.AmountOut, p.to))
	inUSD := market.ValueUSD(p.res.AmountIn, p.from)
	slipOut := new(big.Int).Sub(p.res.AmountOut, minOut)
	operation := "swap"
	if p.from.Symbol == p.to.Symbol {
		operation = "bridge"
	}
	return quoteResponse{
		Steps: []step{a.depositStep(p, requestID, depositAddr)},
		Fees: fees{
			Gas:            amountOf(native, usdIn(gas, native), usdIn(gas, native)),
			Relayer:        amountOf(p.from, relayer, relayer),
			RelayerGas:     amountOf(p.from, relayerGas, relayerGas),
			RelayerService: amountOf(p.from, p.res.ProtocolFee, p.res.ProtocolFee),
			App:            amountOf(p.from, p.res.AppFee, p.res.AppFee),
			Subsidized:     amountOf(p.from, new(big.Int), new(big.Int)),
		},
		Details: details{
			Operation: operation, Sender: p.req.User, Recipient: p.recipient,
			CurrencyIn: in, CurrencyOut: out, RefundCurrency: in,
			TotalImpact: impact{Usd: "-" + lossUSD.FloatString(6), Percent: "-" + percent(lossUSD, inUSD)},
			SwapImpact:  impact{Usd: "0.000000", Percent: "0.00"},
			ExpandedPriceImpact: expandedImpact{
				Swap: usdOnly{"-" + market.ValueUSD(p.res.ProtocolFee, p.from).FloatString(6)}, Execution: usdOnly{"-" + market.ValueUSD(relayerGas, p.from).FloatString(6)},
				Relay: usdOnly{"0"}, App: usdOnly{"-" + market.ValueUSD(p.res.AppFee, p.from).FloatString(6)}, Sponsored: usdOnly{"0"},
			},
			Rate: rate(p),
			SlippageTolerance: slippage{
				Origin:      slippageSide{Usd: "0.000000", Value: "0", Percent: "0.00"},
				Destination: slippageSide{Usd: market.ValueUSD(slipOut, p.to).FloatString(6), Value: slipOut.String(), Percent: new(big.Rat).SetFrac64(p.slippageBps, 100).FloatString(2)},
			},
			TimeEstimate: p.res.EstimatedSeconds, UserBalance: "0",
		},
	}
}

// depositStep is the one step of a quote: a transfer to the deposit address, or (without
// one) the deposit to Relay's receiver, checked through the request's status.
func (a API) depositStep(p priced, requestID, depositAddr string) step {
	src, _ := chainByKey(p.from.Chain)
	data := map[string]any{"from": p.req.User, "to": relayReceiver, "data": "0x58109c", "value": p.res.AmountIn.String(), "chainId": src.ID}
	switch {
	case depositAddr != "" && src.VM != "evm":
		data = map[string]any{"to": depositAddr, "value": p.res.AmountIn.String(), "chainId": src.ID}
	case depositAddr != "" && p.from.IsNative():
		data["to"], data["data"] = depositAddr, "0x"
	case depositAddr != "":
		data["to"], data["data"], data["value"] = p.from.Contract, transferCalldata(depositAddr, p.res.AmountIn), "0"
	}
	return step{
		ID: "deposit", Action: "Confirm transaction in your wallet",
		Description: "Depositing funds to the relayer to execute the swap for " + p.to.Symbol, Kind: "transaction",
		RequestID: requestID, DepositAddress: depositAddr,
		Items: []stepItem{{Status: "incomplete", Data: data, Check: checkRef{Endpoint: "/intents/status/v3?requestId=" + requestID, Method: "GET"}}},
	}
}

// transferCalldata is an ERC-20 transfer(to, amount) call.
func transferCalldata(to string, n *big.Int) string {
	return "0xa9059cbb" + fmt.Sprintf("%064s", strings.ToLower(strings.TrimPrefix(to, "0x"))) + fmt.Sprintf("%064x", n)
}

func amountOf(m market.Asset, n, minimum *big.Int) amount {
	return amount{Currency: currencyOf(m), Amount: n.String(), AmountFormatted: units.Format(n, m.Decimals),
		AmountUsd: market.ValueUSD(n, m).FloatString(6), MinimumAmount: minimum.String()}
}

// nativeOf is the native asset of a simulated chain.
func nativeOf(chainKey string) market.Asset {
	if m, ok := market.Native(chainKey); ok {
		return m
	}
	panic("no native asset on " + chainKey) // every chain of the table has one
}

// usdIn is a dollar amount in m's smallest units, rounded down.
func usdIn(usd *big.Rat, m market.Asset) *big.Int {
	unit := m.Unit()
	v := new(big.Rat).Quo(usd, market.ValueUSD(unit, m))
	v.Mul(v, new(big.Rat).SetInt(unit))
	return new(big.Int).Quo(v.Num(), v.Denom())
}

// rate is the output per input in whole units.
func rate(p priced) string {
	r := new(big.Rat).SetFrac(p.res.AmountOut, p.res.AmountIn)
	r.Mul(r, new(big.Rat).SetFrac(p.from.Unit(), p.to.Unit()))
	return r.FloatString(16)
}

func percent(part, whole *big.Rat) string {
	if whole.Sign() == 0 {
		return "0.00"
	}
	return new(big.Rat).Mul(new(big.Rat).Quo(part, whole), big.NewRat(100, 1)).FloatString(2)
}
