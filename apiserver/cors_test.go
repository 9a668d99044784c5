package apiserver

import (
	"net/http"
	"strings"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
)

// TestCORSOnRefusals: a page on an allowed origin can read every refusal — the 401 of a bad
// key, a 429 with its Retry-After, a 404 — while an origin nobody lists, or one only another
// partner lists, learns nothing.
func TestCORSOnRefusals(t *testing.T) {
	const browserKey, browserSecret = "browser-key-1", "sk_browser_secret"
	h := newHarness(t,
		partnerObj("browser", swapv1.PartnerSpec{RequestsPerMinute: 1, AllowedOrigins: []string{acmeOrigin},
			Keys: []swapv1.PartnerKey{keyFor(browserKey)}}),
		secretFor(browserKey, browserSecret))
	fromAcme := map[string]string{"Origin": acmeOrigin}
	readable := func(name string, rec interface{ Header() http.Header }, want bool) {
		t.Helper()
		h := rec.Header()
		if got := h.Get("Access-Control-Allow-Origin") == acmeOrigin; got != want {
			t.Fatalf("%s: Access-Control-Allow-Origin %q, want readable=%v", name, h.Get("Access-Control-Allow-Origin"), want)
		}
		if !want {
			return
		}
		exposed := strings.ToLower(h.Get("Access-Control-Expose-Headers"))
		for _, hd := range []string{"retry-after", "x-ratelimit-remaining", "x-request-id"} {
			if !strings.Contains(exposed, hd) {
				t.Errorf("%s: %s not exposed (%q)", name, hd, exposed)
			}
		}
	}

	rec := h.do(req{method: "GET", path: "/v1/assets", keyID: browserKey, secret: "wrong", headers: fromAcme})
	expectError(t, rec, apierror.Unauthorized)
	readable("401", rec, true)

	rec = h.do(req{method: "GET", path: "/v1/nothing-here", headers: fromAcme})
	expectError(t, rec, apierror.NotFound)
	readable("404", rec, true)

	ok := req{method: "GET", path: "/v1/assets", keyID: browserKey, secret: browserSecret, headers: fromAcme}
	if rec = h.do(ok); rec.Code != http.StatusOK {
		t.Fatalf("first request: %d %s", rec.Code, rec.Body)
	}
	rec = h.do(ok)
	expectError(t, rec, apierror.RateLimitExceeded)
	readable("429", rec, true)
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}

	rec = h.do(req{method: "GET", path: "/v1/assets", keyID: browserKey, secret: "wrong",
		headers: map[string]string{"Origin": "https://evil.example"}})
	expectError(t, rec, apierror.Unauthorized)
	readable("401 to an unlisted origin", rec, false)

	// globex lists no origin: acme's origin must not read globex's answers.
	rec = h.do(req{method: "GET", path: "/v1/assets", keyID: globexKey, secret: globexSec, headers: fromAcme})
	expectError(t, rec, apierror.OriginNotAllowed)
	readable("403 to another partner's origin", rec, false)
}
