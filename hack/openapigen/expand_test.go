package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// tinySource has one keyed GET under the preflight prefix and one public GET outside it.
const tinySource = `
openapi: 3.1.0
info: {title: tiny, version: "1"}
security:
- {key: []}
x-standard-headers:
- headers: [X-Limit]
  exceptStatuses: ['401']
- {headers: [Retry-After], statuses: ['429']}
x-preflight:
  pathPrefix: /v1/
  operation:
    summary: CORS preflight
    security: []
    parameters:
    - {$ref: '#/components/parameters/Origin'}
    responses:
      '204': {description: Allowed.}
      '500': {$ref: '#/components/responses/InternalError'}
x-responses:
  Unauthorized:
    description: No key.
    x-errors: [unauthorized]
paths:
  /v1/things/{id}:
    get:
      operationId: getThing
      summary: Get a thing
      description: The thing, by id.
      tags: [things]
      parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
      - {name: fields, in: query, schema: {type: string}}
      responses:
        '200':
          description: The thing.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
          headers:
            ETag: {schema: {type: string}}
        '401': {$ref: '#/x-responses/Unauthorized'}
        '429':
          description: Slow down.
          x-errors: [rate limit exceeded]
        '500': {$ref: '#/components/responses/InternalError'}
  /healthz:
    get:
      operationId: healthz
      summary: Liveness
      description: Alive.
      security: []
      responses:
        '200': {description: Alive.}
        '500': {$ref: '#/components/responses/InternalError'}
components:
  headers:
    X-Limit: {schema: {type: integer}}
    Retry-After: {schema: {type: integer}}
  parameters:
    Origin: {name: Origin, in: header, schema: {type: string}}
  schemas:
    Thing:
      type: object
      properties:
        zeta: {type: string}
        alpha: {type: string}
  responses:
    InternalError:
      description: Internal error.
      x-errors: [internal error]
    MethodNotAllowed:
      description: Wrong method.
      x-errors: [method not allowed]
      headers:
        Allow: {schema: {type: string}}
`

// expandJSON expands the source and reads the JSON back with its key order (JSON is YAML).
func expandJSON(t *testing.T, source string) *object {
	t.Helper()
	x, err := expand([]byte(source))
	if err != nil {
		t.Fatalf("expand: %v", err)
	}
	out := x.document
	if !json.Valid(out) {
		t.Fatalf("output is no JSON:\n%s", out)
	}
	doc, err := decode(out)
	if err != nil {
		t.Fatalf("reading the output back: %v", err)
	}
	return doc
}

func parseJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return v
}

// assertJSON compares got with want as JSON values (key order aside).
func assertJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	g, err := marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if w := parseJSON(t, want); !reflect.DeepEqual(parseJSON(t, string(g)), w) {
		t.Errorf("%s:\n%s\nwant\n%s", what, g, want)
	}
}

const (
	limit      = `{"$ref": "#/components/headers/X-Limit"}`
	retryAfter = `{"$ref": "#/components/headers/Retry-After"}`
)

func errorBody(code string) string {
	return `{"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/Error"}],
		"properties": {"error": {"type": "string", "enum": ["` + code + `"]}}}}}`
}

// The GET's responses are written out in full (shared and component responses copied in, error
// codes turned into the error body) and carry the standard headers by rule: none on 401,
// Retry-After only on 429.
func TestExpandWritesOutResponsesWithStandardHeaders(t *testing.T) {
	doc := expandJSON(t, tinySource)
	assertJSON(t, "GET /v1/things/{id} responses", lookup(doc, "paths", "/v1/things/{id}", "get", "responses"), `{
		"200": {"description": "The thing.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}},
			"headers": {"X-Limit": `+limit+`, "ETag": {"schema": {"type": "string"}}}},
		"401": {"description": "No key.", "content": `+errorBody("unauthorized")+`},
		"429": {"description": "Slow down.", "content": `+errorBody("rate limit exceeded")+`,
			"headers": {"X-Limit": `+limit+`, "Retry-After": `+retryAfter+`}},
		"500": {"description": "Internal error.", "content": `+errorBody("internal error")+`,
			"headers": {"X-Limit": `+limit+`}}
	}`)
	// A public operation takes no key, so the rate limiter never sees it.
	assertJSON(t, "GET /healthz responses", lookup(doc, "paths", "/healthz", "get", "responses"), `{
		"200": {"description": "Alive."},
		"500": {"description": "Internal error.", "content": `+errorBody("internal error")+`}
	}`)
	// The component stays as stated (the preflight refers to it), without any operation's headers.
	assertJSON(t, "components.responses", lookup(doc, "components", "responses"), `{
		"InternalError": {"description": "Internal error.", "content": `+errorBody("internal error")+`},
		"MethodNotAllowed": {"description": "Wrong method.", "content": `+errorBody("method not allowed")+`,
			"headers": {"Allow": {"schema": {"type": "string"}}}}
	}`)
}

// Properties are numbered in the source's order, for generators that would sort them.
func TestExpandNumbersProperties(t *testing.T) {
	doc := expandJSON(t, tinySource)
	assertJSON(t, "Thing", lookup(doc, "components", "schemas", "Thing"), `{"type": "object", "properties": {
		"zeta": {"type": "string", "x-order": 1}, "alpha": {"type": "string", "x-order": 2}}}`)
}

// withCodePattern is the tiny source whose 429 also lists a code schema with a pattern.
var withCodePattern = strings.NewReplacer(
	"          x-errors: [rate limit exceeded]\n", "          x-errors: [rate limit exceeded, {$ref: '#/components/schemas/Busy'}]\n",
	"  schemas:\n", "  schemas:\n    Busy: {type: string, pattern: '^busy \\(.+\\)$'}\n",
).Replace(tinySource)

// A {$ref} entry of x-errors makes `error` any of the codes and the pattern's schema, with a
// Go type hint so that generators keep it a string.
func TestExpandErrorsWithACodePattern(t *testing.T) {
	doc := expandJSON(t, withCodePattern)
	assertJSON(t, "429 error field", lookup(doc, "paths", "/v1/things/{id}", "get", "responses", "429", "content",
		"application/json", "schema", "properties", "error"), `{
		"anyOf": [{"type": "string", "enum": ["rate limit exceeded"]}, {"$ref": "#/components/schemas/Busy"}],
		"x-go-type": "string"
	}`)
}

// Every stated operation's errors are kept, by route pattern and status, in the order the
// document lists them, and become the Go table.
func TestExpandKeepsTheOperationsErrors(t *testing.T) {
	x, err := expand([]byte(withCodePattern))
	if err != nil {
		t.Fatal(err)
	}
	want := []operationErrors{
		{Route: "GET /v1/things/{id}", Errors: []documentedError{
			{Status: 401, Code: "unauthorized"},
			{Status: 429, Code: "rate limit exceeded"},
			{Status: 429, Pattern: `^busy \(.+\)$`},
			{Status: 500, Code: "internal error"},
		}},
		{Route: "GET /healthz", Errors: []documentedError{{Status: 500, Code: "internal error"}}},
	}
	if !reflect.DeepEqual(x.operations, want) {
		t.Fatalf("operations %+v\nwant %+v", x.operations, want)
	}
	table, err := goErrorTable("apiserver", "openapi-source.yaml", x.operations)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"package apiserver\n",
		"import \"regexp\"\n",
		`	"GET /v1/things/{id}": {` + "\n",
		"		{status: 429, code: \"rate limit exceeded\"},\n",
		"		{status: 429, pattern: regexp.MustCompile(\"^busy \\\\(.+\\\\)$\")},\n",
		`	"GET /healthz": {` + "\n",
	} {
		if !strings.Contains(string(table), line) {
			t.Errorf("the table lacks %q:\n%s", line, table)
		}
	}
}

// HEAD is the GET without bodies: same parameters, tags and response headers, named by rule.
func TestExpandDerivesHeadFromGet(t *testing.T) {
	doc := expandJSON(t, tinySource)
	assertJSON(t, "HEAD /v1/things/{id}", lookup(doc, "paths", "/v1/things/{id}", "head"), `{
		"operationId": "getThingHead",
		"summary": "Get a thing (headers only)",
		"description": "As GET, without a body.",
		"tags": ["things"],
		"parameters": [
			{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
			{"name": "fields", "in": "query", "schema": {"type": "string"}}
		],
		"responses": {
			"200": {"description": "The thing.", "headers": {"X-Limit": `+limit+`, "ETag": {"schema": {"type": "string"}}}},
			"401": {"description": "No key."},
			"429": {"description": "Slow down.", "headers": {"X-Limit": `+limit+`, "Retry-After": `+retryAfter+`}},
			"500": {"description": "Internal error.", "headers": {"X-Limit": `+limit+`}}
		}
	}`)
	assertJSON(t, "HEAD /healthz", lookup(doc, "paths", "/healthz", "head"), `{
		"operationId": "healthzHead",
		"summary": "Liveness (headers only)",
		"description": "As GET, without a body.",
		"security": [],
		"responses": {"200": {"description": "Alive."}, "500": {"description": "Internal error."}}
	}`)
}

func TestExpandHeadOverrides(t *testing.T) {
	source := strings.Replace(tinySource, "      tags: [things]\n",
		"      tags: [things]\n      x-head: {summary: Things (headers only), tags: []}\n", 1)
	doc := expandJSON(t, source)
	head := lookup(doc, "paths", "/v1/things/{id}", "head").(*object)
	if head.get("summary") != "Things (headers only)" || !reflect.DeepEqual(head.get("tags"), []any{}) || head.get("operationId") != "getThingHead" {
		t.Errorf("x-head not applied over the rule: %v", head)
	}
	if lookup(doc, "paths", "/v1/things/{id}", "get").(*object).has(keyHead) {
		t.Error("x-head reached the document")
	}
}

// The preflight goes to every path under the prefix, named after the path's operation, with its
// path parameters first; its responses stay references.
func TestExpandAddsPreflightUnderPrefix(t *testing.T) {
	doc := expandJSON(t, tinySource)
	assertJSON(t, "OPTIONS /v1/things/{id}", lookup(doc, "paths", "/v1/things/{id}", "options"), `{
		"operationId": "getThingPreflight",
		"summary": "CORS preflight",
		"security": [],
		"parameters": [
			{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
			{"$ref": "#/components/parameters/Origin"}
		],
		"responses": {"204": {"description": "Allowed."}, "500": {"$ref": "#/components/responses/InternalError"}}
	}`)
	if pre := lookup(doc, "paths", "/healthz", "options"); pre != nil {
		t.Errorf("/healthz is outside the prefix but got a preflight: %v", pre)
	}
	for _, key := range []string{keyStandardHeaders, keyPreflight, keySharedResponses} {
		if doc.has(key) {
			t.Errorf("%s reached the document", key)
		}
	}
}

func TestExpandRejects(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"a stated HEAD", "  /healthz:\n", "  /healthz:\n    head: {responses: {}}\n", "head is derived"},
		{"a reference to nothing", "'#/x-responses/Unauthorized'", "'#/x-responses/Missing'", "#/x-responses/Missing names no response"},
		{"a standard header stated by hand", "          description: Slow down.\n",
			"          description: Slow down.\n          headers: {Retry-After: {schema: {type: integer}}}\n", "states Retry-After"},
		{"a rule naming an unknown header", "headers: [X-Limit]", "headers: [X-Limits]", "components.headers has no X-Limits"},
		{"a misspelt rule field", "exceptStatuses:", "exceptStatus:", `unknown field "exceptStatus"`},
		{"a directive where none is read", "      summary: Liveness\n", "      summary: Liveness\n      x-errors: [oops]\n", ".paths./healthz.get.x-errors"},
		{"a key stated twice", "      summary: Liveness\n", "      summary: Liveness\n      summary: Alive\n", "summary stated twice"},
		{"an x-errors entry that is no code", "x-errors: [rate limit exceeded]", "x-errors: [{code: 1}]", "is neither a code nor"},
		{"an x-errors entry naming a schema without pattern", "x-errors: [rate limit exceeded]",
			"x-errors: [{$ref: '#/components/schemas/Thing'}]", "#/components/schemas/Thing is no string schema with a pattern"},
		{"a property with its own x-order", "zeta: {type: string}", "zeta: {type: string, x-order: 9}", "zeta states x-order"},
		{"both x-errors and content", "          x-errors: [rate limit exceeded]\n",
			"          x-errors: [rate limit exceeded]\n          content: {}\n", "both x-errors and content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			source := strings.Replace(tinySource, tc.old, tc.new, 1)
			if source == tinySource {
				t.Fatalf("%q is not in the tiny source", tc.old)
			}
			_, err := expand([]byte(source))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// The document lists keys as the source does; derived operations follow the GET, their fields
// in the GET's order, an error body stands where its x-errors stood, and the standard headers
// come before a response's own.
func TestExpandKeepsTheSourceOrder(t *testing.T) {
	doc := expandJSON(t, tinySource)
	for _, tc := range []struct {
		at   []string
		want []string
	}{
		{[]string{"paths"}, []string{"/v1/things/{id}", "/healthz"}},
		{[]string{"paths", "/v1/things/{id}"}, []string{"get", "head", "options"}},
		{[]string{"paths", "/v1/things/{id}", "head"}, []string{"operationId", "summary", "description", "tags", "parameters", "responses"}},
		{[]string{"paths", "/v1/things/{id}", "options"}, []string{"operationId", "summary", "security", "parameters", "responses"}},
		{[]string{"paths", "/v1/things/{id}", "get", "responses", "200", "headers"}, []string{"X-Limit", "ETag"}},
		{[]string{"paths", "/v1/things/{id}", "get", "responses", "401"}, []string{"description", "content"}},
		{[]string{"components", "responses", "MethodNotAllowed"}, []string{"description", "content", "headers"}},
		{[]string{"components", "schemas", "Thing", "properties"}, []string{"zeta", "alpha"}},
	} {
		o, _ := lookup(doc, tc.at...).(*object)
		if got := o.fields(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: keys %v, want %v", strings.Join(tc.at, "."), got, tc.want)
		}
	}
}
