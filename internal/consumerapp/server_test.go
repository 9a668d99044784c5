package consumerapp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
)

// newTestServer's /v1 refuses everything: these specs are about the app's own gates.
func newTestServer(t *testing.T) *Server {
	v1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid request"}`))
	}))
	t.Cleanup(v1.Close)
	s, err := New(Options{APIURL: v1.URL, Key: upstream.Key{ID: "key", Secret: "partner-secret"},
		PerSession: 3, PerClientAddress: 5, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(s *Server, path, cookie, addr string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.RemoteAddr = addr
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func TestPageSecurityHeaders(t *testing.T) {
	w := get(newTestServer(t), "/", "", "10.0.0.1:1000")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `<script type="module" src="/app.js">`) {
		t.Fatalf("page: %d %s", w.Code, w.Body.String())
	}
	for h, want := range map[string]string{
		"Content-Security-Policy": "frame-ancestors 'none'", "X-Content-Type-Options": "nosniff",
		"Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
	} {
		if !strings.Contains(w.Header().Get(h), want) {
			t.Errorf("%s = %q, want it to hold %q", h, w.Header().Get(h), want)
		}
	}
	if !strings.Contains(w.Header().Get("Content-Security-Policy"), "connect-src 'self'") {
		t.Errorf("the page may contact other origins: %s", w.Header().Get("Content-Security-Policy"))
	}
}

// An order's address is answered with the page (which then asks /api for the order), under
// the same security headers; other unknown paths stay 404.
func TestOrderAddressServesThePage(t *testing.T) {
	s := newTestServer(t)
	page := get(s, "/", "", "10.0.0.1:1000").Body.String()
	w := get(s, "/order/ord_abcdefghijklmnopqrstuvwxyz", "", "10.0.0.1:1000")
	if w.Code != http.StatusOK || w.Body.String() != page || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("/order/{id}: %d %q, want the page", w.Code, w.Header().Get("Content-Type"))
	}
	if w.Header().Get("Content-Security-Policy") != contentSecurityPolicy || w.Header().Get("Cache-Control") != "no-cache" {
		t.Errorf("headers %v", w.Header())
	}
	for _, path := range []string{"/order/", "/order/a/b", "/orders/x", "/nothing-here"} {
		if w := get(s, path, "", "10.0.0.1:1000"); w.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, w.Code)
		}
	}
}

func TestThrottlePerSessionAndAddress(t *testing.T) {
	s := newTestServer(t)
	first := get(s, "/api/session", "", "10.0.0.1:1000")
	cookie := first.Result().Cookies()[0]
	if cookie.Name != sessionCookie || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("session cookie %+v", cookie)
	}
	c := cookie.Name + "=" + cookie.Value
	for range 2 {
		if w := get(s, "/api/session", c, "10.0.0.1:1000"); w.Code != http.StatusOK {
			t.Fatalf("within budget: %d", w.Code)
		}
	}
	w := get(s, "/api/session", c, "10.0.0.1:1000")
	var p Problem
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || p.Message != "Too many requests right now." {
		t.Errorf("past the session's budget: %d %q %+v", w.Code, w.Header().Get("Retry-After"), p)
	}
	// Other users on the same address still get through, until the address's own budget.
	for range 2 {
		if w := get(s, "/api/session", "", "10.0.0.1:1000"); w.Code != http.StatusOK {
			t.Errorf("another session: %d", w.Code)
		}
	}
	if w := get(s, "/api/session", "", "10.0.0.1:1000"); w.Code != http.StatusTooManyRequests {
		t.Errorf("dropping the cookie escapes the address's budget: %d", w.Code)
	}
	if w := get(s, "/api/session", "", "10.0.0.2:1000"); w.Code != http.StatusOK {
		t.Errorf("another address: %d", w.Code)
	}
}

func TestPostsNeedTheSessionsToken(t *testing.T) {
	s := newTestServer(t)
	w := get(s, "/api/session", "", "10.0.0.1:1000")
	var info struct{ CSRFToken string }
	_ = json.Unmarshal(w.Body.Bytes(), &info)
	cookie := w.Result().Cookies()[0]
	post := func(token, origin string) int {
		r := httptest.NewRequest(http.MethodPost, "/api/rates", strings.NewReader(`{}`))
		r.RemoteAddr = "10.0.0.3:1000"
		r.AddCookie(cookie)
		r.Header.Set("Origin", origin)
		r.Header.Set(csrfHeader, token)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		return rec.Code
	}
	if code := post("", "http://example.com"); code != http.StatusForbidden {
		t.Errorf("no token: %d", code)
	}
	if code := post(info.CSRFToken, "https://evil.example"); code != http.StatusForbidden {
		t.Errorf("another origin: %d", code)
	}
	// The right token from the page's origin passes the gate to /v1 (which refuses the body).
	if code := post(info.CSRFToken, "http://example.com"); code != http.StatusBadRequest {
		t.Errorf("the page's own POST: %d, want /v1's 400", code)
	}
	if strings.Contains(w.Body.String(), "partner-secret") {
		t.Errorf("the partner secret leaked into the session answer")
	}
}

func TestMetricsCountRequestsByRouteNotPath(t *testing.T) {
	v1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	t.Cleanup(v1.Close)
	reg := prometheus.NewRegistry()
	s, err := New(Options{APIURL: v1.URL, Key: upstream.Key{ID: "key", Secret: "partner-secret"},
		PerSession: 2, PerClientAddress: 100, Log: logr.Discard(), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	first := get(s, "/api/session", "", "192.0.2.1:1000")
	cookie := first.Header().Get("Set-Cookie")
	get(s, "/api/orders/ord_a", cookie, "192.0.2.1:1000")
	get(s, "/api/orders/ord_b", cookie, "192.0.2.1:1000") // over this session's budget of 2

	want := `
# HELP swaprouter_app_requests_total Requests the swap app answered, by route and HTTP code.
# TYPE swaprouter_app_requests_total counter
swaprouter_app_requests_total{code="200",route="GET /api/session"} 1
swaprouter_app_requests_total{code="404",route="GET /api/orders/{id}"} 1
swaprouter_app_requests_total{code="429",route="GET /api/orders/{id}"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "swaprouter_app_requests_total"); err != nil {
		t.Error(err)
	}
}
