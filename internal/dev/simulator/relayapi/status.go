package relayapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/ledger"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/settlement"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/wire"
)

// statusResponse is /intents/status/v3's answer.
type statusResponse struct {
	Status             string   `json:"status"`
	Details            string   `json:"details,omitempty"`
	InTxHashes         []string `json:"inTxHashes"`
	TxHashes           []string `json:"txHashes"`
	UpdatedAt          int64    `json:"updatedAt"`
	OriginChainID      int64    `json:"originChainId"`
	DestinationChainID int64    `json:"destinationChainId"`
	QuoteCreatedAt     int64    `json:"quoteCreatedAt"`
}

// refundGasUSD is what sending a refund costs; a smaller refund is not sent (failure).
const refundGasUSD = "0.05"

// Status is Relay's status of a request in a phase; delayed marks a stalled fill, and
// unpaid a refund too small to pay its own gas.
func Status(p settlement.Phase, delayed, unpaid bool) string {
	switch p {
	case settlement.AwaitingDeposit, settlement.DepositSeen:
		return "waiting"
	case settlement.Swapping:
		if delayed {
			return "delayed"
		}
		return "pending"
	case settlement.Incomplete, settlement.Refunding:
		return "pending"
	case settlement.Sending, settlement.Sent:
		return "submitted"
	case settlement.Completed:
		return "success"
	case settlement.Refunded:
		if unpaid {
			return "failure"
		}
		return "refund"
	}
	return "failure"
}

// failReasons are Relay's failReason codes of the simulator's refunds, shown as details.
var failReasons = map[string]string{
	settlement.ReasonIncompleteDeposit:    "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL",
	settlement.ReasonDepositAfterDeadline: "TTL_EXPIRED",
	settlement.ReasonPriceFloorNotMet:     "SLIPPAGE",
}

func (a API) statusOf(o ledger.Order) statusResponse {
	var saved order
	_ = json.Unmarshal(o.Payload, &saved) // written by quote; zero only if it was not
	view := o
	if view.Terms.UnfilledBps > 0 {
		// Relay fills a request whole or refunds it.
		view.Terms.UnfilledBps = 10000
	}
	p := a.V.Progress(view)
	refundGas := market.USD(refundGasUSD)
	unpaid := p.Phase == settlement.Refunded && market.ValueUSD(p.Refunded, o.From).Cmp(refundGas) < 0
	s := statusResponse{
		Status: Status(p.Phase, p.Delayed, unpaid), InTxHashes: []string{}, TxHashes: []string{},
		UpdatedAt: o.CreatedAt.UnixMilli(), OriginChainID: saved.OriginChainID, DestinationChainID: saved.DestinationChainID,
		QuoteCreatedAt: saved.QuoteCreatedAtMilli,
	}
	if !p.Since.IsZero() {
		s.UpdatedAt = p.Since.UnixMilli()
	}
	for _, d := range o.Deposits {
		if !d.At.After(a.V.Now()) && (!o.Terms.SingleDeposit || len(s.InTxHashes) == 0) {
			s.InTxHashes = append(s.InTxHashes, d.TxHash)
		}
	}
	switch {
	case p.Phase == settlement.Sent || p.Phase == settlement.Completed:
		s.TxHashes = append(s.TxHashes, o.OutTxHash)
		if p.Phase == settlement.Completed && p.Refunded.Sign() > 0 {
			// The excess goes back in a refund leg of its own.
			s.TxHashes = append(s.TxHashes, o.RefundTxHash)
		}
	case s.Status == "refund":
		s.TxHashes = append(s.TxHashes, o.RefundTxHash)
		s.Details = failReasons[p.RefundReason]
	case s.Status == "failure":
		s.Details = "AMOUNT_TOO_LOW_TO_REFUND"
	}
	return s
}

func (a API) status(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("requestId")
	if id == "" {
		fail(w, http.StatusBadRequest, "", "querystring must have required property 'requestId'")
		return
	}
	o, ok := a.V.Book.ByChannel(a.V.Provider.ID, id)
	if !ok {
		fail(w, http.StatusNotFound, "", "Request not found")
		return
	}
	wire.JSON(w, http.StatusOK, a.statusOf(o))
}

// depositAddressResponse is /deposit-addresses/v1's answer.
type depositAddressResponse struct {
	DepositAddress string  `json:"depositAddress"`
	Type           string  `json:"type"`
	RequestID      string  `json:"requestId"`
	ChainID        int64   `json:"chainId"`
	CreatedAt      string  `json:"createdAt"`
	Currency       *string `json:"currency"`
	RefundTo       *string `json:"refundTo"`
}

// depositAddress looks a deposit address up by address or by the request it was created for:
// its type and the request it is bound to (the first one, for an open address).
func (a API) depositAddress(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	addr, id := q.Get("address"), q.Get("requestId")
	if (addr == "") == (id == "") {
		fail(w, http.StatusBadRequest, "", "Provide either address or requestId")
		return
	}
	o, ok := a.V.Book.ByAddress(a.V.Provider.ID, addr)
	if id != "" {
		o, ok = a.V.Book.ByChannel(a.V.Provider.ID, id)
	}
	if !ok {
		fail(w, http.StatusNotFound, "", "Deposit address not found")
		return
	}
	var saved order
	_ = json.Unmarshal(o.Payload, &saved)
	resp := depositAddressResponse{DepositAddress: o.DepositAddress, Type: "open", RequestID: o.ChannelID, ChainID: saved.OriginChainID,
		CreatedAt: o.CreatedAt.UTC().Format(time.RFC3339Nano), Currency: &saved.OriginCurrency}
	if saved.Strict {
		resp.Type = "strict"
	}
	if saved.RefundTo != "" {
		resp.RefundTo = &saved.RefundTo
	}
	wire.JSON(w, http.StatusOK, resp)
}

type indexRequest struct {
	ChainID   string `json:"chainId"`
	TxHash    string `json:"txHash"`
	RequestID string `json:"requestId,omitempty"`
}

// index takes a deposit transaction's hash, to pick the deposit up sooner; with a request id
// the request must exist.
func (a API) index(w http.ResponseWriter, r *http.Request) {
	var req indexRequest
	if !wire.Decode(w, r, &req) {
		return
	}
	id, err := strconv.ParseInt(req.ChainID, 10, 64)
	if _, known := chainByID(id); err != nil || !known || req.TxHash == "" {
		fail(w, http.StatusBadRequest, "", "chainId must be a supported chain and txHash is required")
		return
	}
	var addr string
	if req.RequestID != "" {
		o, ok := a.V.Book.ByChannel(a.V.Provider.ID, req.RequestID)
		if !ok {
			fail(w, http.StatusNotFound, "", "Request not found")
			return
		}
		addr = o.DepositAddress
	}
	a.V.Book.SubmitTx(a.V.Provider.ID, addr, req.TxHash)
	a.V.Log.Info("deposit tx indexed", "provider", a.V.Provider.ID, "depositAddress", addr, "requestId", req.RequestID, "txHash", req.TxHash)
	wire.JSON(w, http.StatusOK, map[string]string{"message": "Transaction indexed"})
}
