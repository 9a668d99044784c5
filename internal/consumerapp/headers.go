package consumerapp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/go-logr/logr"
)

// contentSecurityPolicy lets the page load and contact nothing but its own origin, and be
// framed by no one (clickjacking a "create order" button).
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// secured adds the security headers to every answer.
func secured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		next.ServeHTTP(w, r)
	})
}

// statusWriter remembers the status for the request log and still lets SSE flush.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logged counts each request in m, gives it an id (answered in X-Request-Id and passed on to /v1, so the two
// services' log lines join up) and logs one line per /api request.
func logged(log logr.Logger, m *metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		id := "app-" + hex.EncodeToString(b)
		w.Header().Set("X-Request-Id", id)
		l := log.WithValues("requestId", id)
		sw := &statusWriter{ResponseWriter: w}
		start := time.Now()
		ctx := context.WithValue(logr.NewContext(r.Context(), l), requestIDKey{}, id)
		req := r.WithContext(ctx) // the mux records the matched pattern on it
		next.ServeHTTP(sw, req)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		took := time.Since(start)
		m.observe(routeOf(req), sw.status, took)
		l.V(1).Info("request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "took", took.String())
	})
}

type requestIDKey struct{}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
