package apiserver

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// orderRecord is the order as /v1 shows it. Every field is always present; what the order
// does not have yet is null (or [] for lists), so clients never need to probe for keys.
type orderRecord struct {
	ID                   string                 `json:"id"`
	Status               swapv1.OrderStatus     `json:"status"`
	StatusReason         *string                `json:"statusReason"`
	Substatus            *string                `json:"substatus"`
	ProviderStatus       *string                `json:"providerStatus"`
	ProviderID           swapv1.ProviderID      `json:"providerId"`
	OriginAsset          string                 `json:"originAsset"`
	DestinationAsset     string                 `json:"destinationAsset"`
	Amount               string                 `json:"amount"`
	SwapType             swapv1.SwapType        `json:"swapType"`
	SlippageToleranceBps *int32                 `json:"slippageToleranceBps"`
	Sender               string                 `json:"sender"`
	Recipient            string                 `json:"recipient"`
	RefundTo             *string                `json:"refundTo"`
	DepositAddress       *string                `json:"depositAddress"`
	DepositMemo          *string                `json:"depositMemo"`
	Quote                *swapv1.QuoteCandidate `json:"quote"`
	DepositDeadline      *string                `json:"depositDeadline"`
	InTxHashes           []string               `json:"inTxHashes"`
	OutTxHashes          []string               `json:"outTxHashes"`
	AmountIn             *string                `json:"amountIn"`
	AmountOut            *string                `json:"amountOut"`
	DepositedAmount      *string                `json:"depositedAmount"`
	RefundedAmount       *string                `json:"refundedAmount"`
	CreatedAt            string                 `json:"createdAt"`
	UpdatedAt            string                 `json:"updatedAt"`
	History              []historyEntry         `json:"history"`
	ClientReference      *string                `json:"clientReference"`
}

type historyEntry struct {
	Seq            int64              `json:"seq"`
	Status         swapv1.OrderStatus `json:"status"`
	PreviousStatus *string            `json:"previousStatus"`
	Reason         *string            `json:"reason"`
	Substatus      *string            `json:"substatus"`
	At             string             `json:"at"`
}

// newOrderRecord renders o for partners.
func newOrderRecord(o *swapv1.SwapOrder) orderRecord {
	st := &o.Status
	created := o.CreatedAt()
	rec := orderRecord{
		ID:                   o.Spec.OrderID,
		Status:               st.Status,
		StatusReason:         optional(st.StatusReason),
		Substatus:            optional(string(st.Substatus)),
		ProviderStatus:       optional(st.ProviderStatus),
		ProviderID:           o.Spec.ProviderID,
		OriginAsset:          o.Spec.OriginAsset,
		DestinationAsset:     o.Spec.DestinationAsset,
		Amount:               o.Spec.Amount,
		SwapType:             o.Spec.SwapType,
		SlippageToleranceBps: o.Spec.SlippageToleranceBps,
		Sender:               o.Spec.Sender,
		Recipient:            o.Spec.Recipient,
		RefundTo:             optional(o.Spec.RefundTo),
		DepositAddress:       optional(st.DepositAddress),
		DepositMemo:          optional(st.DepositMemo),
		// The provider's binding quote once it issued the address; until then the candidate
		// the partner accepted (orders from a quote).
		Quote:           firstNonNil(st.Quote, o.Spec.Quote),
		DepositDeadline: optionalTime(st.DepositDeadline),
		InTxHashes:      nonNil(st.InTxHashes),
		OutTxHashes:     nonNil(st.OutTxHashes),
		AmountIn:        optional(st.AmountIn),
		AmountOut:       optional(st.AmountOut),
		DepositedAmount: optional(st.DepositedAmount),
		RefundedAmount:  optional(st.RefundedAmount),
		CreatedAt:       preciseTimestamp(created),
		UpdatedAt:       preciseTimestamp(created),
		History:         make([]historyEntry, 0, len(st.History)),
		ClientReference: optional(o.Spec.ClientReference),
	}
	// Before the reconciler's first word the order is waiting for its deposit address, which
	// partners know as PENDING (with depositAddress still null).
	if rec.Status == "" {
		rec.Status = swapv1.OrderPending
	}
	if rec.SwapType == "" {
		rec.SwapType = swapv1.ExactInput
	}
	for _, h := range st.History {
		rec.History = append(rec.History, historyEntry{
			Seq:            h.Seq,
			Status:         h.Status,
			PreviousStatus: optional(string(h.PreviousStatus)),
			Reason:         optional(h.Reason),
			Substatus:      optional(string(h.Substatus)),
			At:             preciseTimestamp(h.At.Time),
		})
		if h.At.After(created) {
			rec.UpdatedAt = preciseTimestamp(h.At.Time)
		}
	}
	return rec
}

// timestamp is ISO 8601 in UTC with second precision, as the API's timestamps that are not
// an order's creation or transitions.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// preciseTimestamp is ISO 8601 in UTC with microseconds: an order's createdAt, updatedAt and
// history times, which order orders and events exactly.
func preciseTimestamp(t time.Time) string { return t.UTC().Format(swapv1.PreciseTimeLayout) }

func optionalTime(t *metav1.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := timestamp(t.Time)
	return &s
}

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
