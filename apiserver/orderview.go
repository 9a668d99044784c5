package apiserver

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
)

// newOrderRecord renders o for partners (wire.Order). Every field is always present; what the
// order does not have yet is null (or [] for lists), so clients never need to probe for keys.
func newOrderRecord(o *swapv1.SwapOrder) wire.Order {
	st := &o.Status
	created := o.CreatedAt()
	rec := wire.Order{
		ID:                   o.Spec.OrderID,
		Status:               wire.OrderStatus(st.Status),
		StatusReason:         optional(st.StatusReason),
		Substatus:            optionalEnum[wire.Substatus](st.Substatus),
		ProviderStatus:       optional(st.ProviderStatus),
		ProviderID:           string(o.Spec.ProviderID),
		OriginAsset:          o.Spec.OriginAsset,
		DestinationAsset:     o.Spec.DestinationAsset,
		Amount:               o.Spec.Amount,
		SwapType:             wire.OrderSwapType(o.Spec.SwapType),
		SlippageToleranceBps: optionalInt(o.Spec.SlippageToleranceBps),
		Sender:               o.Spec.Sender,
		Recipient:            o.Spec.Recipient,
		RefundTo:             optional(o.Spec.RefundTo),
		DepositAddress:       optional(st.DepositAddress),
		DepositMemo:          optional(st.DepositMemo),
		// The provider's binding quote once it issued the address; until then the candidate
		// the partner accepted (orders from a quote).
		Quote:           optionalCandidate(firstNonNil(st.Quote, o.Spec.Quote)),
		DepositDeadline: optionalTime(st.DepositDeadline),
		InTxHashes:      nonNil(st.InTxHashes),
		OutTxHashes:     nonNil(st.OutTxHashes),
		AmountIn:        optional(st.AmountIn),
		AmountOut:       optional(st.AmountOut),
		DepositedAmount: optional(st.DepositedAmount),
		RefundedAmount:  optional(st.RefundedAmount),
		CreatedAt:       preciseTimestamp(created),
		UpdatedAt:       preciseTimestamp(created),
		History:         make([]wire.HistoryEntry, 0, len(st.History)),
		ClientReference: optional(o.Spec.ClientReference),
	}
	// Before the reconciler's first word the order is waiting for its deposit address, which
	// partners know as PENDING (with depositAddress still null).
	if rec.Status == "" {
		rec.Status = wire.OrderStatus(swapv1.OrderPending)
	}
	if rec.SwapType == "" {
		rec.SwapType = wire.OrderSwapType(swapv1.ExactInput)
	}
	for _, h := range st.History {
		rec.History = append(rec.History, wire.HistoryEntry{
			Seq:            int(h.Seq),
			Status:         wire.OrderStatus(h.Status),
			PreviousStatus: optionalEnum[wire.OrderStatus](h.PreviousStatus),
			Reason:         optional(h.Reason),
			Substatus:      optionalEnum[wire.Substatus](h.Substatus),
			At:             preciseTimestamp(h.At.Time),
		})
		if h.At.After(created) {
			rec.UpdatedAt = preciseTimestamp(h.At.Time)
		}
	}
	return rec
}

// wireCandidate is a quote candidate as /v1 shows it (wire.QuoteCandidate): what the candidate
// does not have is left out.
func wireCandidate(q swapv1.QuoteCandidate) wire.QuoteCandidate {
	c := wire.QuoteCandidate{
		ProviderID:   string(q.ProviderID),
		QuoteID:      optional(q.QuoteID),
		AmountIn:     q.AmountIn,
		AmountOut:    q.AmountOut,
		MinAmountOut: optional(q.MinAmountOut),
		MaxAmountIn:  optional(q.MaxAmountIn),
		ExpiresAt:    optionalTime(q.ExpiresAt),
	}
	if len(q.Fees) > 0 {
		fees := wireFees(q.Fees)
		c.Fees = &fees
	}
	if q.EstimatedTimeSeconds != 0 {
		c.EstimatedTimeSeconds = new(int(q.EstimatedTimeSeconds))
	}
	if l := q.Limits; l != nil {
		c.Limits = &wire.QuoteLimits{MinAmountIn: optional(l.MinAmountIn), MaxAmountIn: optional(l.MaxAmountIn)}
	}
	return c
}

func optionalCandidate(q *swapv1.QuoteCandidate) *wire.QuoteCandidate {
	if q == nil {
		return nil
	}
	c := wireCandidate(*q)
	return &c
}

func wireCandidates(qs []swapv1.QuoteCandidate) []wire.QuoteCandidate {
	out := make([]wire.QuoteCandidate, len(qs))
	for i, q := range qs {
		out[i] = wireCandidate(q)
	}
	return out
}

// wireFees are fees as /v1 shows them; [] for none.
func wireFees(fees []swapv1.Fee) []wire.Fee {
	out := make([]wire.Fee, len(fees))
	for i, f := range fees {
		out[i] = wire.Fee{Type: f.Type, Asset: f.Asset, Amount: f.Amount}
	}
	return out
}

// optionalEnum is an optional string enum value in its wire type: nil for "".
func optionalEnum[T ~string, V ~string](v V) *T {
	if v == "" {
		return nil
	}
	t := T(v)
	return &t
}

func optionalInt(v *int32) *int {
	if v == nil {
		return nil
	}
	return new(int(*v))
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
