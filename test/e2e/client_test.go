package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/gomega"
)

// apiClient is a partner calling the /v1 API.
type apiClient struct {
	base, keyID, secret string
	http                *http.Client
}

func newAPIClient(base, keyID, secret string) *apiClient {
	return &apiClient{base: base, keyID: keyID, secret: secret, http: &http.Client{Timeout: 40 * time.Second}}
}

// response is an answer with its JSON body decoded into a generic map (so the tests read the
// wire format a partner sees, not our Go types).
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

func (c *apiClient) do(method, path string, body any, headers ...string) response {
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
	r := response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(raw) > 0 {
		Expect(json.Unmarshal(raw, &r.Body)).To(Succeed(), "body: %s", raw)
	}
	return r
}

func (c *apiClient) get(path string) response { return c.do(http.MethodGet, path, nil) }

func (c *apiClient) post(path string, body any, headers ...string) response {
	return c.do(http.MethodPost, path, body, headers...)
}

// str reads a string field of a JSON object ("" when absent or null).
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

func list(m map[string]any, key string) []any {
	l, _ := m[key].([]any)
	return l
}
