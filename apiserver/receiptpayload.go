package apiserver

import (
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
)

// newReceiptPayload is the receipt of o at now, dated by issuedAt (wire.ReceiptPayload). Every
// field is always present; what the order does not have is null (or [] for lists), except
// providerSignature, present only when the provider signed its quote. A final receipt holds
// only what a terminal order can no longer change.
func newReceiptPayload(o *swapv1.SwapOrder, now time.Time) wire.ReceiptPayload {
	st := &o.Status
	bound := firstNonNil(o.Spec.Quote, st.Quote)
	rec := newOrderRecord(o)
	p := wire.ReceiptPayload{
		OrderID:           o.Spec.OrderID,
		Partner:           o.Spec.Partner,
		ProviderID:        string(o.Spec.ProviderID),
		OriginAsset:       o.Spec.OriginAsset,
		DestinationAsset:  o.Spec.DestinationAsset,
		Amount:            o.Spec.Amount,
		SwapType:          wire.ReceiptPayloadSwapType(rec.SwapType),
		DepositAddress:    optional(st.DepositAddress),
		DepositMemo:       optional(st.DepositMemo),
		ProviderSignature: optional(st.ProviderSignature),
		DepositedAmount:   optional(st.DepositedAmount),
		AmountOut:         optional(st.AmountOut),
		RefundedAmount:    optional(st.RefundedAmount),
		Fees:              []wire.Fee{},
		InTxHashes:        nonNil(st.InTxHashes),
		OutTxHashes:       nonNil(st.OutTxHashes),
		Status:            rec.Status, // PENDING while waiting for its deposit address, as the order record says
		Substatus:         optionalEnum[wire.Substatus](st.Substatus),
		History:           rec.History, // the order record's entries
		Final:             st.Status.IsTerminal(),
		IssuedAt:          preciseTimestamp(issuedAt(st, now)),
	}
	if o.Spec.Quote != nil {
		p.QuoteID = optional(o.Spec.Quote.QuoteID)
	}
	if bound != nil {
		p.MinAmountOut, p.MaxAmountIn = optional(bound.MinAmountOut), optional(bound.MaxAmountIn)
	}
	if q := firstNonNil(st.Quote, o.Spec.Quote); q != nil && q.Fees != nil {
		p.Fees = wireFees(q.Fees)
	}
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
