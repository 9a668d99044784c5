package apiserver

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// errorField is the schema of an error response's `error` field; nil when the response has no
// JSON body with one.
func errorField(resp *openapi3.ResponseRef) *openapi3.Schema {
	if resp == nil || resp.Value == nil {
		return nil
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	if prop := mt.Schema.Value.Properties["error"]; prop != nil {
		return prop.Value
	}
	return nil
}

// errorCodes are the fixed codes an error response's `error` field lists (its enum, or the
// enum among its anyOf); nil when the response has no JSON body with one.
func errorCodes(resp *openapi3.ResponseRef) []string {
	field := errorField(resp)
	if field == nil {
		return nil
	}
	var out []string
	for _, s := range append([]*openapi3.SchemaRef{{Value: field}}, field.AnyOf...) {
		for _, v := range s.Value.Enum {
			if c, ok := v.(string); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// errorPatterns are the code patterns among the anyOf of an error response's `error` field.
func errorPatterns(resp *openapi3.ResponseRef) []string {
	var out []string
	if field := errorField(resp); field != nil {
		for _, s := range field.AnyOf {
			if s.Value.Pattern != "" {
				out = append(out, s.Value.Pattern)
			}
		}
	}
	return out
}

// routerWideCodes are the codes the router answers for a route whatever its handler does:
// internal error, the authentication and limit refusals of keyed routes, the body refusals
// of POSTs.
func routerWideCodes(rt route) []apierror.Code {
	out := []apierror.Code{apierror.Internal}
	if !rt.public {
		out = append(out, apierror.Unauthorized, apierror.OriginNotAllowed, apierror.RateLimitExceeded)
	}
	if rt.method == http.MethodPost {
		out = append(out, apierror.BodyTooLarge, apierror.InvalidRequest)
	}
	return out
}

// TestOpenAPICoversRoutesAndErrors requires every route of the table to be documented with
// the codes the router answers for it, and every code the source lists for it (the generated
// documentedErrors; TestMain checks the handler tests' answers against them) to be listed under
// that code's status; HEAD wherever GET is served (net/http's mux answers it), the CORS
// preflight on every /v1 path; nothing documented that no route serves.
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
		for _, code := range routerWideCodes(rt) {
			if !rt.documents(code) {
				t.Errorf("%s: the router answers %q, which the source does not list", rt.pattern(), code)
			}
		}
		if len(documentedErrors[rt.pattern()]) == 0 {
			t.Errorf("%s: no documented errors (is zz_generated.errors.go stale?)", rt.pattern())
		}
		for _, d := range documentedErrors[rt.pattern()] {
			resp := op.Responses.Status(d.status)
			switch {
			case resp == nil:
				t.Errorf("%s: no %d response, where the table lists %+v", rt.pattern(), d.status, d)
			case d.pattern == nil && !slices.Contains(errorCodes(resp), string(d.code)):
				t.Errorf("%s: %d response does not list %q (lists %v)", rt.pattern(), d.status, d.code, errorCodes(resp))
			case d.pattern != nil && !slices.Contains(errorPatterns(resp), d.pattern.String()):
				t.Errorf("%s: %d response has no code pattern %s", rt.pattern(), d.status, d.pattern)
			}
			codes := slices.DeleteFunc(apierror.Codes(), func(c apierror.Code) bool { return !d.matches(c) })
			if len(codes) == 0 {
				t.Errorf("%s: %+v stands for no error code of the API", rt.pattern(), d)
			}
			for _, c := range codes {
				if c.Status() != d.status {
					t.Errorf("%s: %q is listed under %d, its status is %d", rt.pattern(), c, d.status, c.Status())
				}
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

	// The Error schema's `error` is any of ErrorCode (the fixed codes) and the code patterns:
	// each code of the API is exactly one of them.
	errorCode := doc.Components.Schemas["ErrorCode"].Value
	if errorCode.Type == nil || !errorCode.Type.Is("string") {
		t.Error("ErrorCode is not a typed string enum")
	}
	field := doc.Components.Schemas["Error"].Value.Properties["error"].Value
	fixed := 0
	for _, c := range apierror.Codes() {
		inEnum := slices.Contains(errorCode.Enum, any(string(c)))
		matched := slices.ContainsFunc(field.AnyOf, func(s *openapi3.SchemaRef) bool {
			return s.Value.Pattern != "" && regexp.MustCompile(s.Value.Pattern).MatchString(string(c))
		})
		if inEnum == matched {
			t.Errorf("code %q: in ErrorCode %v, matched by a code pattern %v; want exactly one", c, inEnum, matched)
		}
		if inEnum {
			fixed++
		}
	}
	if len(errorCode.Enum) != fixed {
		t.Errorf("ErrorCode lists %d codes, the API has %d with a fixed text", len(errorCode.Enum), fixed)
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
// in oapi-codegen), or to any of such an enum and code patterns with a Go type hint (oapi-codegen
// makes a JSON union of an anyOf otherwise), listing only codes the API has.
func TestOpenAPIErrorsAreTypedEnums(t *testing.T) {
	doc := loadedOpenAPI(t).T
	typedEnum := func(s *openapi3.Schema) bool {
		return s.Type != nil && s.Type.Is("string") && (len(s.Enum) > 0 || s.Pattern != "")
	}
	check := func(where string, resp *openapi3.ResponseRef) {
		mt := resp.Value.Content.Get("application/json")
		if mt == nil || mt.Schema.Value.Properties["error"] == nil {
			return
		}
		prop := mt.Schema.Value.Properties["error"]
		switch v := prop.Value; {
		case prop.Ref != "":
		case len(v.AnyOf) > 0:
			if v.Extensions["x-go-type"] == nil || slices.ContainsFunc(v.AnyOf, func(s *openapi3.SchemaRef) bool { return !typedEnum(s.Value) }) {
				t.Errorf("%s: `error` is an anyOf without x-go-type, or of other than typed enums and patterns", where)
			}
		case !typedEnum(v) || len(v.Enum) == 0:
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
