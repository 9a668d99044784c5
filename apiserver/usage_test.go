package apiserver

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// TestUsage: a partner sees its request bucket (matching the X-RateLimit-* headers of the
// same answer) and its quotes this month against its cap, with when each resets.
func TestUsage(t *testing.T) {
	h := newHarness(t)
	type usage struct {
		RequestsPerMinute struct {
			Limit, Remaining int
			ResetAt          string
		}
		Quotes struct {
			Month   string
			Used    int64
			Limit   *int64
			ResetAt string
		}
	}
	quotaCaller := req{method: "GET", path: "/v1/usage", keyID: quotaKey, secret: quotaSecret}
	before := decode[usage](t, h.do(quotaCaller), http.StatusOK)
	if rec := h.do(req{method: "POST", path: "/v1/quote", body: quoteBody(true), keyID: quotaKey, secret: quotaSecret}); rec.Code != http.StatusOK {
		t.Fatalf("quote: %d %s", rec.Code, rec.Body)
	}
	rec := h.do(quotaCaller)
	after := decode[usage](t, rec, http.StatusOK)
	if after.Quotes.Used != before.Quotes.Used+1 || after.Quotes.Limit == nil || *after.Quotes.Limit != 3 ||
		after.Quotes.Month != "2026-03" || after.Quotes.ResetAt != "2026-04-01T00:00:00Z" {
		t.Errorf("quotes before %+v, after one quote %+v", before.Quotes, after.Quotes)
	}
	rpm := after.RequestsPerMinute
	if strconv.Itoa(rpm.Limit) != rec.Header().Get("X-RateLimit-Limit") ||
		strconv.Itoa(rpm.Remaining) != rec.Header().Get("X-RateLimit-Remaining") || rpm.ResetAt == "" {
		t.Errorf("requestsPerMinute %+v disagrees with the headers %v", rpm, rec.Header())
	}
	if rpm.Remaining != before.RequestsPerMinute.Remaining-2 {
		t.Errorf("remaining %d after two more requests, was %d", rpm.Remaining, before.RequestsPerMinute.Remaining)
	}

	unlimited := decode[usage](t, h.do(req{method: "GET", path: "/v1/usage"}), http.StatusOK)
	if unlimited.Quotes.Limit != nil {
		t.Errorf("acme has no quote cap, usage says %d", *unlimited.Quotes.Limit)
	}
}

// TestOnlyAnsweredQuotesCount: quotes that failed upstream (502/504, which partners are told
// to retry) and unknown rate targets do not use up the monthly quota.
func TestOnlyAnsweredQuotesCount(t *testing.T) {
	h := newHarness(t)
	asQuota := func(r req) req { r.keyID, r.secret = quotaKey, quotaSecret; return r }
	failing := quoteBody(true)
	failing["destinationAsset"] = trx // the fake router answers eth→trx with a provider 503
	for range 4 {
		expectError(t, h.do(asQuota(req{method: "POST", path: "/v1/quote", body: failing})), apierror.UpstreamError)
	}
	rates := asQuota(req{method: "POST", path: "/v1/rates",
		body: map[string]any{"from": eth, "amount": "1", "targets": []string{usdc, trx, "eip155:1/erc20:0xnotlisted"}}})
	if rec := h.do(rates); rec.Code != http.StatusOK {
		t.Fatalf("rates: %d %s", rec.Code, rec.Body)
	}
	// Only usdc was answered: 1 of 3 used, so two more quotes fit and a third does not.
	for i := range 2 {
		if rec := h.do(asQuota(req{method: "POST", path: "/v1/quote", body: quoteBody(true)})); rec.Code != http.StatusOK {
			t.Fatalf("quote %d after unanswered ones: %d %s", i, rec.Code, rec.Body)
		}
	}
	expectError(t, h.do(asQuota(req{method: "POST", path: "/v1/quote", body: quoteBody(true)})), apierror.QuotaExceeded)
}
