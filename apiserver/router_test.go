package apiserver

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

func TestUnknownRouteAndMethod(t *testing.T) {
	h := newHarness(t)
	expectError(t, h.do(req{method: "GET", path: "/v1/nope"}), apierror.NotFound)
	expectError(t, h.do(req{method: "GET", path: "/"}), apierror.NotFound)
	rec := h.do(req{method: "DELETE", path: "/v1/assets"})
	expectError(t, rec, apierror.MethodNotAllowed)
	if allow := rec.Header().Get("Allow"); !strings.Contains(allow, "GET") {
		t.Errorf("Allow %q", allow)
	}
	expectError(t, h.do(req{method: "GET", path: "/v1/order"}), apierror.MethodNotAllowed)
}

func TestHealth(t *testing.T) {
	h := newHarness(t)
	if rec := h.do(req{method: "GET", path: "/healthz", noAuth: true}); rec.Code != http.StatusOK {
		t.Errorf("healthz %d", rec.Code)
	}
	if rec := h.do(req{method: "GET", path: "/readyz", noAuth: true}); rec.Code != http.StatusOK {
		t.Errorf("readyz %d", rec.Code)
	}
	h.srv.ready.Store(false)
	if rec := h.do(req{method: "GET", path: "/readyz", noAuth: true}); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz while not ready: %d", rec.Code)
	}
}

func TestRequestLogAndMetrics(t *testing.T) {
	h := newHarness(t)
	var logs bytes.Buffer
	h.srv.log = funcr.New(func(prefix, args string) { logs.WriteString(args + "\n") }, funcr.Options{})

	h.do(req{method: "GET", path: "/v1/order/ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"})
	if got := testutil.ToFloat64(h.srv.metrics.requests.WithLabelValues("GET /v1/order/{id}", "404")); got != 1 {
		t.Errorf("request counter moved by %v", got)
	}
	line := logs.String()
	for _, want := range []string{`"method"="GET"`, `"route"="GET /v1/order/{id}"`, `"status"=404`, `"durationMs"=`,
		`"keyId"="` + acmeKey + `"`, `"orderId"="ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"`, `"error"="order not found"`} {
		if !strings.Contains(line, want) {
			t.Errorf("log line %q lacks %s", line, want)
		}
	}
}

func TestPanicIsInternalError(t *testing.T) {
	h := newHarness(t)
	h.srv.opts.Catalog = nil // listAssets dereferences it
	expectError(t, h.do(req{method: "GET", path: "/v1/assets"}), apierror.Internal)
}
