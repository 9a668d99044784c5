package apiserver

import (
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// receiptPayload is what a receipt states (GET /v1/order/{id}/receipt). Every field is
// always present; what the order does not have is null (or [] for lists), except
// providerSignature, present only when the provider signed its quote. A final receipt holds
// only what a terminal order can no longer change.
type receiptPayload struct {
	OrderID          string            `json:"orderId"`
	Partner          string            `json:"partner"`
	ProviderID       swapv1.ProviderID `json:"providerId"`
	OriginAsset      string            `json:"originAsset"`
	DestinationAsset string            `json:"destinationAsset"`
	Amount           string            `json:"amount"`
	SwapType         swapv1.SwapType   `json:"swapType"`
	// QuoteID is the quote the partner accepted; MinAmountOut (EXACT_INPUT) or MaxAmountIn
	// (EXACT_OUTPUT) the bound the order was held to.
	QuoteID        *string `json:"quoteId"`
	MinAmountOut   *string `json:"minAmountOut"`
	MaxAmountIn    *string `json:"maxAmountIn"`
	DepositAddress *string `json:"depositAddress"`
	DepositMemo    *string `json:"depositMemo"`
	// ProviderSignature is the provider's own signature over the quote behind the address.
	ProviderSignature string             `json:"providerSignature,omitempty"`
	DepositedAmount   *string            `json:"depositedAmount"`
	AmountOut         *string            `json:"amountOut"`
	RefundedAmount    *string            `json:"refundedAmount"`
	Fees              []swapv1.Fee       `json:"fees"`
	InTxHashes        []string           `json:"inTxHashes"`
	OutTxHashes       []string           `json:"outTxHashes"`
	Status            swapv1.OrderStatus `json:"status"`
	Substatus         *string            `json:"substatus"`
	History           []historyEntry     `json:"history"`
	// Final is true once the order is terminal: nothing in the receipt changes any more.
	Final    bool   `json:"final"`
	IssuedAt string `json:"issuedAt"`
}

// newReceiptPayload is the receipt of o at now, dated by issuedAt.
func newReceiptPayload(o *swapv1.SwapOrder, now time.Time) receiptPayload {
	st := &o.Status
	bound := firstNonNil(o.Spec.Quote, st.Quote)
	p := receiptPayload{
		OrderID:           o.Spec.OrderID,
		Partner:           o.Spec.Partner,
		ProviderID:        o.Spec.ProviderID,
		OriginAsset:       o.Spec.OriginAsset,
		DestinationAsset:  o.Spec.DestinationAsset,
		Amount:            o.Spec.Amount,
		SwapType:          o.Spec.SwapType,
		DepositAddress:    optional(st.DepositAddress),
		DepositMemo:       optional(st.DepositMemo),
		ProviderSignature: st.ProviderSignature,
		DepositedAmount:   optional(st.DepositedAmount),
		AmountOut:         optional(st.AmountOut),
		RefundedAmount:    optional(st.RefundedAmount),
		Fees:              []swapv1.Fee{},
		InTxHashes:        nonNil(st.InTxHashes),
		OutTxHashes:       nonNil(st.OutTxHashes),
		Status:            st.Status,
		Substatus:         optional(string(st.Substatus)),
		Final:             st.Status.IsTerminal(),
		IssuedAt:          preciseTimestamp(issuedAt(st, now)),
	}
	if p.SwapType == "" {
		p.SwapType = swapv1.ExactInput
	}
	if p.Status == "" {
		// Waiting for its deposit address: PENDING, as the order record says.
		p.Status = swapv1.OrderPending
	}
	if o.Spec.Quote != nil {
		p.QuoteID = optional(o.Spec.Quote.QuoteID)
	}
	if bound != nil {
		p.MinAmountOut, p.MaxAmountIn = optional(bound.MinAmountOut), optional(bound.MaxAmountIn)
	}
	if q := firstNonNil(st.Quote, o.Spec.Quote); q != nil && q.Fees != nil {
		p.Fees = q.Fees
	}
	p.History = newOrderRecord(o).History // the order record's entries
	return p
}

// issuedAt dates a receipt of an order with status st asked for at now, to the microsecond
// like the history it signs. A terminal order's is when it ended (statuses are absorbing: its
// last transition ended it), so a final receipt is the same whenever it is asked for; any
// other's is now, but never before the last transition it records (the controllers that
// record transitions and the frontend that signs may read different clocks).
func issuedAt(st *swapv1.SwapOrderStatus, now time.Time) time.Time {
	if len(st.History) == 0 {
		return now
	}
	last := st.History[len(st.History)-1].At.Time
	if st.Status.IsTerminal() || now.Before(last) {
		return last
	}
	return now
}
