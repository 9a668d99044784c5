package apiserver

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
)

func TestRequestID(t *testing.T) {
	generated := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, tc := range []struct {
		name, in string
		echoed   bool
	}{
		{"uuid", "3f2b8c1e-9d4a-4e5b-8f6a-1c2d3e4f5a6b", true},
		{"every allowed character", "Az09._:-", true},
		{"128 characters", strings.Repeat("a", 128), true},
		{"absent", "", false},
		{"129 characters", strings.Repeat("a", 129), false},
		{"space", "abc def", false},
		{"newline (log injection)", "abc\nlevel=error", false},
		{"slash", "a/b", false},
		{"non-ASCII", "idé", false},
		{"zero-width space", "ab\u200bcd", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := requestID(tc.in)
			if tc.echoed {
				if got != tc.in {
					t.Fatalf("requestID(%q) = %q, want it echoed", tc.in, got)
				}
				return
			}
			if !generated.MatchString(got) {
				t.Fatalf("requestID(%q) = %q, want a new 32-hex id", tc.in, got)
			}
		})
	}
	if a, b := requestID(""), requestID(""); a == b {
		t.Fatalf("two generated ids are equal: %q", a)
	}
}

// TestRequestIDOnEveryAnswer: success, refusals and unknown routes all carry X-Request-Id, the
// caller's own when sane, and the request log line names it (with the order id where known).
func TestRequestIDOnEveryAnswer(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	var lines []string
	h.srv.log = funcr.New(func(prefix, args string) {
		mu.Lock()
		lines = append(lines, args)
		mu.Unlock()
	}, funcr.Options{})
	logged := func(id string) string {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range lines {
			if strings.Contains(l, `"requestId"="`+id+`"`) {
				return l
			}
		}
		t.Fatalf("no log line with requestId %q in %q", id, lines)
		return ""
	}

	for name, r := range map[string]req{
		"200":               {method: "GET", path: "/v1/assets"},
		"401":               {method: "GET", path: "/v1/assets", secret: "wrong", keyID: acmeKey},
		"404 unknown route": {method: "GET", path: "/v1/nope", noAuth: true},
		"public route":      {method: "GET", path: "/healthz", noAuth: true},
	} {
		r.headers = map[string]string{headerRequestID: "partner-trace:" + strings.ReplaceAll(name, " ", "_")}
		rec := h.do(r)
		if got := rec.Header().Get(headerRequestID); got != r.headers[headerRequestID] {
			t.Errorf("%s: X-Request-Id %q, want the caller's %q", name, got, r.headers[headerRequestID])
		}
		logged(r.headers[headerRequestID])

		r.headers[headerRequestID] = "not a token\r"
		rec = h.do(r)
		if got := rec.Header().Get(headerRequestID); !saneRequestID(got) || got == r.headers[headerRequestID] {
			t.Errorf("%s: X-Request-Id %q for an unsafe caller id", name, got)
		}
		logged(rec.Header().Get(headerRequestID))
	}

	rec := h.do(req{method: "POST", path: "/v1/order", body: orderBody(), headers: map[string]string{headerRequestID: "order-call-1"}})
	if rec.Code != http.StatusCreated {
		t.Fatalf("order: %d %s", rec.Code, rec.Body)
	}
	if line := logged("order-call-1"); !strings.Contains(line, `"orderId"="ord_`) {
		t.Errorf("order request log line without the order id: %s", line)
	}
}
