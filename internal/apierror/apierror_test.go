package apierror

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestEveryCodeHasAStatus(t *testing.T) {
	seen := map[Code]bool{}
	for _, c := range Codes() {
		if seen[c] {
			t.Errorf("code %q listed twice", c)
		}
		seen[c] = true
		if _, ok := statuses[c]; !ok {
			t.Errorf("code %q has no status", c)
		}
	}
	if len(seen) != len(statuses) {
		t.Errorf("Codes() lists %d codes, statuses has %d", len(seen), len(statuses))
	}
}

func TestContractStatuses(t *testing.T) {
	// The contract's and design.md's table and the codes issue 15 added (the archive) and
	// issue 18 (the kube-apiserver unreachable), restated independently of statuses.
	want := map[Code]int{
		"origin not allowed": 403, "body too large": 413, "unknown originAsset/destinationAsset": 400,
		"no provider supports this pair": 404, "amount_too_low": 400, "amount_too_high": 400,
		"providerId required (route_A | route_B)": 400, "missing txHash": 400, "order not found": 404,
		"order already in terminal state": 410, "rate limit exceeded": 429, "upstream timeout": 504,
		"upstream error": 502, "internal error": 500, "unauthorized": 401, "invalid request": 400,
		"not found": 404, "method not allowed": 405, "idempotency key reused": 422, "quota exceeded": 429,
		"archive unavailable": 503, "clientReference in use": 409, "service unavailable": 503,
		// design.md "Quote binding".
		"quote expired": 400, "quote changed": 409, "quote mismatch": 400,
		// design.md "Screening".
		"address not allowed": 403,
	}
	for code, status := range want {
		if got := code.Status(); got != status {
			t.Errorf("%q: status %d, want %d", code, got, status)
		}
	}
	if len(want) != len(Codes()) {
		t.Errorf("the table lists %d codes, package has %d", len(want), len(Codes()))
	}
}

func TestFromProvider(t *testing.T) {
	up := &provider.Upstream{Status: 503, Path: "POST /v0/quote"}
	tests := []struct {
		name       string
		in         *provider.Error
		code       Code
		detail     string
		wantUpstrm bool
	}{
		{"too low names the minimum", &provider.Error{Provider: "route_A", Kind: provider.KindAmountTooLow, Limit: "1000"},
			AmountTooLow, "minimum amount is 1000 (route_A)", false},
		{"too high names the maximum", &provider.Error{Kind: provider.KindAmountTooHigh, Limit: "99"},
			AmountTooHigh, "maximum amount is 99", false},
		{"too low without limit keeps detail", &provider.Error{Kind: provider.KindAmountTooLow, Detail: "below min"},
			AmountTooLow, "below min", false},
		{"unsupported", &provider.Error{Kind: provider.KindUnsupportedPair, Upstream: up},
			UnsupportedPair, "", false},
		{"timeout", &provider.Error{Kind: provider.KindTimeout, Upstream: up}, UpstreamTimeout, "", true},
		{"upstream", &provider.Error{Kind: provider.KindUpstream, Detail: "bad gateway", Upstream: up},
			UpstreamError, "bad gateway", true},
		{"refused is an input problem", &provider.Error{Kind: provider.KindRefused, Detail: "bad recipient", Upstream: up},
			InvalidRequest, "bad recipient", true},
		{"not found is upstream", &provider.Error{Kind: provider.KindNotFound}, UpstreamError, "", false},
		{"nil is internal", nil, Internal, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromProvider(tt.in)
			if got.Code != tt.code || got.Detail != tt.detail {
				t.Errorf("got %q/%q, want %q/%q", got.Code, got.Detail, tt.code, tt.detail)
			}
			if (got.Upstream != nil) != tt.wantUpstrm {
				t.Errorf("upstream = %v, want present=%v", got.Upstream, tt.wantUpstrm)
			}
			if tt.wantUpstrm && (got.Upstream.Status != 503 || got.Upstream.Path != "POST /v0/quote") {
				t.Errorf("upstream = %+v", got.Upstream)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("X-RateLimit-Limit", "300")
	e := &Error{Code: QuotaExceeded, Detail: "monthly quote quota of 10 reached", RetryAfterSeconds: 42,
		Upstream: &Upstream{Status: 500, Path: "GET /x"}}
	Write(rec, e)
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("status %d", rec.Code)
	}
	if rec.Header().Get("Retry-After") != "42" || rec.Header().Get("X-RateLimit-Limit") != "300" {
		t.Errorf("headers %v", rec.Header())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if body["error"] != "quota exceeded" || body["detail"] != "monthly quote quota of 10 reached" {
		t.Errorf("body %v", body)
	}
	if up, _ := body["upstream"].(map[string]any); up["status"] != float64(500) || up["path"] != "GET /x" {
		t.Errorf("upstream %v", body["upstream"])
	}
	if len(body) != 3 {
		t.Errorf("unexpected fields in %v", body)
	}

	rec = httptest.NewRecorder()
	Write(rec, New(NotFound, ""))
	if got := rec.Body.String(); got != "{\"error\":\"not found\"}\n" {
		t.Errorf("compact body %q", got)
	}
}
