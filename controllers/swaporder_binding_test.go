package controllers

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orders"
)

// The fake provider's binding answer pays out 990. An order bound to a quoteId whose minimum
// is above that fails before its address is written anywhere; at or below it, the address is
// issued; an order without quoteId is not held to its quote.
func TestUnitQuoteBinding(t *testing.T) {
	tests := []struct {
		name     string
		quote    *swapv1.QuoteCandidate
		status   swapv1.OrderStatus
		reason   string
		unshown  float64
		freshOut string
	}{
		{"bound above the answer", &swapv1.QuoteCandidate{ProviderID: swapv1.ProviderRouteA, QuoteID: "q1.k.x.y", AmountIn: "1000", AmountOut: "995", MinAmountOut: "991"},
			swapv1.OrderFailed, orders.ReasonQuoteChanged, 1, "990"},
		{"bound met exactly", &swapv1.QuoteCandidate{ProviderID: swapv1.ProviderRouteA, QuoteID: "q1.k.x.y", AmountIn: "1000", AmountOut: "995", MinAmountOut: "990"},
			swapv1.OrderPending, orders.ReasonAwaitingDeposit, 0, "990"},
		{"no quoteId: no binding", &swapv1.QuoteCandidate{ProviderID: swapv1.ProviderRouteA, AmountIn: "1000", AmountOut: "995", MinAmountOut: "991"},
			swapv1.OrderPending, orders.ReasonAwaitingDeposit, 0, "990"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newUnitRig(t)
			o := g.order()
			o.Spec.Quote = tt.quote
			if err := g.c.Update(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			before := testutil.ToFloat64(g.r.metrics.unshown.WithLabelValues("route_A", unshownQuoteChanged))
			g.settle()
			o = g.order()
			if o.Status.Status != tt.status || o.Status.StatusReason != tt.reason {
				t.Fatalf("status %s/%s, want %s/%s", o.Status.Status, o.Status.StatusReason, tt.status, tt.reason)
			}
			if (o.Status.DepositAddress == "") != (tt.status == swapv1.OrderFailed) {
				t.Errorf("deposit address %q with status %s", o.Status.DepositAddress, o.Status.Status)
			}
			if o.Status.Quote == nil || o.Status.Quote.AmountOut != tt.freshOut || o.Status.Quote.QuoteID != "" {
				t.Errorf("status.quote %+v, want the provider's fresh answer", o.Status.Quote)
			}
			if got := testutil.ToFloat64(g.r.metrics.unshown.WithLabelValues("route_A", unshownQuoteChanged)) - before; got != tt.unshown {
				t.Errorf("unshown quote_changed addresses +%v, want +%v", got, tt.unshown)
			}
		})
	}
}
