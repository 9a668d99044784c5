package apiserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// requestInfo collects what the request log line reports; handlers fill it in as they learn.
type requestInfo struct {
	id      string
	keyID   string
	orderID string
	code    apierror.Code
}

type requestInfoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{} // outside observe (unit tests of single handlers): a throw-away
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// observe names the request (X-Request-Id on every answer), logs one line per request and
// records the metrics; it also turns a panic into a 500 so one bad request cannot take the
// process down.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &requestInfo{id: requestID(r.Header.Get(headerRequestID))}
		w.Header().Set(headerRequestID, info.id)
		r = r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
		rec := &statusRecorder{ResponseWriter: w}
		s.metrics.inflight.Inc()
		defer func() {
			s.metrics.inflight.Dec()
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error(errors.New("panic"), "handler panicked", "panic", p, "method", r.Method, "path", r.URL.Path, "requestId", info.id)
				if rec.status == 0 {
					info.code = apierror.Internal
					apierror.Write(rec, apierror.New(apierror.Internal, ""))
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			elapsed := time.Since(start)
			s.metrics.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
			s.metrics.duration.WithLabelValues(route).Observe(elapsed.Seconds())
			kv := []any{"requestId", info.id, "method", r.Method, "route", route, "status", status,
				"durationMs", elapsed.Milliseconds()}
			if info.keyID != "" {
				kv = append(kv, "keyId", info.keyID)
			}
			if info.orderID != "" {
				kv = append(kv, "orderId", info.orderID)
			}
			if info.code != "" {
				kv = append(kv, "error", string(info.code))
				if s.observed != nil {
					s.observed(route, info.code)
				}
			}
			s.log.Info("request", kv...)
		}()
		next.ServeHTTP(rec, r)
	})
}

// storeUnavailable reports errors that mean the kube-apiserver could not serve the request
// right now (refused or reset connections, timeouts, 503/429 from it), as opposed to a bug.
func storeUnavailable(err error) bool {
	if apierrors.IsServiceUnavailable(err) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTooManyRequests(err) || utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// writeError answers err: an *apierror.Error as is, anything else as `internal error` (logged,
// never shown to the partner).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apierror.Error
	if !errors.As(err, &ae) && storeUnavailable(err) {
		// A kube-apiserver restart or etcd hiccup: tell the partner to come back shortly
		// instead of an internal error it would retry at once.
		s.log.Info("kube-apiserver unavailable", "method", r.Method, "path", r.URL.Path, "requestId", infoFrom(r.Context()).id, "error", err.Error())
		ae = apierror.New(apierror.Unavailable, "live orders cannot be reached for a moment; nothing was stored; retry after Retry-After")
		ae.RetryAfterSeconds = 1
	}
	if ae == nil {
		s.log.Error(err, "request failed", "method", r.Method, "path", r.URL.Path, "requestId", infoFrom(r.Context()).id)
		ae = apierror.New(apierror.Internal, "")
	}
	infoFrom(r.Context()).code = ae.Code
	apierror.Write(w, ae)
}
