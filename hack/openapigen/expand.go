package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// object is a decoded JSON object of the document.
type object = map[string]any

// The source's directives. The expansion consumes each of them; none reaches the document.
const (
	keyStandardHeaders = "x-standard-headers" // top level: headerRules
	keyPreflight       = "x-preflight"        // top level: a preflightRule
	keySharedResponses = "x-responses"        // top level: responses operations refer to
	keyHead            = "x-head"             // on a GET: fields of its HEAD twin that differ from the rule
	keyErrors          = "x-errors"           // on a response: the error codes of its JSON error body
)

var directiveKeys = []string{keyStandardHeaders, keyPreflight, keySharedResponses, keyHead, keyErrors}

// errorSchemaRef is the JSON body of every error answer; x-errors narrows its `error` field.
const errorSchemaRef = "#/components/schemas/Error"

// statedMethods are the methods the source writes operations for, in the order that picks the
// operation a path's preflight is named after. HEAD and OPTIONS are derived.
var statedMethods = []string{"get", "put", "post", "delete", "patch"}

// headerRule attaches standard headers (named in components.headers) to the responses of every
// operation that takes a key: to all of them, or only to Statuses, never to ExceptStatuses.
type headerRule struct {
	Headers        []string `json:"headers"`
	Statuses       []string `json:"statuses,omitempty"`
	ExceptStatuses []string `json:"exceptStatuses,omitempty"`
}

func (r headerRule) appliesTo(status string) bool {
	if len(r.Statuses) > 0 && !slices.Contains(r.Statuses, status) {
		return false
	}
	return !slices.Contains(r.ExceptStatuses, status)
}

// preflightRule is the CORS preflight (OPTIONS) of every path under PathPrefix.
type preflightRule struct {
	PathPrefix string `json:"pathPrefix"`
	Operation  object `json:"operation"`
}

type expander struct {
	doc             object
	standardHeaders []headerRule
	preflight       preflightRule
	shared          object
}

// expand turns the source (YAML) into the document (indented JSON, keys sorted):
//   - an operation's responses are written out in full: a $ref (to x-responses or
//     components.responses) becomes a copy of its target, because the standard headers differ
//     per operation;
//   - `x-errors: [codes]` on a response becomes the JSON error body whose `error` is one of codes;
//   - each x-standard-headers rule adds its headers to the responses of operations that take a
//     key (security not []);
//   - every GET gets its HEAD twin (headOf), every path under the preflight prefix its OPTIONS
//     (preflightOf).
func expand(source []byte) ([]byte, error) {
	doc, err := decode(source)
	if err != nil {
		return nil, err
	}
	e := &expander{doc: doc}
	if err := e.takeDirectives(); err != nil {
		return nil, err
	}
	if err := e.expandPaths(); err != nil {
		return nil, err
	}
	if err := e.expandComponentResponses(); err != nil {
		return nil, err
	}
	if where := leftoverDirective(doc, ""); where != "" {
		return nil, fmt.Errorf("%s: a directive where none is read", where)
	}
	return encode(doc)
}

func decode(source []byte) (object, error) {
	j, err := yaml.YAMLToJSONStrict(source)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var doc object
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, errors.New("empty source")
	}
	return doc, nil
}

func encode(doc object) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (e *expander) takeDirectives() error {
	if err := take(e.doc, keyStandardHeaders, &e.standardHeaders); err != nil {
		return err
	}
	if err := take(e.doc, keyPreflight, &e.preflight); err != nil {
		return err
	}
	if err := take(e.doc, keySharedResponses, &e.shared); err != nil {
		return err
	}
	for _, rule := range e.standardHeaders {
		for _, name := range rule.Headers {
			if lookup(e.doc, "components", "headers", name) == nil {
				return fmt.Errorf("%s: components.headers has no %s", keyStandardHeaders, name)
			}
		}
	}
	return nil
}

// take removes key from o and decodes its value into out, rejecting unknown fields; an absent
// key leaves out as it is.
func take(o object, key string, out any) error {
	v, ok := o[key]
	if !ok {
		return nil
	}
	delete(o, key)
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

func (e *expander) expandPaths() error {
	paths, _ := e.doc["paths"].(object)
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item, ok := paths[path].(object)
		if !ok {
			return fmt.Errorf("paths.%s is not an object", path)
		}
		if err := e.expandPath(path, item); err != nil {
			return fmt.Errorf("paths.%s: %w", path, err)
		}
	}
	return nil
}

func (e *expander) expandPath(path string, item object) error {
	for _, derived := range []string{"head", "options"} {
		if _, ok := item[derived]; ok {
			return fmt.Errorf("%s is derived; the source does not state it", derived)
		}
	}
	var first object
	for _, method := range statedMethods {
		if _, ok := item[method]; !ok {
			continue
		}
		op, ok := item[method].(object)
		if !ok {
			return fmt.Errorf("%s is not an object", method)
		}
		if err := e.expandResponses(op); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if method == "get" {
			head, err := headOf(op)
			if err != nil {
				return fmt.Errorf("get: %w", err)
			}
			item["head"] = head
		}
		if first == nil {
			first = op
		}
	}
	if e.preflight.Operation == nil || !strings.HasPrefix(path, e.preflight.PathPrefix) {
		return nil
	}
	if first == nil {
		return errors.New("no operation to name the preflight after")
	}
	pre, err := e.preflightOf(first)
	if err != nil {
		return fmt.Errorf("options: %w", err)
	}
	item["options"] = pre
	return nil
}

func (e *expander) expandResponses(op object) error {
	responses, ok := op["responses"].(object)
	if !ok {
		return errors.New("no responses")
	}
	keyed := e.takesKey(op)
	for status, r := range responses {
		resp, err := e.resolve(r)
		if err == nil && keyed {
			err = e.attachStandardHeaders(resp, status)
		}
		if err != nil {
			return fmt.Errorf("response %s: %w", status, err)
		}
		responses[status] = resp
	}
	return nil
}

// takesKey reports whether the operation's security (its own, else the document's) asks for a
// key: only those answers pass the rate limiter. `security: []` marks a public operation.
func (e *expander) takesKey(op object) bool {
	security, ok := op["security"]
	if !ok {
		security = e.doc["security"]
	}
	s, _ := security.([]any)
	return len(s) > 0
}

// resolve is the response written out in full.
func (e *expander) resolve(r any) (object, error) {
	resp, ok := r.(object)
	if !ok {
		return nil, errors.New("not an object")
	}
	if ref, ok := resp["$ref"].(string); ok {
		target, err := e.responseAt(ref)
		if err != nil {
			return nil, err
		}
		resp = clone(target).(object)
	}
	return resp, expandErrors(resp)
}

func (e *expander) responseAt(ref string) (object, error) {
	var target any
	if name, ok := strings.CutPrefix(ref, "#/"+keySharedResponses+"/"); ok {
		target = e.shared[name]
	} else if name, ok := strings.CutPrefix(ref, "#/components/responses/"); ok {
		target = lookup(e.doc, "components", "responses", name)
	}
	resp, ok := target.(object)
	if !ok {
		return nil, fmt.Errorf("%s names no response", ref)
	}
	if _, ok := resp["$ref"]; ok {
		return nil, fmt.Errorf("%s is itself a reference", ref)
	}
	return resp, nil
}

// expandErrors turns `x-errors: [codes]` into the JSON error body whose `error` is one of
// codes, a typed string enum (code generators make an untyped enum interface{}).
func expandErrors(resp object) error {
	codes, ok := resp[keyErrors]
	if !ok {
		return nil
	}
	if list, _ := codes.([]any); len(list) == 0 {
		return fmt.Errorf("%s is not a list of error codes", keyErrors)
	}
	if _, ok := resp["content"]; ok {
		return fmt.Errorf("both %s and content", keyErrors)
	}
	delete(resp, keyErrors)
	resp["content"] = object{"application/json": object{"schema": object{
		"allOf":      []any{object{"$ref": errorSchemaRef}},
		"properties": object{"error": object{"type": "string", "enum": codes}},
	}}}
	return nil
}

func (e *expander) attachStandardHeaders(resp object, status string) error {
	for _, rule := range e.standardHeaders {
		if !rule.appliesTo(status) {
			continue
		}
		headers, _ := resp["headers"].(object)
		if headers == nil {
			headers = object{}
			resp["headers"] = headers
		}
		for _, name := range rule.Headers {
			if _, ok := headers[name]; ok {
				return fmt.Errorf("states %s, which %s adds", name, keyStandardHeaders)
			}
			headers[name] = object{"$ref": "#/components/headers/" + name}
		}
	}
	return nil
}

// headOf is the HEAD twin of a GET (net/http answers HEAD wherever GET is served): the same
// operation named <operationId>Head and "<summary> (headers only)", its responses without
// bodies; x-head on the GET overrides single fields.
func headOf(get object) (object, error) {
	id, _ := get["operationId"].(string)
	summary, _ := get["summary"].(string)
	if id == "" || summary == "" {
		return nil, errors.New("a GET needs an operationId and a summary to name its HEAD")
	}
	var overrides object
	if err := take(get, keyHead, &overrides); err != nil {
		return nil, err
	}
	head := clone(get).(object)
	head["operationId"] = id + "Head"
	head["summary"] = summary + " (headers only)"
	head["description"] = "As GET, without a body."
	for _, r := range head["responses"].(object) {
		delete(r.(object), "content")
	}
	maps.Copy(head, overrides)
	return head, nil
}

// preflightOf is the CORS preflight of the path whose first stated operation is op: the
// preflight rule's operation named <operationId>Preflight, with op's path parameters (every
// template parameter must be declared) before its own.
func (e *expander) preflightOf(op object) (object, error) {
	id, _ := op["operationId"].(string)
	if id == "" {
		return nil, errors.New("the operation to name the preflight after has no operationId")
	}
	pre := clone(e.preflight.Operation).(object)
	pre["operationId"] = id + "Preflight"
	var params []any
	stated, _ := op["parameters"].([]any)
	for _, p := range stated {
		if p, ok := p.(object); ok && p["in"] == "path" {
			params = append(params, clone(p))
		}
	}
	own, _ := pre["parameters"].([]any)
	if params = append(params, own...); len(params) > 0 {
		pre["parameters"] = params
	}
	return pre, nil
}

func (e *expander) expandComponentResponses() error {
	responses, _ := lookup(e.doc, "components", "responses").(object)
	for _, name := range slices.Sorted(maps.Keys(responses)) {
		resp, ok := responses[name].(object)
		if !ok {
			return fmt.Errorf("components.responses.%s is not an object", name)
		}
		if err := expandErrors(resp); err != nil {
			return fmt.Errorf("components.responses.%s: %w", name, err)
		}
	}
	return nil
}

// leftoverDirective is where a directive sits that the expansion did not read (an x-head on a
// POST, say), or "".
func leftoverDirective(v any, where string) string {
	switch v := v.(type) {
	case object:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if slices.Contains(directiveKeys, k) {
				return where + "." + k
			}
			if w := leftoverDirective(v[k], where+"."+k); w != "" {
				return w
			}
		}
	case []any:
		for i, x := range v {
			if w := leftoverDirective(x, fmt.Sprintf("%s[%d]", where, i)); w != "" {
				return w
			}
		}
	}
	return ""
}

func lookup(v any, keys ...string) any {
	for _, k := range keys {
		o, ok := v.(object)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

func clone(v any) any {
	switch v := v.(type) {
	case object:
		c := make(object, len(v))
		for k, x := range v {
			c[k] = clone(x)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = clone(x)
		}
		return c
	}
	return v
}
