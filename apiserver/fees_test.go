package apiserver

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/provider"
)

const (
	feeKey    = "fee-key-1"
	feeSecret = "sk_fee_secret"
)

func feeHarness(t *testing.T) *harness {
	return newHarness(t,
		partnerObj("feeco", swapv1.PartnerSpec{RequestsPerMinute: 300, Keys: []swapv1.PartnerKey{keyFor(feeKey)},
			Fees: &swapv1.PartnerFees{Bps: 30, MaxBps: 100, Recipient: "feeco.near"}}),
		secretFor(feeKey, feeSecret))
}

func (h *harness) lastAppFee() *provider.AppFee {
	h.router.mu.Lock()
	defer h.router.mu.Unlock()
	return h.router.calls[len(h.router.calls)-1].AppFee
}

// A partner's fee reaches the providers with every quote: its configured bps by default, a
// request's feeBps up to its maximum, nothing above it; a partner without fees charges none.
func TestPartnerFeeReachesProviders(t *testing.T) {
	h := feeHarness(t)
	as := func(body map[string]any) req {
		return req{method: "POST", path: "/v1/quote", body: body, keyID: feeKey, secret: feeSecret}
	}
	decode[boundQuote](t, h.do(as(quoteBody(true))), 200)
	if f := h.lastAppFee(); f == nil || *f != (provider.AppFee{Bps: 30, Recipient: "feeco.near"}) {
		t.Errorf("default fee %+v", f)
	}
	decode[boundQuote](t, h.do(as(with(quoteBody(true), "feeBps", 80))), 200)
	if f := h.lastAppFee(); f == nil || f.Bps != 80 {
		t.Errorf("requested fee %+v", f)
	}
	decode[boundQuote](t, h.do(as(with(quoteBody(true), "feeBps", 0))), 200)
	if f := h.lastAppFee(); f != nil {
		t.Errorf("feeBps 0 charged %+v", f)
	}
	e := expectError(t, h.do(as(with(quoteBody(true), "feeBps", 101))), apierror.InvalidRequest)
	if d, _ := e["detail"].(string); !strings.Contains(d, "feeBps") || !strings.Contains(d, "100") {
		t.Errorf("detail %q", d)
	}
	expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(true), "feeBps", 1)}), apierror.InvalidRequest)
	expectError(t, h.do(req{method: "POST", path: "/v1/rates", body: map[string]any{"from": eth, "amount": "5000", "targets": []string{usdc}, "feeBps": 500},
		keyID: feeKey, secret: feeSecret}), apierror.InvalidRequest)
}

// The order records the fee it charges (the reconciler passes it to the provider), and a
// quoteId binds the fee it was quoted with.
func TestOrderCarriesPartnerFee(t *testing.T) {
	h := feeHarness(t)
	as := func(path string, body map[string]any) req {
		return req{method: "POST", path: path, body: body, keyID: feeKey, secret: feeSecret}
	}
	got := decode[orderView](t, h.do(as("/v1/order", with(orderBody(), "feeBps", 80))), 201)
	o := &swapv1.SwapOrder{}
	if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: strings.ReplaceAll(got.ID, "_", "-")}, o); err != nil {
		t.Fatal(err)
	}
	if f := o.Spec.PartnerFee; f == nil || *f != (swapv1.OrderFee{Bps: 80, Recipient: "feeco.near"}) {
		t.Errorf("order's partner fee %+v", f)
	}
	q := decode[boundQuote](t, h.do(as("/v1/quote", with(quoteBody(true), "feeBps", 80))), 200)
	e := expectError(t, h.do(as("/v1/order", with(orderBody(), "quoteId", q.Best.QuoteID))), apierror.QuoteMismatch)
	if d, _ := e["detail"].(string); !strings.Contains(d, "feeBps") {
		t.Errorf("detail %q does not name feeBps", d)
	}
	decode[orderView](t, h.do(as("/v1/order", with(orderBody(), "quoteId", q.Best.QuoteID, "feeBps", 80))), 201)
}
