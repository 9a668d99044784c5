package upstream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/pkg/client"
)

// answers serves the statuses in order, then 200, counting calls and checking the key.
func answers(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Key-Id") != "key" || r.Header.Get("Authorization") != "Bearer s3cret" {
			t.Errorf("key headers missing: %v", r.Header)
		}
		if r.Header.Get("Idempotency-Key") != "idem-1" || r.Header.Get("X-Request-Id") != "req-1" {
			t.Errorf("Idempotency-Key or X-Request-Id not sent on every attempt: %v", r.Header)
		}
		if b, _ := io.ReadAll(r.Body); string(b) != orderJSON {
			t.Errorf("attempt %d sent body %q, want %q", calls.Load()+1, b, orderJSON)
		}
		n := int(calls.Add(1))
		if n <= len(statuses) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(statuses[n-1])
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// orderJSON is the body every attempt of the order below sends (fields in the document's order).
const orderJSON = `{"originAsset":"a","destinationAsset":"b","amount":"1","sender":"s","recipient":"r","providerId":"route_A"}`

// createOrder creates an order through the generated client with retrier, keyed for retries.
func createOrder(ctx context.Context, t *testing.T, srv *httptest.Server, retrier *Retrier) (*client.CreateOrderResponse, error) {
	t.Helper()
	requestID := func(_ context.Context, r *http.Request) error { r.Header.Set("X-Request-Id", "req-1"); return nil }
	api, err := New(srv.URL, Key{ID: "key", Secret: "s3cret"}, retrier, requestID)
	if err != nil {
		t.Fatal(err)
	}
	key := "idem-1"
	return api.CreateOrderWithResponse(ctx, &client.CreateOrderParams{IdempotencyKey: &key},
		client.OrderRequest{OriginAsset: "a", DestinationAsset: "b", Amount: "1", ProviderId: "route_A", Sender: "s", Recipient: "r"})
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name       string
		statuses   []int
		wantStatus int
		wantCalls  int32
		wantWaits  []time.Duration
	}{
		{"5xx then success", []int{502, 503}, 200, 3, []time.Duration{500 * time.Millisecond, time.Second}},
		{"429 waits Retry-After and succeeds", []int{429}, 200, 2, []time.Duration{0}},
		{"gives up after four retries", []int{500, 500, 500, 500, 500, 500}, 500, 5,
			[]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}},
		{"400 is not retried", []int{400}, 400, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := answers(t, tt.statuses...)
			c := &Retrier{HTTP: srv.Client(), Log: logr.Discard(), Jitter: func() float64 { return 0 }}
			var waits []time.Duration
			c.wait = func(_ context.Context, d time.Duration) bool { waits = append(waits, d); return true }
			resp, err := createOrder(context.Background(), t, srv, c)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode() != tt.wantStatus || calls.Load() != tt.wantCalls {
				t.Errorf("status %d after %d calls, want %d after %d", resp.StatusCode(), calls.Load(), tt.wantStatus, tt.wantCalls)
			}
			if !slices.Equal(waits, tt.wantWaits) {
				t.Errorf("waited %v, want %v", waits, tt.wantWaits)
			}
		})
	}
}

func TestRetriesStopWhenTheUserLeaves(t *testing.T) {
	srv, calls := answers(t, 500, 500, 500)
	ctx, cancel := context.WithCancel(context.Background())
	c := &Retrier{HTTP: srv.Client(), Log: logr.Discard(), Jitter: func() float64 { cancel(); return 0 }}
	resp, err := createOrder(ctx, t, srv, c)
	if err != nil || resp.StatusCode() != 500 || calls.Load() != 1 {
		t.Errorf("got %v, %v after %d calls; want the first 500 and no retry", resp, err, calls.Load())
	}
}
