package apiserver

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
)

func TestRates(t *testing.T) {
	h := newHarness(t)
	unknown := "eip155:1/erc20:0xdead"
	rec := h.do(req{method: "POST", path: "/v1/rates", body: map[string]any{
		"from": eth, "amount": "5000", "targets": []string{usdc, sol, unknown, trx, unroutable}}})
	got := decode[struct {
		From     string           `json:"from"`
		Amount   string           `json:"amount"`
		SwapType string           `json:"swapType"`
		Rates    []map[string]any `json:"rates"`
	}](t, rec, 200)
	if got.From != eth || got.Amount != "5000" || got.SwapType != "EXACT_INPUT" || len(got.Rates) != 5 {
		t.Fatalf("got %s", rec.Body)
	}
	want := []struct {
		to   string
		code string // "" when best is set
	}{{usdc, ""}, {sol, "amount_too_low"}, {unknown, "unknown originAsset/destinationAsset"}, {trx, "upstream error"},
		{unroutable, "no provider supports this pair"}}
	for i, w := range want {
		r := got.Rates[i]
		_, hasBest := r["best"]
		_, hasErr := r["error"]
		if r["to"] != w.to || !hasBest || !hasErr {
			t.Errorf("rate %d: %v", i, r)
			continue
		}
		if w.code == "" {
			if r["best"] == nil || r["error"] != nil {
				t.Errorf("rate %d: %v, want best only", i, r)
			}
			continue
		}
		if r["best"] != nil || r["error"] == nil || r["error"].(map[string]any)["error"] != w.code {
			t.Errorf("rate %d: %v, want error %q", i, r, w.code)
		}
	}
	if n := h.router.callCount(); n != 4 {
		t.Errorf("router asked %d times, want 4 (unknown targets are not asked)", n)
	}
	for _, c := range h.router.calls {
		if c.OriginAsset != eth || c.Sender != "" {
			t.Errorf("router asked %+v", c)
		}
	}
}

func TestRatesRefusals(t *testing.T) {
	h := newHarness(t)
	many := make([]string, 51)
	for i := range many {
		many[i] = usdc
	}
	tests := []struct {
		name string
		body map[string]any
		code apierror.Code
	}{
		{"no targets", map[string]any{"from": eth, "amount": "1", "targets": []string{}}, apierror.InvalidRequest},
		{"targets missing", map[string]any{"from": eth, "amount": "1"}, apierror.InvalidRequest},
		{"51 targets", map[string]any{"from": eth, "amount": "1", "targets": many}, apierror.InvalidRequest},
		{"empty target", map[string]any{"from": eth, "amount": "1", "targets": []string{""}}, apierror.InvalidRequest},
		{"bad amount", map[string]any{"from": eth, "amount": "1e9", "targets": []string{usdc}}, apierror.InvalidRequest},
		{"bad swapType", map[string]any{"from": eth, "amount": "1", "targets": []string{usdc}, "swapType": "x"}, apierror.InvalidRequest},
		{"unknown from", map[string]any{"from": "eip155:1/erc20:0xdead", "amount": "1", "targets": []string{usdc}}, apierror.UnknownAsset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := expectError(t, h.do(req{method: "POST", path: "/v1/rates", body: tt.body}), tt.code)
			if tt.code == apierror.InvalidRequest && !strings.Contains(body["detail"].(string), ":") {
				t.Errorf("detail %q names no field", body["detail"])
			}
		})
	}
	// 50 is allowed.
	if rec := h.do(req{method: "POST", path: "/v1/rates", body: map[string]any{"from": eth, "amount": "1", "targets": many[:50]}}); rec.Code != 200 {
		t.Errorf("50 targets: %d %s", rec.Code, rec.Body)
	}
}

func TestRatesCountTargetsAgainstQuota(t *testing.T) {
	h := newHarness(t)
	r := req{method: "POST", path: "/v1/rates", keyID: quotaKey, secret: quotaSecret,
		body: map[string]any{"from": eth, "amount": "1", "targets": []string{usdc, sol}}}
	if rec := h.do(r); rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	// 2 of 3 used: of two more targets the first is priced, the second is marked.
	got := decode[struct {
		Rates []struct {
			To    string         `json:"to"`
			Best  map[string]any `json:"best"`
			Error map[string]any `json:"error"`
		} `json:"rates"`
	}](t, h.do(r), 200)
	if len(got.Rates) != 2 || got.Rates[0].To != usdc || got.Rates[0].Best == nil || got.Rates[0].Error != nil {
		t.Fatalf("the target that fits: %+v", got.Rates)
	}
	if e := got.Rates[1].Error; got.Rates[1].Best != nil || e == nil || e["error"] != string(apierror.QuotaExceeded) {
		t.Errorf("the target over the cap: %+v", got.Rates[1])
	}
	// Nothing left: the whole request is 429.
	rec := h.do(r)
	expectError(t, rec, apierror.QuotaExceeded)
	if rec.Header().Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}

// A rate's best, like a quote's, is never a provider GET /v1/providers reports UNAVAILABLE:
// eth→usdc's best by price is route_B; with route_B's probe failing it is route_A.
func TestRatesBestSkipsAnUnavailableProvider(t *testing.T) {
	h := newHarness(t,
		routingProvider(swapv1.ProviderRouteA, condition(swapv1.ConditionReady, metav1.ConditionTrue, "AssetsListed", probedAt)),
		routingProvider(swapv1.ProviderRouteB, condition(swapv1.ConditionReady, metav1.ConditionFalse, "ProviderTimeout", changedAt)))
	got := decode[struct {
		Rates []struct {
			Best *swapv1.QuoteCandidate `json:"best"`
		} `json:"rates"`
	}](t, h.do(req{method: "POST", path: "/v1/rates", body: map[string]any{"from": eth, "amount": "5000", "targets": []string{usdc}}}), 200)
	if len(got.Rates) != 1 || got.Rates[0].Best == nil || got.Rates[0].Best.ProviderID != swapv1.ProviderRouteA {
		t.Errorf("rates %+v, want route_A's candidate as best", got.Rates)
	}
}
