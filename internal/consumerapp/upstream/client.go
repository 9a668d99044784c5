// Package upstream is the consumer app's client of the /v1 partner API: the generated client
// (pkg/client) with the partner key on every call, retrying exactly as the contract tells
// partners to (§7).
package upstream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/pkg/client"
)

// maxBody bounds an answer read from /v1 (its largest, the asset list, is far below).
const maxBody = 4 << 20

// Key is a partner API key.
type Key struct {
	ID, Secret string
}

// Keys gives the key to call with now: it changes when the key is rotated.
type Keys interface {
	Current() Key
}

// Current is k itself: a key that never changes.
func (k Key) Current() Key { return k }

// Authorize sets the headers that authenticate r with k.
func (k Key) Authorize(r *http.Request) {
	r.Header.Set("X-Key-Id", k.ID)
	r.Header.Set("Authorization", "Bearer "+k.Secret)
}

// New is the generated /v1 client at baseURL calling with the current key of keys through
// retrier; editors add to every request (the request id).
func New(baseURL string, keys Keys, retrier *Retrier, editors ...client.RequestEditorFn) (*client.ClientWithResponses, error) {
	sign := func(_ context.Context, r *http.Request) error {
		keys.Current().Authorize(r)
		r.Header.Set("Accept", "application/json")
		return nil
	}
	opts := []client.ClientOption{client.WithHTTPClient(retrier), client.WithRequestEditorFn(sign)}
	for _, e := range editors {
		opts = append(opts, client.WithRequestEditorFn(e))
	}
	return client.NewClientWithResponses(baseURL, opts...)
}

// Retrier sends a request and retries 5xx answers and transport failures with backoff, and
// 429s after Retry-After. Every attempt carries the request's headers (the request id, an
// Idempotency-Key that makes retried order creation safe). The answer comes back with its
// body read (at most maxBody); the error is non-nil only when no answer came back at all.
type Retrier struct {
	HTTP *http.Client
	Log  logr.Logger
	// Jitter draws a fraction in [0, 1); rand.Float64 when nil.
	Jitter func() float64

	// wait sleeps between attempts (tests record the delays instead); sleep when nil.
	wait func(context.Context, time.Duration) bool
}

// Do sends req until Decide says stop.
func (c *Retrier) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	jitter := c.Jitter
	if jitter == nil {
		jitter = rand.Float64
	}
	wait := c.wait
	if wait == nil {
		wait = sleep
	}
	for n := 0; ; n++ {
		resp, err := c.once(req, n)
		status, retryAfter := 0, ""
		if err == nil {
			status, retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		}
		d := Decide(status, retryAfter, n, jitter())
		if !d.Retry || ctx.Err() != nil {
			return resp, err
		}
		c.Log.Info("retrying /v1 call", "method", req.Method, "path", req.URL.Path, "status", status,
			"error", errString(err), "retry", n+1, "wait", d.Wait.String())
		if !wait(ctx, d.Wait) {
			return resp, err
		}
	}
}

// once sends attempt n of req (a fresh copy of its body after the first) and reads the answer.
func (c *Retrier) once(req *http.Request, n int) (*http.Response, error) {
	attempt := req
	if n > 0 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		attempt = req.Clone(req.Context())
		attempt.Body = body
	}
	resp, err := c.HTTP.Do(attempt)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", req.Method, req.URL.Path, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// sleep waits d or until ctx ends; it reports whether the wait completed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
