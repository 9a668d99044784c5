package apiserver

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/swaprouter/swaprouter/internal/testing/openapicheck"
)

// The embedded document, loaded and validated once.
var (
	openAPIOnce sync.Once
	openAPIDoc  *openapicheck.Doc
	openAPIErr  error
)

func loadedOpenAPI(t testing.TB) *openapicheck.Doc {
	t.Helper()
	openAPIOnce.Do(func() { openAPIDoc, openAPIErr = openapicheck.Load(openAPIDocument) })
	if openAPIErr != nil {
		t.Fatalf("openapi.json: %v", openAPIErr)
	}
	return openAPIDoc
}

// validateAnswer checks one answer of the handler against the document. Every handler test
// goes through it (harness.do), so document and code cannot drift.
func validateAnswer(t testing.TB, hr *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	if err := loadedOpenAPI(t).Answer(hr, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
		t.Errorf("openapi: %v", err)
	}
}
