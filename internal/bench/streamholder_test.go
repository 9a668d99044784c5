package bench

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// sseFrontend stands in for GET /v1/events: it counts the streams it holds open (counted
// before it flushes the headers, as the frontend does) and answers 429 past refuseAfter.
type sseFrontend struct {
	open        atomic.Int64
	opened      atomic.Int64
	refuseAfter int64
	closed      chan struct{} // one send per stream that ended, after open counted it
}

func newSSEFrontend(t *testing.T, refuseAfter int64) (*sseFrontend, *httptest.Server) {
	f := &sseFrontend{refuseAfter: refuseAfter, closed: make(chan struct{}, 1024)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/events" || r.Header.Get("X-Key-Id") != "key_1" || r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		if f.opened.Add(1) > f.refuseAfter {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":"rate limit exceeded"}`, http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		f.open.Add(1)
		defer func() { f.open.Add(-1); f.closed <- struct{}{} }()
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return f, srv
}

// waitAllClosed waits until the server holds no stream.
func (f *sseFrontend) waitAllClosed(t *testing.T) {
	t.Helper()
	for f.open.Load() > 0 {
		select {
		case <-f.closed:
		case <-t.Context().Done():
			t.Fatalf("%d streams still open", f.open.Load())
		}
	}
}

func TestStreamHolderHoldsStreamsFromAnotherProcess(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name string
		end  func(*testing.T, *streamHolder)
	}{
		{"until told to stop", func(t *testing.T, h *streamHolder) {
			if err := h.stop(t.Context()); err != nil {
				t.Errorf("stop: %v", err)
			}
		}},
		{"until SIGTERM", func(t *testing.T, h *streamHolder) {
			if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			<-h.exited
			if h.waitErr != nil {
				t.Errorf("the holder exited with %v on SIGTERM (stderr: %s)", h.waitErr, h.stderr.String())
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newSSEFrontend(t, n)
			goroutines := runtime.NumGoroutine()
			h, err := startStreamHolder(t.Context(), holdRequest{Base: srv.URL, KeyID: "key_1", Secret: "s3cret", Streams: n})
			if err != nil {
				t.Fatal(err)
			}
			if got := f.open.Load(); got != n {
				t.Errorf("the holder reported its streams open while the server held %d of %d", got, n)
			}
			// The server's side is two goroutines per connection (serving it, and watching
			// for the client going away); the client's would be three more.
			if grown := runtime.NumGoroutine() - goroutines; grown > 2*n+n/2 {
				t.Errorf("this process grew by %d goroutines for %d streams: it holds their client side too", grown, n)
			}
			tc.end(t, h)
			f.waitAllClosed(t)
		})
	}
}

func TestStreamHolderReportsStreamsItCouldNotOpen(t *testing.T) {
	f, srv := newSSEFrontend(t, 5)
	h, err := startStreamHolder(t.Context(), holdRequest{Base: srv.URL, KeyID: "key_1", Secret: "s3cret", Streams: 8})
	if err == nil {
		_ = h.stop(t.Context()) // the server's Close waits for its streams
	}
	if err == nil || !strings.Contains(err.Error(), "3 failed") || !strings.Contains(err.Error(), "429") {
		t.Fatalf("opening 8 streams where 5 are allowed: %v, want 3 failed with 429", err)
	}
	// The five it opened end with the holder.
	f.waitAllClosed(t)
}
