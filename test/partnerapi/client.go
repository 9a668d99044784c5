// Package partnerapi is a partner calling the /v1 API in the whole-system suites: ordinary
// calls through the generated client (pkg/client, the document's types a partner's code
// reads), and raw requests (Do) for what no client sends: malformed bodies, stray headers.
// Every answer either way is validated against the served OpenAPI document. Failures fail the
// running spec (Gomega).
package partnerapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/testing/openapicheck"
	"github.com/swaprouter/swaprouter/pkg/client"
)

// Client is a partner calling the /v1 API with one key.
type Client struct {
	// API is the generated client.
	API                 *client.ClientWithResponses
	base, keyID, secret string
	http                *http.Client
}

// documents holds the OpenAPI document each frontend serves, loaded on first use: every
// answer the suites read is validated against it (openapicheck), so the whole system cannot
// drift from the document either.
var documents sync.Map // base URL -> *openapicheck.Doc

func (c *Client) document() *openapicheck.Doc {
	if d, ok := documents.Load(c.base); ok {
		return d.(*openapicheck.Doc)
	}
	resp, err := c.http.Get(c.base + "/v1/openapi.json")
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), "GET /v1/openapi.json: %s", raw)
	d, err := openapicheck.Load(raw)
	Expect(err).NotTo(HaveOccurred(), "the served OpenAPI document")
	documents.Store(c.base, d)
	return d
}

// New returns a client of the frontend at base with the key keyID and its secret.
func New(base, keyID, secret string) *Client {
	c := &Client{base: base, keyID: keyID, secret: secret, http: &http.Client{Timeout: 40 * time.Second}}
	api, err := client.NewClientWithResponses(base, client.WithHTTPClient(validated{c}),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error { c.sign(r); return nil }))
	Expect(err).NotTo(HaveOccurred())
	c.API = api
	return c
}

// sign adds the key.
func (c *Client) sign(r *http.Request) {
	r.Header.Set("X-Key-Id", c.keyID)
	r.Header.Set("Authorization", "Bearer "+c.secret)
}

// validated sends a request and checks its answer against the served OpenAPI document.
type validated struct{ c *Client }

func (v validated) Do(req *http.Request) (*http.Response, error) {
	resp, err := v.c.http.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(v.c.document().Answer(req, resp.StatusCode, resp.Header, raw)).To(Succeed(), "the answer matches openapi.json")
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	return resp, nil
}

// Response is an answer with its JSON body decoded into a generic map (so the tests read the
// wire format a partner sees, not our Go types).
type Response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// Do sends body (JSON unless nil) with headers given as name, value pairs: a raw request, for
// what the generated client does not send.
func (c *Client) Do(method, path string, body any, headers ...string) Response {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		Expect(err).NotTo(HaveOccurred())
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	Expect(err).NotTo(HaveOccurred())
	c.sign(req)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, _ := validated{c}.Do(req)
	raw, _ := io.ReadAll(resp.Body)
	r := Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(raw) > 0 {
		Expect(json.Unmarshal(raw, &r.Body)).To(Succeed(), "body: %s", raw)
	}
	return r
}

// Get reads path.
func (c *Client) Get(path string) Response { return c.Do(http.MethodGet, path, nil) }

// Post sends body to path.
func (c *Client) Post(path string, body any, headers ...string) Response {
	return c.Do(http.MethodPost, path, body, headers...)
}

// Str reads a string field of a JSON object ("" when absent or null).
func Str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// Obj reads an object field (nil when absent).
func Obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

// List reads an array field (nil when absent).
func List(m map[string]any, key string) []any {
	l, _ := m[key].([]any)
	return l
}
