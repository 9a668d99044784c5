package openapicheck

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const doc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/v1/things/{id}": {
      "get": {
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {
          "200": {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "required": ["id"], "properties": {"id": {"type": "string"}, "n": {"type": ["integer", "null"]}}}}}},
          "404": {"description": "missing", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
      },
      "head": {
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok"}}
      }
    }
  },
  "components": {
    "schemas": {"Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string", "enum": ["not found", "thing not found"]}}}},
    "responses": {
      "NotFound": {"description": "no route", "content": {"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/Error"}], "properties": {"error": {"type": "string", "enum": ["not found"]}}}}}},
      "MethodNotAllowed": {"description": "wrong method", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    }
  }
}`

func TestAnswer(t *testing.T) {
	d, err := Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	json := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name, method, path string
		status             int
		body               string
		wantErr            string // "" when the answer matches
	}{
		{"documented answer", "GET", "/v1/things/a", 200, `{"id":"a","n":null}`, ""},
		{"body off its schema", "GET", "/v1/things/a", 200, `{"n":1}`, "'id'"},
		{"3.1 type list", "GET", "/v1/things/a", 200, `{"id":"a","n":"x"}`, "n"},
		{"undocumented status", "GET", "/v1/things/a", 500, `{"error":"internal error"}`, "500"},
		{"error code off the enum", "GET", "/v1/things/a", 404, `{"error":"gone"}`, "gone"},
		{"HEAD with a documented status", "HEAD", "/v1/things/a", 200, ``, ""},
		{"HEAD with another status", "HEAD", "/v1/things/a", 404, ``, "does not list"},
		{"no route: the router's 404", "GET", "/v1/nothing", 404, `{"error":"not found"}`, ""},
		{"no route: a handler's code", "GET", "/v1/nothing", 404, `{"error":"thing not found"}`, "NotFound"},
		{"no route answered 200", "GET", "/v1/nothing", 200, `{}`, "documented nowhere"},
		{"wrong method: the router's 405", "DELETE", "/v1/things/a", 405, `{"error":"not found"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := d.Answer(httptest.NewRequest(tc.method, tc.path, nil), tc.status, json, []byte(tc.body))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected mismatch: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one naming %q", err, tc.wantErr)
			}
		})
	}
}
