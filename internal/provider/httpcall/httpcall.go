// Package httpcall is the HTTP plumbing the provider adapters share: one JSON call under the
// adapter's timeout, with every failure classified into a *provider.Error (timeouts, 5xx and
// malformed answers are retryable upstream errors; 4xx are refusals carrying the provider's
// message so the adapter can refine them).
package httpcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// maxBody bounds what we read from a provider; a real answer is a few KiB.
const maxBody = 1 << 20

// defaultTimeout applies when the adapter's Config has none.
const defaultTimeout = 5 * time.Second

// Client calls one provider's JSON API.
type Client struct {
	provider swapv1.ProviderID
	base     *url.URL
	token    string
	// keyHeader, when set, carries the token as it is instead of a bearer token.
	keyHeader string
	timeout   time.Duration
	http      *http.Client
}

// Option changes how a Client calls its provider.
type Option func(*Client)

// APIKeyHeader sends the token in the header name as it is (Relay's x-api-key), instead of
// as a bearer token.
func APIKeyHeader(name string) Option { return func(c *Client) { c.keyHeader = name } }

// New builds a Client from an adapter Config.
func New(cfg provider.Config, opts ...Option) (*Client, error) {
	base, err := url.Parse(strings.TrimSuffix(cfg.Endpoint, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("provider %s: endpoint %q is not an http(s) URL", cfg.ID, cfg.Endpoint)
	}
	c := &Client{provider: cfg.ID, base: base, token: cfg.Token, timeout: cfg.Timeout, http: cfg.HTTPClient}
	for _, o := range opts {
		o(c)
	}
	if c.timeout <= 0 {
		c.timeout = defaultTimeout
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	return c, nil
}

// Provider is the id errors are attributed to.
func (c *Client) Provider() swapv1.ProviderID { return c.provider }

// Call is one request.
type Call struct {
	Method string
	// Path is appended to the endpoint's path, e.g. "/v0/quote".
	Path  string
	Query url.Values
	// Body is JSON-encoded when not nil.
	Body   any
	Header http.Header
}

// String is the call as the contract's upstream.path shows it, e.g. "POST /v0/quote".
func (c Call) String() string { return c.Method + " " + c.Path }

// Do performs the call and decodes a 2xx JSON answer into out (unless out is nil).
// Every error is a *provider.Error:
//   - deadline exceeded (ctx or the client timeout): KindTimeout;
//   - transport failure, 5xx, undecodable 2xx body: KindUpstream;
//   - 408, 425, 429, 503: KindUpstream with the provider's Retry-After;
//   - 401, 403: KindCredentials (the provider rejects us, not the request);
//   - 404: KindNotFound; other 4xx: KindRefused. Both carry the provider's message as Detail
//     and Upstream{Status, Path}, for the adapter's Refine.
func (c *Client) Do(ctx context.Context, call Call, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	req, err := c.newRequest(ctx, call)
	if err != nil {
		return &provider.Error{Provider: c.provider, Kind: provider.KindUpstream, Detail: "building request: " + err.Error(), Err: err}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportError(ctx, call, err)
	}
	defer func() { _ = resp.Body.Close() }()
	buf := bodies.Get().(*bytes.Buffer)
	defer recycle(buf)
	body, err := readBody(resp, buf)
	if err != nil {
		return c.transportError(ctx, call, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return c.statusError(resp, body, call)
	}
	if out == nil {
		return nil
	}
	// encoding/json's Unmarshal scans the whole body for validity before decoding it; the
	// v1-compatible decoder of go-json-experiment does both in one pass, with the same
	// semantics (case-insensitive names, unknown fields ignored).
	if err := jsonv1.Unmarshal(body, out); err != nil {
		return &provider.Error{Provider: c.provider, Kind: provider.KindUpstream, Detail: "malformed response body",
			Upstream: &provider.Upstream{Status: resp.StatusCode, Path: call.String()}, Err: err}
	}
	return nil
}

// readBody reads an answer of at most maxBody bytes into buf, grown once to the length the
// provider states: io.ReadAll grew a fresh buffer from 512 bytes for every answer, about
// twice what a quote's few KiB hold. Everything decoded from the body is copied out of it, so
// the buffer goes back to the pool when Do returns.
func readBody(resp *http.Response, buf *bytes.Buffer) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n <= maxBody {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom wants MinRead free to see the end
	}
	_, err := buf.ReadFrom(io.LimitReader(resp.Body, maxBody))
	return buf.Bytes(), err
}

// bodies are the answer buffers of finished calls; one that grew past maxPooled (an
// unusually large answer) is left to the garbage collector.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooled = 64 << 10

func recycle(buf *bytes.Buffer) {
	if buf.Cap() > maxPooled {
		return
	}
	buf.Reset()
	bodies.Put(buf)
}

// statusError is the error of an answer that is not 2xx. Only such a body is read for the
// provider's message: decoding every successful answer twice cost a quote 5 % of its CPU.
func (c *Client) statusError(resp *http.Response, body []byte, call Call) error {
	up := &provider.Upstream{Status: resp.StatusCode, Path: call.String()}
	msg, code := message(body)
	switch {
	case retryLater(resp.StatusCode):
		return &provider.Error{Provider: c.provider, Kind: provider.KindUpstream, Detail: msg, Code: code, Upstream: up,
			RetryAfter: RetryAfter(resp.Header.Get("Retry-After"), time.Now())}
	case resp.StatusCode >= 500:
		return &provider.Error{Provider: c.provider, Kind: provider.KindUpstream, Detail: "provider error", Code: code, Upstream: up}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return &provider.Error{Provider: c.provider, Kind: provider.KindCredentials, Detail: msg, Code: code, Upstream: up}
	case resp.StatusCode == http.StatusNotFound:
		return &provider.Error{Provider: c.provider, Kind: provider.KindNotFound, Detail: msg, Code: code, Upstream: up}
	case resp.StatusCode >= 400:
		return &provider.Error{Provider: c.provider, Kind: provider.KindRefused, Detail: msg, Code: code, Upstream: up}
	}
	return &provider.Error{Provider: c.provider, Kind: provider.KindUpstream, Detail: "unexpected status", Upstream: up}
}

func (c *Client) newRequest(ctx context.Context, call Call) (*http.Request, error) {
	u := *c.base
	u.Path = c.base.Path + call.Path
	if len(call.Query) > 0 {
		u.RawQuery = call.Query.Encode()
	}
	var body io.Reader
	if call.Body != nil {
		b, err := json.Marshal(call.Body)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, call.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, vs := range call.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "application/json")
	if call.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case c.token == "":
	case c.keyHeader != "":
		req.Header.Set(c.keyHeader, c.token)
	default:
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

func (c *Client) transportError(ctx context.Context, call Call, err error) error {
	up := &provider.Upstream{Path: call.String()}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &provider.Error{Provider: c.provider, Kind: provider.KindTimeout, Detail: "no answer in time", Upstream: up, Err: err}
	}
	return &provider.Error{Provider: c.provider, Kind: provider.KindUpstream, Detail: "provider unreachable", Upstream: up, Err: err}
}

// retryLater: statuses that say "not now" rather than "never" (408, 425, 429, 503); the same
// request may succeed later, so they are retryable even where they are 4xx.
func retryLater(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// RetryAfter reads a Retry-After header: delay-seconds or an HTTP date; zero when absent,
// malformed or already past.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(secs, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// message extracts the {"message": "..."} every protocol uses for errors, else a bounded
// excerpt of the body, and the error code beside it when there is one ({"errorCode": ...},
// Relay's).
func message(body []byte) (msg, code string) {
	var m struct {
		Message   string `json:"message"`
		ErrorCode string `json:"errorCode"`
	}
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		return m.Message, m.ErrorCode
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200]
	}
	return s, m.ErrorCode
}

// Refiner reads a provider's 4xx message and says what it means, e.g. "amount too low,
// minimum 1000". ok is false when the message is not recognised.
type Refiner func(message string) (kind provider.Kind, limit string, ok bool)

// Refine rewrites a KindRefused error whose message the adapter recognises; every other
// error is returned unchanged.
func Refine(err error, refine Refiner) error {
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindRefused {
		return err
	}
	kind, limit, ok := refine(pe.Detail)
	if !ok {
		return err
	}
	refined := *pe
	refined.Kind, refined.Limit = kind, limit
	return &refined
}
