package apiserver

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

func TestUnauthorizedIsUniform(t *testing.T) {
	h := newHarness(t)
	cases := map[string]req{
		"no headers":       {noAuth: true},
		"unknown key":      {keyID: "nobody-1", secret: acmeSecret},
		"wrong secret":     {keyID: acmeKey, secret: "sk_wrong"},
		"expired key":      {keyID: expiredKey, secret: acmeSecret},
		"other's secret":   {keyID: acmeKey, secret: globexSec},
		"missing bearer":   {headers: map[string]string{"Authorization": ""}},
		"basic auth":       {headers: map[string]string{"Authorization": "Basic YWNtZTpzZWNyZXQ="}},
		"missing key id":   {headers: map[string]string{"X-Key-Id": ""}},
		"key id too large": {keyID: string(make([]byte, 100)), secret: acmeSecret},
	}
	var first string
	for name, r := range cases {
		r.method, r.path = "GET", "/v1/assets"
		rec := h.do(r)
		body := expectError(t, rec, apierror.Unauthorized)
		if first == "" {
			first = rec.Body.String()
		} else if rec.Body.String() != first {
			t.Errorf("%s: body %s differs from %s", name, rec.Body, first)
		}
		if body["detail"] == nil || rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: missing detail or WWW-Authenticate", name)
		}
		if rec.Header().Get("X-RateLimit-Limit") != "" {
			t.Errorf("%s: unauthenticated response carries rate-limit headers", name)
		}
	}
}

func TestRateLimit(t *testing.T) {
	h := newHarness(t)
	tiny := req{method: "GET", path: "/v1/assets", keyID: limitedKey, secret: limitedSec}
	for i, remaining := range []string{"1", "0"} {
		rec := h.do(tiny)
		if rec.Code != http.StatusOK {
			t.Fatalf("request %d: %d", i, rec.Code)
		}
		if rec.Header().Get("X-RateLimit-Limit") != "2" || rec.Header().Get("X-RateLimit-Remaining") != remaining {
			t.Errorf("request %d: headers %v", i, rec.Header())
		}
	}
	rec := h.do(tiny)
	expectError(t, rec, apierror.RateLimitExceeded)
	// 2 per minute: a token every 30 s; the bucket is full again a minute from now.
	if rec.Header().Get("Retry-After") != "30" {
		t.Errorf("Retry-After %q", rec.Header().Get("Retry-After"))
	}
	if rec.Header().Get("X-RateLimit-Reset") != strconv.FormatInt(h.now.Add(time.Minute).Unix(), 10) ||
		rec.Header().Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("headers %v", rec.Header())
	}
	// Another key is unaffected; the limited one recovers after Retry-After.
	if rec := h.do(req{method: "GET", path: "/v1/assets"}); rec.Code != http.StatusOK || rec.Header().Get("X-RateLimit-Limit") != "300" {
		t.Errorf("acme: %d %v", rec.Code, rec.Header())
	}
	h.now = h.now.Add(30 * time.Second)
	if rec := h.do(tiny); rec.Code != http.StatusOK {
		t.Errorf("after Retry-After: %d", rec.Code)
	}
}

func TestRateLimitHeadersOnErrors(t *testing.T) {
	h := newHarness(t)
	rec := h.do(req{method: "GET", path: "/v1/order/ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"})
	expectError(t, rec, apierror.OrderNotFound)
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if rec.Header().Get(name) == "" {
			t.Errorf("%s missing on an authenticated error", name)
		}
	}
}

func TestOriginAndCORS(t *testing.T) {
	h := newHarness(t)
	rec := h.do(req{method: "GET", path: "/v1/assets", headers: map[string]string{"Origin": acmeOrigin}})
	if rec.Code != http.StatusOK || rec.Header().Get("Access-Control-Allow-Origin") != acmeOrigin ||
		rec.Header().Get("Access-Control-Expose-Headers") == "" || rec.Header().Get("Vary") != "Origin" {
		t.Fatalf("allowed origin: %d %v", rec.Code, rec.Header())
	}
	rec = h.do(req{method: "GET", path: "/v1/assets", headers: map[string]string{"Origin": "https://evil.example"}})
	expectError(t, rec, apierror.OriginNotAllowed)
	if rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers on a refused origin")
	}
	// globex allows no origins: a browser call with its key is refused.
	rec = h.do(req{method: "GET", path: "/v1/assets", keyID: globexKey, secret: globexSec, headers: map[string]string{"Origin": acmeOrigin}})
	expectError(t, rec, apierror.OriginNotAllowed)

	pre := req{method: "OPTIONS", path: "/v1/quote", noAuth: true, headers: map[string]string{
		"Origin": acmeOrigin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type,x-key-id"}}
	rec = h.do(pre)
	if rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Origin") != acmeOrigin ||
		rec.Header().Get("Access-Control-Allow-Headers") == "" || rec.Header().Get("Access-Control-Allow-Methods") == "" {
		t.Fatalf("preflight: %d %v", rec.Code, rec.Header())
	}
	pre.headers["Origin"] = "https://evil.example"
	expectError(t, h.do(pre), apierror.OriginNotAllowed)
}
