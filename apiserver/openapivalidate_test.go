package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// The document, loaded and validated once, and its router (kin-openapi).
var (
	openAPIOnce   sync.Once
	openAPIParsed *openapi3.T
	openAPIRouter routers.Router
	openAPIErr    error
)

func parsedOpenAPI(t *testing.T) (*openapi3.T, routers.Router) {
	t.Helper()
	openAPIOnce.Do(func() {
		loader := openapi3.NewLoader()
		openAPIParsed, openAPIErr = loader.LoadFromData(openAPIDocument)
		if openAPIErr == nil {
			openAPIErr = openAPIParsed.Validate(context.Background())
		}
		if openAPIErr == nil {
			openAPIRouter, openAPIErr = gorillamux.NewRouter(openAPIParsed)
		}
	})
	if openAPIErr != nil {
		t.Fatalf("openapi.json: %v", openAPIErr)
	}
	return openAPIParsed, openAPIRouter
}

// validateAnswer checks one answer of the handler against the document: the status must be
// documented for the request's operation and headers and body must match its schema. Answers
// to requests no route serves are checked against the router's documented 404/405 responses.
// Every handler test goes through it (harness.do), so document and code cannot drift.
func validateAnswer(t *testing.T, hr *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	doc, router := parsedOpenAPI(t)
	route, params, err := router.FindRoute(hr)
	if err != nil {
		var notFound *routers.RouteError
		if !errors.As(err, &notFound) {
			t.Fatalf("openapi: finding %s %s: %v", hr.Method, hr.URL.Path, err)
		}
		validateUnmatched(t, doc, hr, rec)
		return
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	input.SetBodyBytes(rec.Body.Bytes())
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		t.Errorf("openapi: %s %s answered %d, which the document does not allow: %v\nbody: %s",
			hr.Method, hr.URL.Path, rec.Code, err, rec.Body)
	}
	if hr.Method == http.MethodHead && route.Operation.Responses.Status(rec.Code) == nil {
		t.Errorf("openapi: HEAD %s answered %d, which the document does not list", hr.URL.Path, rec.Code)
	}
}

// validateUnmatched checks an answer to a path or method no operation documents: the router's
// own 404 or 405 (components.responses NotFound and MethodNotAllowed), or, for a /v1 path, a
// CORS preflight.
func validateUnmatched(t *testing.T, doc *openapi3.T, hr *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	var name string
	switch rec.Code {
	case http.StatusNotFound:
		name = "NotFound"
	case http.StatusMethodNotAllowed:
		name = "MethodNotAllowed"
	default:
		t.Errorf("openapi: %s %s is documented nowhere but answered %d: %s", hr.Method, hr.URL.Path, rec.Code, rec.Body)
		return
	}
	schema := doc.Components.Responses[name].Value.Content.Get("application/json").Schema.Value
	var body any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Errorf("openapi: %s answer is not JSON: %q", name, rec.Body)
		return
	}
	if err := schema.VisitJSON(body, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("openapi: %s %s: %d answer does not match components.responses.%s: %v", hr.Method, hr.URL.Path, rec.Code, name, err)
	}
}
