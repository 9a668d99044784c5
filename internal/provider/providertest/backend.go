package providertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Answer is what a Backend answers one call with: File (under the test's testdata) or Body.
type Answer struct {
	Status int
	File   string
	Body   string
}

// Request is what a Backend received.
type Request struct {
	Header http.Header
	Query  url.Values
	Body   []byte
}

// Backend is a provider answering fixtures written from the provider's published models,
// keyed by "METHOD path", and recording every request, so adapter tests can check the exact
// requests sent and the decoding of real answers.
type Backend struct {
	URL     string
	mu      sync.Mutex
	got     map[string]Request
	answers map[string]Answer
}

// NewBackend serves answers until the test ends; an unexpected call fails the test.
func NewBackend(t *testing.T, answers map[string]Answer) *Backend {
	t.Helper()
	b := &Backend{got: map[string]Request{}, answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.Path
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.got[key] = Request{Header: r.Header.Clone(), Query: r.URL.Query(), Body: body}
		b.mu.Unlock()
		a, ok := answers[key]
		if !ok {
			t.Errorf("unexpected call %s", key)
			http.NotFound(w, r)
			return
		}
		out := []byte(a.Body)
		if a.File != "" {
			var err error
			if out, err = readTestdata(a.File); err != nil {
				t.Error(err)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.Status)
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	b.URL = srv.URL
	return b
}

// readTestdata reads a fixture of the calling test's package.
func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }

// Got returns the last request received for "METHOD path".
func (b *Backend) Got(key string) (Request, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.got[key]
	return r, ok
}

// Calls is the number of distinct "METHOD path" keys called.
func (b *Backend) Calls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.got)
}
