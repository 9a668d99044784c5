package apiserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
)

func TestDryQuote(t *testing.T) {
	h := newHarness(t)
	// dry is the default
	body := quoteBody(true)
	delete(body, "dry")
	got := decode[struct {
		Candidates []swapv1.QuoteCandidate `json:"candidates"`
		Best       *swapv1.QuoteCandidate  `json:"best"`
		Errors     []map[string]any        `json:"errors"`
	}](t, h.do(req{method: "POST", path: "/v1/quote", body: body}), 200)
	if len(got.Candidates) != 2 || got.Best == nil || got.Best.ProviderID != swapv1.ProviderRouteB || got.Errors == nil {
		t.Fatalf("got %+v", got)
	}
	var orders swapv1.SwapOrderList
	if err := h.client.List(context.Background(), &orders); err != nil || len(orders.Items) != 0 {
		t.Fatalf("a dry quote created orders: %v %d", err, len(orders.Items))
	}
	if call := h.router.calls[0]; call.SwapType != swapv1.ExactInput || call.Sender != "0x1111111111111111111111111111111111111111" || call.Amount != "5000" {
		t.Errorf("router asked %+v", call)
	}

	// One provider failing next to a candidate is reported beside it.
	rec := h.do(req{method: "POST", path: "/v1/quote", body: with(body, "originAsset", usdc, "destinationAsset", sol, "swapType", "EXACT_OUTPUT", "slippageToleranceBps", 30)})
	partial := decode[map[string]any](t, rec, 200)
	errs := partial["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["error"] != "upstream timeout" || errs[0].(map[string]any)["providerId"] != "route_B" {
		t.Errorf("errors %v", partial["errors"])
	}
	if last := h.router.calls[len(h.router.calls)-1]; last.SwapType != swapv1.ExactOutput || *last.SlippageBps != 30 {
		t.Errorf("router asked %+v", last)
	}
}

func TestQuoteFailures(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name     string
		from, to string
		code     apierror.Code
		detail   string
		upstream bool
	}{
		{"most telling error wins", eth, sol, apierror.AmountTooLow, "minimum amount is 1000 (route_A)", false},
		{"above the maximum", sol, trx, apierror.AmountTooHigh, "maximum amount is 5000 (route_B)", false},
		{"provider 5xx", eth, trx, apierror.UpstreamError, "provider answered 503", true},
		{"provider timeout", sol, eth, apierror.UpstreamTimeout, "", true},
		{"nobody routes it", usdc, eth, apierror.UnsupportedPair, "", false},
		{"unknown origin", "eip155:1/erc20:0xdead", eth, apierror.UnknownAsset, "", false},
		{"unknown destination", eth, "eip155:1/erc20:0xdead", apierror.UnknownAsset, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(true), "originAsset", tt.from, "destinationAsset", tt.to)})
			body := expectError(t, rec, tt.code)
			if tt.detail != "" && body["detail"] != tt.detail {
				t.Errorf("detail %v, want %q", body["detail"], tt.detail)
			}
			if (body["upstream"] != nil) != tt.upstream {
				t.Errorf("upstream %v", body["upstream"])
			}
			if tt.code == apierror.UpstreamError {
				if up := body["upstream"].(map[string]any); up["status"] != float64(503) || up["path"] != "POST /v0/quote" {
					t.Errorf("upstream %v", up)
				}
			}
		})
	}
}

func TestQuoteInvalidRequests(t *testing.T) {
	h := newHarness(t)
	big := `{"originAsset":"` + strings.Repeat("x", 70<<10) + `"}`
	tests := []struct {
		name  string
		body  any
		ctype string
		code  apierror.Code
		field string
	}{
		{"zero amount", with(quoteBody(true), "amount", "0"), "", apierror.InvalidRequest, "amount"},
		{"negative amount", with(quoteBody(true), "amount", "-5"), "", apierror.InvalidRequest, "amount"},
		{"decimal amount", with(quoteBody(true), "amount", "1.5"), "", apierror.InvalidRequest, "amount"},
		{"leading zero", with(quoteBody(true), "amount", "0100"), "", apierror.InvalidRequest, "amount"},
		{"amount as number", with(quoteBody(true), "amount", 100), "", apierror.InvalidRequest, "amount"},
		{"missing amount", with(quoteBody(true), "amount", nil), "", apierror.InvalidRequest, "amount"},
		{"missing origin", with(quoteBody(true), "originAsset", nil), "", apierror.InvalidRequest, "originAsset"},
		{"unknown field", with(quoteBody(true), "colour", "red"), "", apierror.InvalidRequest, "colour"},
		{"field name in another case", with(with(quoteBody(true), "amount", nil), "Amount", "1000"), "", apierror.InvalidRequest, "Amount"},
		{"bad swapType", with(quoteBody(true), "swapType", "EXACT"), "", apierror.InvalidRequest, "swapType"},
		{"unknown preference", with(quoteBody(true), "preference", "cheapest"), "", apierror.InvalidRequest, "preference"},
		{"preference in another case", with(quoteBody(true), "preference", "Speed"), "", apierror.InvalidRequest, "preference"},
		{"slippage too high", with(quoteBody(true), "slippageToleranceBps", 10001), "", apierror.InvalidRequest, "slippageToleranceBps"},
		{"slippage fractional", with(quoteBody(true), "slippageToleranceBps", 1.5), "", apierror.InvalidRequest, "slippageToleranceBps"},
		{"dry not boolean", with(quoteBody(true), "dry", "yes"), "", apierror.InvalidRequest, "dry"},
		{"order needs sender", with(quoteBody(false), "sender", nil), "", apierror.InvalidRequest, "sender"},
		{"order needs recipient", with(quoteBody(false), "recipient", ""), "", apierror.InvalidRequest, "recipient"},
		{"malformed JSON", `{"amount": "5"`, "", apierror.InvalidRequest, "body"},
		{"two JSON values", `{} {}`, "", apierror.InvalidRequest, "body"},
		{"array body", `[]`, "", apierror.InvalidRequest, "body"},
		{"empty body", ``, "", apierror.InvalidRequest, "body"},
		{"no content type", quoteBody(true), "-", apierror.InvalidRequest, "Content-Type"},
		{"text content type", quoteBody(true), "text/plain", apierror.InvalidRequest, "Content-Type"},
		{"body over 64 KiB", big, "", apierror.BodyTooLarge, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req{method: "POST", path: "/v1/quote", body: tt.body, headers: map[string]string{}}
			if tt.body == "" {
				r.body = []byte{}
			}
			switch tt.ctype {
			case "":
			case "-":
				r.headers["Content-Type"] = ""
			default:
				r.headers["Content-Type"] = tt.ctype
			}
			body := expectError(t, h.do(r), tt.code)
			if tt.field != "" && !strings.HasPrefix(body["detail"].(string), tt.field+":") {
				t.Errorf("detail %q does not name %s", body["detail"], tt.field)
			}
		})
	}
	if n := h.router.callCount(); n != 0 {
		t.Errorf("invalid requests reached the router %d times", n)
	}
	// A charset parameter is still JSON.
	rec := h.do(req{method: "POST", path: "/v1/quote", body: quoteBody(true), headers: map[string]string{"Content-Type": "application/json; charset=utf-8"}})
	if rec.Code != 200 {
		t.Errorf("charset: %d %s", rec.Code, rec.Body)
	}
}

func TestQuoteCreatesOrder(t *testing.T) {
	h := newHarness(t)
	rec := h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(false), "refundTo", "0x3333333333333333333333333333333333333333"),
		headers: map[string]string{"Idempotency-Key": "q-1"}})
	got := decode[struct {
		Order wire.Order            `json:"order"`
		Quote swapv1.QuoteCandidate `json:"quote"`
	}](t, rec, 201)
	if got.Order.ProviderID != string(swapv1.ProviderRouteB) || got.Quote.ProviderID != swapv1.ProviderRouteB || got.Quote.AmountOut != "950" {
		t.Fatalf("got %+v", got)
	}
	if got.Order.DepositAddress == nil || got.Order.Status != wire.OrderStatusPENDING || *got.Order.RefundTo != "0x3333333333333333333333333333333333333333" {
		t.Errorf("order %+v", got.Order)
	}
	var o swapv1.SwapOrder
	if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: strings.ReplaceAll(got.Order.ID, "_", "-")}, &o); err != nil {
		t.Fatal(err)
	}
	if o.Spec.Quote == nil || o.Spec.Quote.AmountOut != "950" || o.Spec.Partner != "acme" || o.Spec.IdempotencyKeyHash == "" {
		t.Errorf("spec %+v", o.Spec)
	}

	// The replay returns the same order without quoting again.
	calls := h.router.callCount()
	again := decode[struct {
		Order wire.Order `json:"order"`
	}](t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(false), "refundTo", "0x3333333333333333333333333333333333333333"),
		headers: map[string]string{"Idempotency-Key": "q-1"}}), 201)
	if again.Order.ID != got.Order.ID || *again.Order.DepositAddress != *got.Order.DepositAddress || h.router.callCount() != calls {
		t.Errorf("replay: %+v, router calls %d → %d", again.Order, calls, h.router.callCount())
	}
	// Same key, different request.
	expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(false), "amount", "6000"),
		headers: map[string]string{"Idempotency-Key": "q-1"}}), apierror.IdempotencyKeyReused)
	// A failing quote creates nothing.
	expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(false), "destinationAsset", sol, "recipient", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin")}), apierror.AmountTooLow)
	var orders swapv1.SwapOrderList
	_ = h.client.List(context.Background(), &orders)
	if len(orders.Items) != 1 {
		t.Errorf("%d orders, want 1", len(orders.Items))
	}
}

func TestQuoteQuota(t *testing.T) {
	h := newHarness(t)
	q := req{method: "POST", path: "/v1/quote", body: quoteBody(true), keyID: quotaKey, secret: quotaSecret}
	for i := range 3 {
		if rec := h.do(q); rec.Code != 200 {
			t.Fatalf("quote %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	rec := h.do(q)
	expectError(t, rec, apierror.QuotaExceeded)
	// 2026-03-10T12:00Z to 2026-04-01T00:00Z
	if got := rec.Header().Get("Retry-After"); got != "1857600" {
		t.Errorf("Retry-After %q", got)
	}
	if rec.Header().Get("X-RateLimit-Limit") == "" {
		t.Error("quota answer lacks rate-limit headers")
	}
	// Quotes of other partners are not affected; April starts afresh.
	if rec := h.do(req{method: "POST", path: "/v1/quote", body: quoteBody(true)}); rec.Code != 200 {
		t.Errorf("acme: %d", rec.Code)
	}
	h.now = h.now.AddDate(0, 1, 0)
	if rec := h.do(q); rec.Code != 200 {
		t.Errorf("April: %d", rec.Code)
	}
}

// The preference chooses best from what the controllers measured (status.calls.settlement);
// without enough of it price chooses, and the answer says so. A provider GET /v1/providers
// reports UNAVAILABLE is never best.
func TestQuotePreference(t *testing.T) {
	ready := condition(swapv1.ConditionReady, metav1.ConditionTrue, "AssetsListed", probedAt)
	settled := func(rp *swapv1.RoutingProvider, orders, succeeded, p50 int64) *swapv1.RoutingProvider {
		rp.Status.Calls = &swapv1.ProviderCallSummary{Window: metav1.Duration{Duration: time.Hour},
			Settlement: &swapv1.SettlementSummary{Orders: orders, Succeeded: succeeded, Seconds: swapv1.LatencyPercentiles{P50: p50, P95: p50}}}
		return rp
	}
	// route_B pays 950 and settles in 10 minutes, all of its orders; route_A pays 900 and
	// settles in 30 s, 7 of its 10 orders.
	a := settled(routingProvider(swapv1.ProviderRouteA, ready), 10, 7, 30)
	b := settled(routingProvider(swapv1.ProviderRouteB, ready), 10, 10, 600)
	h := newHarness(t, a, b)
	type answer struct {
		Best         *swapv1.QuoteCandidate `json:"best"`
		BestChosenBy string                 `json:"bestChosenBy"`
		Errors       []map[string]any       `json:"errors"`
	}
	for _, tt := range []struct {
		preference any // nil: absent
		best       swapv1.ProviderID
		by         string
	}{
		{nil, swapv1.ProviderRouteB, "price"},
		{"price", swapv1.ProviderRouteB, "price"},
		{"speed", swapv1.ProviderRouteA, "speed"},
		{"reliability", swapv1.ProviderRouteB, "reliability"},
	} {
		got := decode[answer](t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(true), "preference", tt.preference)}), 200)
		if got.Best == nil || got.Best.ProviderID != tt.best || got.BestChosenBy != tt.by {
			t.Errorf("preference %v: best %+v by %q, want %s by %s", tt.preference, got.Best, got.BestChosenBy, tt.best, tt.by)
		}
	}

	// Too few settled orders of route_A: price chooses, and says so.
	base := a.DeepCopy()
	a.Status.Calls.Settlement.Orders, a.Status.Calls.Settlement.Succeeded = 4, 4
	if err := h.client.Patch(context.Background(), a, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	got := decode[answer](t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(true), "preference", "speed")}), 200)
	if got.Best == nil || got.Best.ProviderID != swapv1.ProviderRouteB || got.BestChosenBy != "price" {
		t.Errorf("4 settled orders of route_A: best %+v by %q, want route_B by price", got.Best, got.BestChosenBy)
	}

	// route_B's breaker holds its calls back: its quote is left out, listed among the errors.
	base = b.DeepCopy()
	meta.SetStatusCondition(&b.Status.Conditions, condition(swapv1.ConditionAvailable, metav1.ConditionFalse, "Degraded", changedAt))
	if err := h.client.Patch(context.Background(), b, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	got = decode[answer](t, h.do(req{method: "POST", path: "/v1/quote", body: quoteBody(true)}), 200)
	if got.Best == nil || got.Best.ProviderID != swapv1.ProviderRouteA || len(got.Errors) != 1 ||
		got.Errors[0]["providerId"] != "route_B" || got.Errors[0]["detail"] != "GET /v1/providers reports it UNAVAILABLE (ProviderFailing)" {
		t.Errorf("route_B unavailable: best %+v, errors %v; want route_A, route_B among the errors", got.Best, got.Errors)
	}
}
