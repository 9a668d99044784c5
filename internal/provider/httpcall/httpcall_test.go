package httpcall

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestDoClassifiesAnswers(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		hang   bool // never answers: the call must time out
		// length, when set, is the Content-Length the answer declares; chunked sends the
		// body without one.
		length     string
		chunked    bool
		wantKind   provider.Kind
		wantStatus int
		wantDetail string
		wantCode   string
		retryAfter string
		wantAfter  time.Duration
		wantErr    bool
	}{
		{name: "ok", status: 200, body: `{"x":"y"}`},
		{name: "5xx", status: 503, body: `oops`, wantErr: true, wantKind: provider.KindUpstream, wantStatus: 503},
		{name: "garbage 2xx", status: 200, body: `{"x":`, wantErr: true, wantKind: provider.KindUpstream, wantStatus: 200},
		{name: "404", status: 404, body: `{"message":"gone"}`, wantErr: true, wantKind: provider.KindNotFound, wantStatus: 404, wantDetail: "gone"},
		{name: "401 is the credentials", status: 401, body: `{"message":"invalid token"}`, wantErr: true, wantKind: provider.KindCredentials, wantStatus: 401, wantDetail: "invalid token"},
		{name: "403 is the credentials", status: 403, body: `{"message":"forbidden"}`, wantErr: true, wantKind: provider.KindCredentials, wantStatus: 403, wantDetail: "forbidden"},
		{name: "408 is transient", status: 408, body: `{}`, retryAfter: "3", wantErr: true, wantKind: provider.KindUpstream, wantStatus: 408, wantAfter: 3 * time.Second},
		{name: "425 is transient", status: 425, body: `{}`, wantErr: true, wantKind: provider.KindUpstream, wantStatus: 425},
		{name: "400 message", status: 400, body: `{"message":"bad thing"}`, wantErr: true, wantKind: provider.KindRefused, wantStatus: 400, wantDetail: "bad thing"},
		{name: "400 with an error code", status: 400, body: `{"message":"No routes found","errorCode":"NO_SWAP_ROUTES_FOUND"}`, wantErr: true,
			wantKind: provider.KindRefused, wantStatus: 400, wantDetail: "No routes found", wantCode: "NO_SWAP_ROUTES_FOUND"},
		{name: "5xx keeps its error code", status: 500, body: `{"message":"boom","errorCode":"UNKNOWN_ERROR"}`, wantErr: true,
			wantKind: provider.KindUpstream, wantStatus: 500, wantCode: "UNKNOWN_ERROR"},
		{name: "400 plain", status: 400, body: `plain words`, wantErr: true, wantKind: provider.KindRefused, wantStatus: 400, wantDetail: "plain words"},
		{name: "429 with Retry-After", status: 429, body: `{"message":"Too many requests, please try again later"}`, retryAfter: "7", wantErr: true,
			wantKind: provider.KindUpstream, wantStatus: 429, wantDetail: "Too many requests, please try again later", wantAfter: 7 * time.Second},
		{name: "503 with Retry-After", status: 503, body: `{"message":"The swap service is currently unavailable due to maintenance"}`, retryAfter: "2", wantErr: true,
			wantKind: provider.KindUpstream, wantStatus: 503, wantAfter: 2 * time.Second},
		{name: "slow", status: 200, body: `{}`, hang: true, wantErr: true, wantKind: provider.KindTimeout},
		{name: "chunked, without a length", status: 200, body: `{"x":"y"}`, chunked: true},
		{name: "cut short of its length", status: 200, body: `{"x":"y"}`, length: "100", wantErr: true, wantKind: provider.KindUpstream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ended := make(chan struct{}) // releases a hanging handler so the server can close
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if got := r.Header.Get("Authorization"); got != "Bearer tok" {
					t.Errorf("Authorization = %q", got)
				}
				if tt.hang {
					select {
					case <-ended:
					case <-r.Context().Done():
					}
					return
				}
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				if tt.length != "" {
					w.Header().Set("Content-Length", tt.length)
				}
				w.WriteHeader(tt.status)
				if tt.chunked {
					w.(http.Flusher).Flush()
				}
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			defer close(ended)
			timeout := time.Minute // no answer of a test comes near it
			if tt.hang {
				timeout = 50 * time.Millisecond
			}
			c, err := New(provider.Config{ID: "route_A", Endpoint: srv.URL + "/base", Token: "tok", Timeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			var out struct{ X string }
			err = c.Do(context.Background(), Call{Method: "POST", Path: "/v0/quote", Body: map[string]string{"a": "b"}}, &out)
			if !tt.wantErr {
				if err != nil || out.X != "y" {
					t.Fatalf("Do = %v, out %+v", err, out)
				}
				return
			}
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not *provider.Error", err)
			}
			if pe.Kind != tt.wantKind || pe.Provider != "route_A" {
				t.Fatalf("kind = %v provider %q; want %v", pe.Kind, pe.Provider, tt.wantKind)
			}
			if pe.Upstream == nil || pe.Upstream.Path != "POST /v0/quote" || pe.Upstream.Status != tt.wantStatus {
				t.Fatalf("upstream = %+v; want status %d", pe.Upstream, tt.wantStatus)
			}
			if tt.wantDetail != "" && pe.Detail != tt.wantDetail {
				t.Fatalf("detail = %q; want %q", pe.Detail, tt.wantDetail)
			}
			if pe.RetryAfter != tt.wantAfter {
				t.Fatalf("retry after = %v; want %v", pe.RetryAfter, tt.wantAfter)
			}
			if pe.Code != tt.wantCode {
				t.Fatalf("code = %q; want %q", pe.Code, tt.wantCode)
			}
		})
	}
}

// A provider whose key is a header of its own (Relay's x-api-key) gets the token there, and
// no bearer token.
func TestAPIKeyHeader(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-api-key") != "key-1" || r.Header.Get("Authorization") != "" {
			t.Errorf("x-api-key %q, Authorization %q", r.Header.Get("x-api-key"), r.Header.Get("Authorization"))
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c, err := New(provider.Config{ID: "relay", Endpoint: srv.URL, Token: "key-1", Timeout: time.Minute}, APIKeyHeader("x-api-key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Do(context.Background(), Call{Method: "GET", Path: "/chains"}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := map[string]time.Duration{
		"":                              0,
		"30":                            30 * time.Second,
		"-5":                            0,
		"soon":                          0,
		"Fri, 02 Jan 2026 03:05:05 GMT": time.Minute,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0,
	}
	for v, want := range tests {
		if got := RetryAfter(v, now); got != want {
			t.Errorf("RetryAfter(%q) = %v; want %v", v, got, want)
		}
	}
}

func TestDoUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, _ := New(provider.Config{ID: "route_B", Endpoint: url, Timeout: time.Minute})
	err := c.Do(context.Background(), Call{Method: "GET", Path: "/x"}, nil)
	if !provider.IsKind(err, provider.KindUpstream) || !provider.IsRetryable(err) {
		t.Fatalf("err = %v; want retryable upstream", err)
	}
}

func TestNewRejectsBadEndpoint(t *testing.T) {
	for _, ep := range []string{"", "ftp://x", "http://", "::"} {
		if _, err := New(provider.Config{Endpoint: ep}); err == nil {
			t.Errorf("New(%q) accepted", ep)
		}
	}
}

func TestRefine(t *testing.T) {
	refiner := func(msg string) (provider.Kind, string, bool) {
		if msg == "too low 5" {
			return provider.KindAmountTooLow, "5", true
		}
		return 0, "", false
	}
	refused := &provider.Error{Kind: provider.KindRefused, Detail: "too low 5", Upstream: &provider.Upstream{Status: 400}}
	got := provider.AsError(Refine(refused, refiner))
	if got.Kind != provider.KindAmountTooLow || got.Limit != "5" || got.Upstream.Status != 400 {
		t.Fatalf("refined = %+v", got)
	}
	if refused.Kind != provider.KindRefused {
		t.Fatal("Refine mutated its input")
	}
	other := &provider.Error{Kind: provider.KindRefused, Detail: "nope"}
	if Refine(other, refiner) != error(other) {
		t.Fatal("unrecognised message was rewritten")
	}
	up := &provider.Error{Kind: provider.KindUpstream, Detail: "too low 5"}
	if Refine(up, refiner) != error(up) {
		t.Fatal("non-refusal was rewritten")
	}
}

// Answer buffers are reused: what one call decoded must not change when the next answer
// is read into the same buffer.
func TestDecodedAnswersOutliveTheirBuffer(t *testing.T) {
	answers := []string{`{"x":"first answer","raw":{"k":"one"}}`, `{"x":"SECOND ANSWER","raw":{"k":"two"}}`}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(answers[(n.Add(1)-1)%int64(len(answers))]))
	}))
	defer srv.Close()
	c, err := New(provider.Config{ID: "route_B", Endpoint: srv.URL, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		X   string
		Raw json.RawMessage
	}
	var kept []answer
	for range 4 {
		var out answer
		if err := c.Do(context.Background(), Call{Method: "GET", Path: "/q"}, &out); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, out)
	}
	for i, a := range kept {
		want := answers[i%len(answers)]
		if !strings.Contains(want, `"x":"`+a.X+`"`) || !strings.Contains(want, `"raw":`+string(a.Raw)) {
			t.Errorf("answer %d reads %q / %s after later calls; it was %s", i, a.X, a.Raw, want)
		}
	}
}
