// Package openapicheck validates HTTP answers against the /v1 OpenAPI document with
// kin-openapi, so the handler tests and the whole-system suites catch any drift between the
// document and what the service answers.
package openapicheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Doc is a loaded, valid document and its router. The gorillamux router, because the legacy
// one matches /v1/order to /v1/order/{id} with an empty id.
type Doc struct {
	T      *openapi3.T
	router routers.Router
}

// Load parses and validates data.
func Load(data []byte) (*Doc, error) {
	t, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, err
	}
	if err := t.Validate(context.Background()); err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(t)
	if err != nil {
		return nil, err
	}
	return &Doc{T: t, router: router}, nil
}

// Answer checks the answer (status, header, body) to req: the status must be documented for
// the request's operation and the headers and body must match it. A request no operation
// documents must have been answered with the router's 404 or 405 (components.responses
// NotFound, MethodNotAllowed). HEAD answers are checked for their status only.
func (d *Doc) Answer(req *http.Request, status int, header http.Header, body []byte) error {
	route, params, err := d.router.FindRoute(req)
	if err != nil {
		var unmatched *routers.RouteError
		if !errors.As(err, &unmatched) {
			return fmt.Errorf("finding %s %s: %w", req.Method, req.URL.Path, err)
		}
		return d.unmatched(req, status, body)
	}
	if req.Method == http.MethodHead { // kin-openapi skips HEAD
		if route.Operation.Responses.Status(status) == nil {
			return fmt.Errorf("HEAD %s answered %d, which the document does not list", req.URL.Path, status)
		}
		return nil
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("%s %s answered %d, which the document does not allow: %w\nbody: %s", req.Method, req.URL.Path, status, err, body)
	}
	return nil
}

func (d *Doc) unmatched(req *http.Request, status int, body []byte) error {
	name := map[int]string{http.StatusNotFound: "NotFound", http.StatusMethodNotAllowed: "MethodNotAllowed"}[status]
	if name == "" {
		return fmt.Errorf("%s %s is documented nowhere but answered %d: %s", req.Method, req.URL.Path, status, body)
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("%s %s: the %d answer is not JSON: %q", req.Method, req.URL.Path, status, body)
	}
	schema := d.T.Components.Responses[name].Value.Content.Get("application/json").Schema.Value
	if err := schema.VisitJSON(value, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("%s %s: the %d answer does not match components.responses.%s: %w", req.Method, req.URL.Path, status, name, err)
	}
	return nil
}
