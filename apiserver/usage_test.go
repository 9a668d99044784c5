package apiserver

import (
	"net/http"
	"strconv"
	"testing"
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
