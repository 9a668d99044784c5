package apiserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

type openAPIDoc struct {
	OpenAPI    string                                 `json:"openapi"`
	Paths      map[string]map[string]openAPIOperation `json:"paths"`
	Components struct {
		Schemas   map[string]json.RawMessage `json:"schemas"`
		Responses map[string]openAPIResponse `json:"responses"`
	} `json:"components"`
}

type openAPIOperation struct {
	Responses map[string]openAPIResponse `json:"responses"`
}

type openAPIResponse struct {
	Content map[string]struct {
		Schema struct {
			Properties struct {
				Error struct {
					Enum []string `json:"enum"`
				} `json:"error"`
			} `json:"properties"`
		} `json:"schema"`
	} `json:"content"`
}

// errorCodes is the enum of an error response's `error` field.
func (r openAPIResponse) errorCodes() []string {
	return r.Content["application/json"].Schema.Properties.Error.Enum
}

func loadOpenAPI(t *testing.T) openAPIDoc {
	t.Helper()
	var doc openAPIDoc
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi version %q", doc.OpenAPI)
	}
	return doc
}

// TestOpenAPICoversRoutesAndErrors derives the routes and their error codes from the route
// table (and, through TestMain, from what the handler tests provoked) and requires each to be
// documented with the right status.
func TestOpenAPICoversRoutesAndErrors(t *testing.T) {
	doc := loadOpenAPI(t)
	documented := 0
	for _, rt := range routeTable {
		op, ok := doc.Paths[rt.path][strings.ToLower(rt.method)]
		if !ok {
			t.Errorf("%s is not in openapi.json", rt.pattern())
			continue
		}
		documented++
		for _, code := range rt.codes() {
			resp, ok := op.Responses[strconv.Itoa(code.Status())]
			if !ok {
				t.Errorf("%s: no %d response for %q", rt.pattern(), code.Status(), code)
				continue
			}
			if !slices.Contains(resp.errorCodes(), string(code)) {
				t.Errorf("%s: %d response does not list %q (lists %v)", rt.pattern(), code.Status(), code, resp.errorCodes())
			}
		}
	}
	// Nothing documented that the router does not serve.
	operations := 0
	for path, ops := range doc.Paths {
		for method := range ops {
			operations++
			if !slices.ContainsFunc(routeTable, func(rt route) bool {
				return rt.path == path && strings.EqualFold(rt.method, method)
			}) {
				t.Errorf("openapi.json documents %s %s, which no route serves", method, path)
			}
		}
	}
	if operations != documented {
		t.Errorf("%d documented operations, %d routes", operations, documented)
	}

	var errSchema struct {
		Properties struct {
			Error struct {
				Enum []string `json:"enum"`
			} `json:"error"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Components.Schemas["Error"], &errSchema); err != nil {
		t.Fatal(err)
	}
	for _, c := range apierror.Codes() {
		if !slices.Contains(errSchema.Properties.Error.Enum, string(c)) {
			t.Errorf("Error schema lacks code %q", c)
		}
	}
	for _, c := range routerCodes {
		found := false
		for _, r := range doc.Components.Responses {
			found = found || slices.Contains(r.errorCodes(), string(c))
		}
		if !found {
			t.Errorf("router code %q is not in components.responses", c)
		}
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
}
