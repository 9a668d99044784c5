// Package upstream is the consumer app's client of the /v1 partner API: it adds the partner
// key to every call and retries exactly as the contract tells partners to (§7).
package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/go-logr/logr"
)

// maxBody bounds an answer read from /v1 (its largest, the asset list, is far below).
const maxBody = 4 << 20

// Key is a partner API key.
type Key struct {
	ID, Secret string
}

// Client calls /v1 as one partner.
type Client struct {
	BaseURL string
	Key     Key
	HTTP    *http.Client
	Log     logr.Logger
	// Jitter draws a fraction in [0, 1); rand.Float64 when nil.
	Jitter func() float64

	// wait sleeps between attempts (tests record the delays instead); sleep when nil.
	wait func(context.Context, time.Duration) bool
}

// Response is a /v1 answer after retries: a success or the last error answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// OK reports a 2xx answer.
func (r *Response) OK() bool { return r.Status >= 200 && r.Status < 300 }

// Do sends method path (with body as JSON when not nil) and retries 5xx answers and transport
// failures with backoff, and 429s after Retry-After. header is added to every attempt (the
// request id, an Idempotency-Key that makes retried order creation safe). The error is
// non-nil only when no answer came back at all.
func (c *Client) Do(ctx context.Context, method, path string, body any, header http.Header) (*Response, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	jitter := c.Jitter
	if jitter == nil {
		jitter = rand.Float64
	}
	wait := c.wait
	if wait == nil {
		wait = sleep
	}
	for n := 0; ; n++ {
		resp, err := c.once(ctx, method, path, payload, header)
		status, retryAfter := 0, ""
		if err == nil {
			status, retryAfter = resp.Status, resp.Header.Get("Retry-After")
		}
		d := Decide(status, retryAfter, n, jitter())
		if !d.Retry || ctx.Err() != nil {
			return resp, err
		}
		c.Log.Info("retrying /v1 call", "method", method, "path", path, "status", status,
			"error", errString(err), "retry", n+1, "wait", d.Wait.String())
		if !wait(ctx, d.Wait) {
			return resp, err
		}
	}
}

func (c *Client) once(ctx context.Context, method, path string, payload []byte, header http.Header) (*Response, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if c.Key.ID != "" {
		req.Header.Set("X-Key-Id", c.Key.ID)
		req.Header.Set("Authorization", "Bearer "+c.Key.Secret)
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", method, path, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
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
