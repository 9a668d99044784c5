package apiserver

import (
	"encoding/json"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestReceiptPayload(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	ended := created.Add(90*time.Second + 250*time.Microsecond)
	now := created.Add(time.Hour)
	pending := func() *swapv1.SwapOrder {
		return &swapv1.SwapOrder{
			Spec: swapv1.SwapOrderSpec{
				OrderID: "ord_x", Partner: "acme", ProviderID: "route_A", Amount: "100",
				Quote: &swapv1.QuoteCandidate{QuoteID: "q1", MinAmountOut: "95", AmountOut: "99"},
			},
			Status: swapv1.SwapOrderStatus{
				Status: swapv1.OrderPending, DepositAddress: "0xdep",
				Quote:   &swapv1.QuoteCandidate{MinAmountOut: "97", Fees: []swapv1.Fee{{Type: "protocol", Asset: "a", Amount: "1"}}},
				History: []swapv1.StatusTransition{{Seq: 1, Status: swapv1.OrderPending, At: swapv1.NewPreciseTime(created)}},
			},
		}
	}
	settled := pending()
	settled.Status.Status, settled.Status.AmountOut, settled.Status.ProviderSignature = swapv1.OrderSuccess, "98", "ed25519:abc"
	settled.Status.History = append(settled.Status.History,
		swapv1.StatusTransition{Seq: 2, Status: swapv1.OrderSuccess, PreviousStatus: swapv1.OrderPending, At: swapv1.NewPreciseTime(ended)})
	unquoted := pending()
	unquoted.Spec.Quote = nil

	for _, tt := range []struct {
		name  string
		order *swapv1.SwapOrder
		want  map[string]any
	}{
		{"live order: dated now, not final", pending(), map[string]any{
			"final": false, "issuedAt": "2026-01-02T04:00:00.000000Z", "status": "PENDING", "quoteId": "q1",
			"minAmountOut": "95", "maxAmountIn": nil, "amountOut": nil, "depositAddress": "0xdep",
			"fees": []any{map[string]any{"type": "protocol", "asset": "a", "amount": "1"}}, "outTxHashes": []any{},
		}},
		{"terminal order: dated when it ended, final", settled, map[string]any{
			"final": true, "issuedAt": "2026-01-02T03:01:30.000250Z", "status": "SUCCESS", "amountOut": "98",
			"providerSignature": "ed25519:abc",
		}},
		{"no accepted quote: the provider's binding bound, no quoteId", unquoted, map[string]any{
			"quoteId": nil, "minAmountOut": "97", "swapType": "EXACT_INPUT",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(newReceiptPayload(tt.order, now))
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				g, _ := json.Marshal(got[k])
				w, _ := json.Marshal(v)
				if string(g) != string(w) {
					t.Errorf("%s = %s, want %s", k, g, w)
				}
			}
		})
	}
}

// A receipt is dated to the microsecond, as the history it signs, and never before the last
// transition it records.
func TestReceiptIssuedAt(t *testing.T) {
	last := time.Date(2026, 1, 2, 3, 0, 0, 123456000, time.UTC)
	history := []swapv1.StatusTransition{
		{Seq: 1, Status: swapv1.OrderPending, At: swapv1.NewPreciseTime(last.Add(-time.Minute))},
		{Seq: 2, Status: swapv1.OrderProcessing, At: swapv1.NewPreciseTime(last)},
	}
	for _, tt := range []struct {
		name    string
		status  swapv1.OrderStatus
		history []swapv1.StatusTransition
		now     time.Time
		want    string
	}{
		{"live, asked later: now, to the microsecond", swapv1.OrderProcessing, history, last.Add(1500 * time.Millisecond), "2026-01-02T03:00:01.623456Z"},
		{"live, asked within the second of its last transition", swapv1.OrderProcessing, history, last.Add(time.Millisecond), "2026-01-02T03:00:00.124456Z"},
		{"live, the signer's clock behind the recorder's: the last transition", swapv1.OrderProcessing, history, last.Add(-time.Second), "2026-01-02T03:00:00.123456Z"},
		{"terminal: when it ended, whenever asked", swapv1.OrderSuccess, history, last.Add(time.Hour), "2026-01-02T03:00:00.123456Z"},
		{"no history yet: now", swapv1.OrderPending, nil, last, "2026-01-02T03:00:00.123456Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := &swapv1.SwapOrderStatus{Status: tt.status, History: tt.history}
			if got := preciseTimestamp(issuedAt(st, tt.now)); got != tt.want {
				t.Errorf("issuedAt = %s, want %s", got, tt.want)
			}
		})
	}
}
