package apiserver

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// errorCodes is the enum of an error response's `error` field; nil when the response has no
// JSON body with one.
func errorCodes(resp *openapi3.ResponseRef) []string {
	if resp == nil || resp.Value == nil {
		return nil
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	prop := mt.Schema.Value.Properties["error"]
	if prop == nil {
		return nil
	}
	var out []string
	for _, v := range prop.Value.Enum {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// TestOpenAPICoversRoutesAndErrors derives the routes and their error codes from the route
// table (and, through TestMain, from what the handler tests provoked) and requires each to be
// documented with the right status; HEAD wherever GET is served (net/http's mux answers it),
// the CORS preflight on every /v1 path; nothing documented that no route serves.
func TestOpenAPICoversRoutesAndErrors(t *testing.T) {
	doc := loadedOpenAPI(t).T
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi version %q", doc.OpenAPI)
	}
	for _, rt := range routeTable {
		item := doc.Paths.Value(rt.path)
		if item == nil || item.GetOperation(rt.method) == nil {
			t.Errorf("%s is not in openapi.json", rt.pattern())
			continue
		}
		op := item.GetOperation(rt.method)
		for _, code := range rt.codes() {
			resp := op.Responses.Status(code.Status())
			if resp == nil {
				t.Errorf("%s: no %d response for %q", rt.pattern(), code.Status(), code)
				continue
			}
			if !slices.Contains(errorCodes(resp), string(code)) {
				t.Errorf("%s: %d response does not list %q (lists %v)", rt.pattern(), code.Status(), code, errorCodes(resp))
			}
		}
		if rt.method == http.MethodGet {
			head := item.GetOperation(http.MethodHead)
			if head == nil {
				t.Errorf("HEAD %s is served but not documented", rt.path)
			} else if got, want := slices.Sorted(maps.Keys(head.Responses.Map())), slices.Sorted(maps.Keys(op.Responses.Map())); !slices.Equal(got, want) {
				t.Errorf("HEAD %s documents statuses %v, GET %v", rt.path, got, want)
			}
		}
		if strings.HasPrefix(rt.path, "/v1/") {
			pre := item.GetOperation(http.MethodOptions)
			switch {
			case pre == nil:
				t.Errorf("the CORS preflight of %s is not documented", rt.path)
			case pre.Responses.Status(http.StatusNoContent) == nil || pre.Security == nil || len(*pre.Security) != 0:
				t.Errorf("OPTIONS %s: want a 204 answer and no authentication", rt.path)
			case !slices.Contains(errorCodes(pre.Responses.Status(http.StatusForbidden)), string(apierror.OriginNotAllowed)):
				t.Errorf("OPTIONS %s: 403 does not list %q", rt.path, apierror.OriginNotAllowed)
			}
		}
	}
	// Nothing documented that the router does not serve.
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			served := slices.ContainsFunc(routeTable, func(rt route) bool {
				return rt.path == path && (rt.method == method || rt.method == http.MethodGet && method == http.MethodHead)
			}) || method == http.MethodOptions && strings.HasPrefix(path, "/v1/")
			if !served {
				t.Errorf("openapi.json documents %s %s, which no route serves", method, path)
			}
		}
	}

	errorCode := doc.Components.Schemas["ErrorCode"].Value
	if errorCode.Type == nil || !errorCode.Type.Is("string") {
		t.Error("ErrorCode is not a typed string enum")
	}
	codes := errorCode.Enum
	for _, c := range apierror.Codes() {
		if !slices.Contains(codes, any(string(c))) {
			t.Errorf("ErrorCode schema lacks code %q", c)
		}
	}
	if len(codes) != len(apierror.Codes()) {
		t.Errorf("ErrorCode lists %d codes, the API has %d", len(codes), len(apierror.Codes()))
	}
	for _, c := range routerCodes {
		if !slices.ContainsFunc(slices.Collect(maps.Values(doc.Components.Responses)), func(r *openapi3.ResponseRef) bool {
			return slices.Contains(errorCodes(r), string(c))
		}) {
			t.Errorf("router code %q is not in components.responses", c)
		}
	}
}

// TestOpenAPIErrorsAreTypedEnums keeps the document friendly to code generators: every error
// response narrows `error` to a typed string enum (an enum without a type becomes interface{}
// in oapi-codegen), listing only codes the API has.
func TestOpenAPIErrorsAreTypedEnums(t *testing.T) {
	doc := loadedOpenAPI(t).T
	check := func(where string, resp *openapi3.ResponseRef) {
		mt := resp.Value.Content.Get("application/json")
		if mt == nil || mt.Schema.Value.Properties["error"] == nil {
			return
		}
		prop := mt.Schema.Value.Properties["error"]
		if prop.Ref == "" && (prop.Value.Type == nil || !prop.Value.Type.Is("string") || len(prop.Value.Enum) == 0) {
			t.Errorf("%s: `error` is not a typed string enum", where)
		}
		for _, c := range errorCodes(resp) {
			if !slices.Contains(apierror.Codes(), apierror.Code(c)) {
				t.Errorf("%s lists %q, which is no error code of the API", where, c)
			}
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				check(method+" "+path+" "+status, resp)
			}
		}
	}
	for name, resp := range doc.Components.Responses {
		check("components.responses."+name, resp)
	}
}

func TestOpenAPIServed(t *testing.T) {
	h := newHarness(t)
	rec := h.do(req{method: "GET", path: "/v1/openapi.json", noAuth: true})
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if !json.Valid(rec.Body.Bytes()) || rec.Body.Len() != len(openAPIDocument) {
		t.Error("served document differs from the embedded one")
	}
	rec = h.do(req{method: "HEAD", path: "/v1/openapi.json", noAuth: true})
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("HEAD: status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}
