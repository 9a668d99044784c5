// Package partnerapi is a partner calling the /v1 API in the whole-system suites: answers
// are decoded into generic maps, so the specs read the wire format a partner sees, not our
// Go types. Failures fail the running spec (Gomega).
package partnerapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/testing/openapicheck"
)

// Client is a partner calling the /v1 API with one key.
type Client struct {
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
	return &Client{base: base, keyID: keyID, secret: secret, http: &http.Client{Timeout: 40 * time.Second}}
}

// Response is an answer with its JSON body decoded into a generic map (so the tests read the
// wire format a partner sees, not our Go types).
type Response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// Do sends body (JSON unless nil) with headers given as name, value pairs.
func (c *Client) Do(method, path string, body any, headers ...string) Response {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		Expect(err).NotTo(HaveOccurred())
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("X-Key-Id", c.keyID)
	req.Header.Set("Authorization", "Bearer "+c.secret)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(c.document().Answer(req, resp.StatusCode, resp.Header, raw)).To(Succeed(), "the answer matches openapi.json")
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
