package apiserver

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/orders"
)

type boundQuote struct {
	Candidates []swapv1.QuoteCandidate `json:"candidates"`
	Best       swapv1.QuoteCandidate   `json:"best"`
}

// dryQuoteIDs quotes eth → usdc and returns each provider's quoteId.
func dryQuoteIDs(t *testing.T, h *harness, keyID, secret string) map[swapv1.ProviderID]string {
	t.Helper()
	q := decode[boundQuote](t, h.do(req{method: "POST", path: "/v1/quote", body: quoteBody(true), keyID: keyID, secret: secret}), 200)
	ids := map[swapv1.ProviderID]string{}
	for _, c := range q.Candidates {
		if c.QuoteID == "" {
			t.Fatalf("candidate %s has no quoteId", c.ProviderID)
		}
		ids[c.ProviderID] = c.QuoteID
	}
	if q.Best.QuoteID != ids[q.Best.ProviderID] {
		t.Errorf("best's quoteId differs from its candidate's")
	}
	return ids
}

func TestOrderBoundToQuote(t *testing.T) {
	h := newHarness(t)
	ids := dryQuoteIDs(t, h, "", "")

	rec := h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "quoteId", ids[swapv1.ProviderRouteB])})
	got := decode[orderView](t, rec, 201)
	o := &swapv1.SwapOrder{}
	if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: strings.ReplaceAll(got.ID, "_", "-")}, o); err != nil {
		t.Fatal(err)
	}
	if q := o.Spec.Quote; q == nil || q.QuoteID != ids[swapv1.ProviderRouteB] || q.MinAmountOut != "950" || q.ExpiresAt == nil {
		t.Fatalf("order's bound quote = %+v, want route_B's minAmountOut 950", q)
	}
	if !o.Spec.Quote.ExpiresAt.Time.Equal(h.now.Add(defaultQuoteTTL)) {
		t.Errorf("expiresAt %v", o.Spec.Quote.ExpiresAt)
	}

	// dry:false with a quoteId takes that candidate (route_A, though route_B is best) and
	// asks no provider again.
	calls := h.router.callCount()
	created := decode[struct {
		Order orderView             `json:"order"`
		Quote swapv1.QuoteCandidate `json:"quote"`
	}](t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(false), "quoteId", ids[swapv1.ProviderRouteA])}), 201)
	if created.Order.ProviderID != swapv1.ProviderRouteA || created.Quote.MinAmountOut != "900" || h.router.callCount() != calls {
		t.Errorf("dry:false with route_A's quoteId: provider %s, quote %+v, router calls %d → %d",
			created.Order.ProviderID, created.Quote, calls, h.router.callCount())
	}
}

type orderView struct {
	ID         string            `json:"id"`
	ProviderID swapv1.ProviderID `json:"providerId"`
}

func TestQuoteMismatch(t *testing.T) {
	h := newHarness(t)
	ids := dryQuoteIDs(t, h, "", "")
	b := ids[swapv1.ProviderRouteB]
	globex := dryQuoteIDs(t, h, globexKey, globexSec)[swapv1.ProviderRouteB]
	tests := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"other amount", with(orderBody(), "quoteId", b, "amount", "5001"), "amount"},
		{"other provider", with(orderBody(), "quoteId", b, "providerId", "route_A"), "providerId"},
		{"other slippage", with(orderBody(), "quoteId", b, "slippageToleranceBps", 50), "slippageToleranceBps"},
		{"other swap type", with(orderBody(), "quoteId", b, "swapType", "EXACT_OUTPUT"), "swapType"},
		{"another partner's quote", with(orderBody(), "quoteId", globex), "partner"},
		{"tampered", with(orderBody(), "quoteId", b[:len(b)-2]+"xx"), "quoteId"},
		{"not a quoteId", with(orderBody(), "quoteId", "q1.local.e30.AAAA"), "quoteId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := expectError(t, h.do(req{method: "POST", path: "/v1/order", body: tt.body}), apierror.QuoteMismatch)
			if d, _ := e["detail"].(string); !strings.Contains(d, tt.field) {
				t.Errorf("detail %q does not name %s", d, tt.field)
			}
		})
	}
	expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(false), "quoteId", b, "amount", "7000")}), apierror.QuoteMismatch)
	expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(true), "quoteId", b)}), apierror.InvalidRequest)
	if n := h.orderCount(); n != 0 {
		t.Errorf("mismatched quotes created %d orders", n)
	}
}

func TestQuoteExpired(t *testing.T) {
	h := newHarness(t)
	b := dryQuoteIDs(t, h, "", "")[swapv1.ProviderRouteB]
	idem := map[string]string{"Idempotency-Key": "bound-1"}
	first := decode[orderView](t, h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "quoteId", b), headers: idem}), 201)

	h.now = h.now.Add(defaultQuoteTTL)
	expectError(t, h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "quoteId", b)}), apierror.QuoteExpired)
	expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(false), "quoteId", b)}), apierror.QuoteExpired)
	// A retry of the order created in time still finds it: the quote was accepted then.
	again := decode[orderView](t, h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "quoteId", b), headers: idem}), 201)
	if again.ID != first.ID {
		t.Errorf("retry after expiry: order %s, first %s", again.ID, first.ID)
	}
}

// The reconciler failed the order because the provider's binding answer was worse than the
// bound (controllers/swaporder_binding.go): 409 with the fresh candidate, whose own quoteId
// places the next order; no deposit address was ever shown.
func TestQuoteChanged(t *testing.T) {
	h := newHarness(t)
	b := dryQuoteIDs(t, h, "", "")[swapv1.ProviderRouteB]
	h.setReconcile(func(o *swapv1.SwapOrder) {
		fresh := candidate(swapv1.ProviderRouteB, "5000", "940")
		o.Status.Status, o.Status.StatusReason, o.Status.Quote = swapv1.OrderFailed, orders.ReasonQuoteChanged, &fresh
	})
	e := expectError(t, h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "quoteId", b)}), apierror.QuoteChanged)
	fresh, _ := e["quote"].(map[string]any)
	if fresh["minAmountOut"] != "940" || fresh["quoteId"] == "" || fresh["quoteId"] == b || e["depositAddress"] != nil {
		t.Fatalf("409 answer %v", e)
	}
	h.setReconcile(issueAddress)
	rec := h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "quoteId", fresh["quoteId"])})
	if rec.Code != http.StatusCreated {
		t.Fatalf("ordering the fresh candidate: %d %s", rec.Code, rec.Body)
	}
}
