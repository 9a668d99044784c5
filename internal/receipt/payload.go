// Package receipt signs and verifies order receipts: a compact JWS (EdDSA, Ed25519) over the
// order as it stands, which a partner can keep and verify offline against the service's
// published keys (a JSON Web Key Set). A final receipt is the same bytes every time it is
// asked for: its payload holds only what a terminal order can no longer change, and it is
// dated when the order ended.
package receipt

import (
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Payload is what a receipt states. Every field is always present; what the order does not
// have is null (or [] for lists), except providerSignature, present only when the provider
// signed its quote.
type Payload struct {
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
	ProviderSignature string       `json:"providerSignature,omitempty"`
	DepositedAmount   *string      `json:"depositedAmount"`
	AmountOut         *string      `json:"amountOut"`
	RefundedAmount    *string      `json:"refundedAmount"`
	Fees              []swapv1.Fee `json:"fees"`
	InTxHashes        []string     `json:"inTxHashes"`
	OutTxHashes       []string     `json:"outTxHashes"`
	Status            string       `json:"status"`
	Substatus         *string      `json:"substatus"`
	History           []Transition `json:"history"`
	// Final is true once the order is terminal: nothing in the receipt changes any more.
	Final    bool   `json:"final"`
	IssuedAt string `json:"issuedAt"`
}

// Transition is one entry of the order's status history.
type Transition struct {
	Seq       int64   `json:"seq"`
	Status    string  `json:"status"`
	Reason    *string `json:"reason"`
	Substatus *string `json:"substatus"`
	At        string  `json:"at"`
}

// Of is the receipt payload of o at now. A terminal order's receipt is dated when the order
// ended (its last transition), not now, so it is the same whenever it is asked for.
func Of(o *swapv1.SwapOrder, now time.Time) Payload {
	st := &o.Status
	bound := firstNonNil(o.Spec.Quote, st.Quote)
	p := Payload{
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
		Status:            string(st.Status),
		Substatus:         optional(string(st.Substatus)),
		History:           make([]Transition, 0, len(st.History)),
		Final:             st.Status.IsTerminal(),
		IssuedAt:          timestamp(now),
	}
	if p.SwapType == "" {
		p.SwapType = swapv1.ExactInput
	}
	if p.Status == "" {
		// Waiting for its deposit address: PENDING, as the order record says.
		p.Status = string(swapv1.OrderPending)
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
	for _, h := range st.History {
		p.History = append(p.History, Transition{
			Seq: h.Seq, Status: string(h.Status), Reason: optional(h.Reason),
			Substatus: optional(string(h.Substatus)), At: timestamp(h.At.Time),
		})
	}
	if p.Final && len(st.History) > 0 {
		// Terminal statuses are absorbing: the last transition is the one that ended it.
		p.IssuedAt = timestamp(st.History[len(st.History)-1].At.Time)
	}
	return p
}

// timestamp is ISO 8601 in UTC with second precision, as every timestamp of the API.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func firstNonNil[T any](ps ...*T) *T {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}
