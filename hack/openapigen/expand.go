package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The source's directives. The expansion consumes each of them; none reaches the document.
const (
	keyStandardHeaders = "x-standard-headers" // top level: headerRules
	keyPreflight       = "x-preflight"        // top level: pathPrefix and the preflight operation
	keySharedResponses = "x-responses"        // top level: responses operations refer to
	keyHead            = "x-head"             // on a GET: fields of its HEAD twin that differ from the rule
	keyErrors          = "x-errors"           // on a response: the error codes of its JSON error body
)

// orderHint numbers a schema's properties in the order the source states them: oapi-codegen
// sorts struct fields by name otherwise, and the server's generated types would write JSON
// in another order than the document (and than the answers of earlier versions).
const orderHint = "x-order"

// goTypeHint tells oapi-codegen the Go type of an error field whose codes are a union (a
// fixed list and patterns): it would make a JSON union type of it otherwise.
const goTypeHint = "x-go-type"

var directiveKeys = []string{keyStandardHeaders, keyPreflight, keySharedResponses, keyHead, keyErrors}

// errorSchemaRef is the JSON body of every error answer; x-errors narrows its `error` field.
const errorSchemaRef = "#/components/schemas/Error"

// codeSchemaPrefix is where x-errors finds a code whose text is a pattern (a $ref entry).
const codeSchemaPrefix = "#/components/schemas/"

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

// documentedError is one x-errors entry of a stated operation's response: a code with a fixed
// text, or the pattern of a code whose text depends on the installation.
type documentedError struct {
	Status  int
	Code    string
	Pattern string
}

// operationErrors are the documented errors of one stated operation, named by its route
// pattern ("POST /v1/order").
type operationErrors struct {
	Route  string
	Errors []documentedError
}

// expansion is what expand makes: the document, and every stated operation's errors.
type expansion struct {
	document   []byte
	operations []operationErrors
}

type expander struct {
	doc             *object
	operations      []operationErrors
	standardHeaders []headerRule
	preflightPrefix string
	preflight       *object // the CORS preflight (OPTIONS) of every path under preflightPrefix
	shared          *object
}

// expand turns the source (YAML) into the document (indented JSON, keys in the source's order):
//   - an operation's responses are written out in full: a $ref (to x-responses or
//     components.responses) becomes a copy of its target, because the standard headers differ
//     per operation;
//   - `x-errors: [codes]` on a response becomes the JSON error body whose `error` is one of codes
//     (an entry {$ref: #/components/schemas/NAME} names a code schema with a pattern), and the
//     stated operations' errors are kept for the Go table (goErrorTable);
//   - each x-standard-headers rule adds its headers, before the response's own, to the responses
//     of operations that take a key (security not []);
//   - every GET gets its HEAD twin (headOf) after it, every path under the preflight prefix its
//     OPTIONS (preflightOf) last;
//   - every schema property gets x-order, its place in the source (numberProperties).
func expand(source []byte) (*expansion, error) {
	doc, err := decode(source)
	if err != nil {
		return nil, err
	}
	// Before the expansion, which adds error bodies whose one property needs no place.
	if err := numberProperties(doc); err != nil {
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
	out, err := encode(doc)
	if err != nil {
		return nil, err
	}
	return &expansion{document: out, operations: e.operations}, nil
}

func decode(source []byte) (*object, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(source, &n); err != nil {
		return nil, err
	}
	v, err := fromYAML(&n)
	if err != nil {
		return nil, err
	}
	doc, ok := v.(*object)
	if !ok {
		return nil, errors.New("the source is no YAML mapping")
	}
	return doc, nil
}

func encode(doc *object) ([]byte, error) {
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
	if rules := e.doc.take(keyStandardHeaders); rules != nil {
		if err := decodeStrict(rules, &e.standardHeaders); err != nil {
			return fmt.Errorf("%s: %w", keyStandardHeaders, err)
		}
	}
	for _, rule := range e.standardHeaders {
		for _, name := range rule.Headers {
			if lookup(e.doc, "components", "headers", name) == nil {
				return fmt.Errorf("%s: components.headers has no %s", keyStandardHeaders, name)
			}
		}
	}
	if pre := e.doc.take(keyPreflight); pre != nil {
		p, _ := pre.(*object)
		e.preflightPrefix, _ = p.get("pathPrefix").(string)
		e.preflight, _ = p.get("operation").(*object)
		if e.preflightPrefix == "" || e.preflight == nil || len(p.fields()) != 2 {
			return fmt.Errorf("%s: want pathPrefix and operation", keyPreflight)
		}
	}
	if shared := e.doc.take(keySharedResponses); shared != nil {
		var ok bool
		if e.shared, ok = shared.(*object); !ok {
			return fmt.Errorf("%s: not a mapping of responses", keySharedResponses)
		}
	}
	return nil
}

// decodeStrict decodes v into out, rejecting fields out does not have.
func decodeStrict(v any, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(out)
}

func (e *expander) expandPaths() error {
	paths, _ := e.doc.get("paths").(*object)
	for _, path := range paths.fields() {
		item, ok := paths.get(path).(*object)
		if !ok {
			return fmt.Errorf("paths.%s is not a mapping", path)
		}
		if err := e.expandPath(path, item); err != nil {
			return fmt.Errorf("paths.%s: %w", path, err)
		}
	}
	return nil
}

func (e *expander) expandPath(path string, item *object) error {
	for _, derived := range []string{"head", "options"} {
		if item.has(derived) {
			return fmt.Errorf("%s is derived; the source does not state it", derived)
		}
	}
	var first *object
	for _, method := range statedMethods {
		if !item.has(method) {
			continue
		}
		op, ok := item.get(method).(*object)
		if !ok {
			return fmt.Errorf("%s is not a mapping", method)
		}
		documented, err := e.expandResponses(op)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		e.operations = append(e.operations, operationErrors{Route: strings.ToUpper(method) + " " + path, Errors: documented})
		if first == nil {
			first = op
		}
	}
	if get, ok := item.get("get").(*object); ok {
		head, err := headOf(get)
		if err != nil {
			return fmt.Errorf("get: %w", err)
		}
		item.set("head", head)
	}
	if e.preflight == nil || !strings.HasPrefix(path, e.preflightPrefix) {
		return nil
	}
	if first == nil {
		return errors.New("no operation to name the preflight after")
	}
	pre, err := e.preflightOf(first)
	if err != nil {
		return fmt.Errorf("options: %w", err)
	}
	item.set("options", pre)
	return nil
}

// expandResponses writes out op's responses and returns the errors they document.
func (e *expander) expandResponses(op *object) ([]documentedError, error) {
	responses, ok := op.get("responses").(*object)
	if !ok {
		return nil, errors.New("no responses")
	}
	keyed := e.takesKey(op)
	var documented []documentedError
	for _, status := range responses.keys {
		resp, errs, err := e.resolve(responses.get(status))
		if err == nil && keyed {
			err = e.attachStandardHeaders(resp, status)
		}
		if err == nil && len(errs) > 0 {
			documented, err = appendDocumented(documented, status, errs)
		}
		if err != nil {
			return nil, fmt.Errorf("response %s: %w", status, err)
		}
		responses.set(status, resp)
	}
	return documented, nil
}

func appendDocumented(documented []documentedError, status string, errs []documentedError) ([]documentedError, error) {
	code, err := strconv.Atoi(status)
	if err != nil {
		return nil, fmt.Errorf("%s on a response whose status %q is no number", keyErrors, status)
	}
	for _, d := range errs {
		d.Status = code
		documented = append(documented, d)
	}
	return documented, nil
}

// takesKey reports whether the operation's security (its own, else the document's) asks for a
// key: only those answers pass the rate limiter. `security: []` marks a public operation.
func (e *expander) takesKey(op *object) bool {
	security := e.doc.get("security")
	if op.has("security") {
		security = op.get("security")
	}
	s, _ := security.([]any)
	return len(s) > 0
}

// resolve is the response written out in full, and the errors its x-errors listed.
func (e *expander) resolve(r any) (*object, []documentedError, error) {
	resp, ok := r.(*object)
	if !ok {
		return nil, nil, errors.New("not a mapping")
	}
	if ref, ok := resp.get("$ref").(string); ok {
		target, err := e.responseAt(ref)
		if err != nil {
			return nil, nil, err
		}
		resp = clone(target).(*object)
	}
	errs, err := e.expandErrors(resp)
	return resp, errs, err
}

func (e *expander) responseAt(ref string) (*object, error) {
	var target any
	if name, ok := strings.CutPrefix(ref, "#/"+keySharedResponses+"/"); ok {
		target = e.shared.get(name)
	} else if name, ok := strings.CutPrefix(ref, "#/components/responses/"); ok {
		target = lookup(e.doc, "components", "responses", name)
	}
	resp, ok := target.(*object)
	if !ok {
		return nil, fmt.Errorf("%s names no response", ref)
	}
	if resp.has("$ref") {
		return nil, fmt.Errorf("%s is itself a reference", ref)
	}
	return resp, nil
}

// expandErrors turns `x-errors: [codes]` into the JSON error body whose `error` is one of codes,
// a typed string enum (code generators make an untyped enum interface{}). A {$ref} entry names
// a code schema whose text is a pattern (the list of an installation's providers, say): then
// `error` is any of the enum and those schemas, and a Go type hint keeps it a plain string.
func (e *expander) expandErrors(resp *object) ([]documentedError, error) {
	if !resp.has(keyErrors) {
		return nil, nil
	}
	entries, _ := resp.get(keyErrors).([]any)
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s is not a list of error codes", keyErrors)
	}
	if resp.has("content") {
		return nil, fmt.Errorf("both %s and content", keyErrors)
	}
	var (
		codes, patterns []any
		documented      []documentedError
	)
	for _, entry := range entries {
		if code, ok := entry.(string); ok {
			codes = append(codes, code)
			documented = append(documented, documentedError{Code: code})
			continue
		}
		ref, pattern, err := e.codeSchema(entry)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keyErrors, err)
		}
		patterns = append(patterns, obj("$ref", ref))
		documented = append(documented, documentedError{Pattern: pattern})
	}
	field := obj("type", "string", "enum", codes)
	switch {
	case len(patterns) > 0 && len(codes) == 0:
		field = obj("anyOf", patterns, goTypeHint, "string")
	case len(patterns) > 0:
		field = obj("anyOf", append([]any{field}, patterns...), goTypeHint, "string")
	}
	resp.replace(keyErrors, "content", obj("application/json", obj("schema", obj(
		"allOf", []any{obj("$ref", errorSchemaRef)},
		"properties", obj("error", field),
	))))
	return documented, nil
}

// codeSchema checks an x-errors entry that is no code: {$ref} to a string schema with a
// pattern, which it returns.
func (e *expander) codeSchema(entry any) (ref, pattern string, err error) {
	o, _ := entry.(*object)
	ref, _ = o.get("$ref").(string)
	name, ok := strings.CutPrefix(ref, codeSchemaPrefix)
	if !ok || len(o.fields()) != 1 {
		return "", "", fmt.Errorf("%v is neither a code nor {$ref: %sNAME}", entry, codeSchemaPrefix)
	}
	schema, _ := lookup(e.doc, "components", "schemas", name).(*object)
	pattern, _ = schema.get("pattern").(string)
	if schema.get("type") != "string" || pattern == "" {
		return "", "", fmt.Errorf("%s is no string schema with a pattern", ref)
	}
	return ref, pattern, nil
}

func (e *expander) attachStandardHeaders(resp *object, status string) error {
	headers := &object{}
	for _, rule := range e.standardHeaders {
		if !rule.appliesTo(status) {
			continue
		}
		for _, name := range rule.Headers {
			headers.set(name, obj("$ref", "#/components/headers/"+name))
		}
	}
	if len(headers.keys) == 0 {
		return nil
	}
	own, _ := resp.get("headers").(*object)
	for _, name := range own.fields() {
		if headers.has(name) {
			return fmt.Errorf("states %s, which %s adds", name, keyStandardHeaders)
		}
		headers.set(name, own.get(name))
	}
	resp.set("headers", headers)
	return nil
}

// headOf is the HEAD twin of a GET (net/http answers HEAD wherever GET is served): the same
// operation named <operationId>Head and "<summary> (headers only)", its responses without
// bodies; x-head on the GET overrides single fields.
func headOf(get *object) (*object, error) {
	id, _ := get.get("operationId").(string)
	summary, _ := get.get("summary").(string)
	if id == "" || summary == "" {
		return nil, errors.New("a GET needs an operationId and a summary to name its HEAD")
	}
	overrides, _ := get.take(keyHead).(*object)
	head := clone(get).(*object)
	head.set("operationId", id+"Head")
	head.set("summary", summary+" (headers only)")
	head.set("description", "As GET, without a body.")
	responses, _ := head.get("responses").(*object)
	for _, status := range responses.fields() {
		responses.get(status).(*object).take("content")
	}
	for _, k := range overrides.fields() {
		head.set(k, overrides.get(k))
	}
	return head, nil
}

// preflightOf is the CORS preflight of the path whose first stated operation is op: the
// preflight operation named <operationId>Preflight, with op's path parameters (every template
// parameter must be declared) before its own.
func (e *expander) preflightOf(op *object) (*object, error) {
	id, _ := op.get("operationId").(string)
	if id == "" {
		return nil, errors.New("the operation to name the preflight after has no operationId")
	}
	pre := obj("operationId", id+"Preflight")
	for _, k := range e.preflight.keys {
		pre.set(k, clone(e.preflight.get(k)))
	}
	var params []any
	stated, _ := op.get("parameters").([]any)
	for _, p := range stated {
		if p, ok := p.(*object); ok && p.get("in") == "path" {
			params = append(params, clone(p))
		}
	}
	own, _ := pre.get("parameters").([]any)
	if params = append(params, own...); len(params) > 0 {
		pre.set("parameters", params)
	}
	return pre, nil
}

func (e *expander) expandComponentResponses() error {
	responses, _ := lookup(e.doc, "components", "responses").(*object)
	for _, name := range responses.fields() {
		resp, ok := responses.get(name).(*object)
		if !ok {
			return fmt.Errorf("components.responses.%s is not a mapping", name)
		}
		if _, err := e.expandErrors(resp); err != nil {
			return fmt.Errorf("components.responses.%s: %w", name, err)
		}
	}
	return nil
}

// numberProperties gives every property of every schema its place in the source (x-order,
// from 1), so that generated types keep the document's field order.
func numberProperties(v any) error {
	switch v := v.(type) {
	case *object:
		if props, ok := v.get("properties").(*object); ok {
			for i, name := range props.keys {
				prop, ok := props.get(name).(*object)
				if !ok {
					return fmt.Errorf("property %s is not a schema", name)
				}
				if prop.has(orderHint) {
					return fmt.Errorf("property %s states %s, which the expansion numbers", name, orderHint)
				}
				prop.set(orderHint, i+1)
			}
		}
		for _, k := range v.keys {
			if err := numberProperties(v.get(k)); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range v {
			if err := numberProperties(x); err != nil {
				return err
			}
		}
	}
	return nil
}

// leftoverDirective is where a directive sits that the expansion did not read (an x-head on a
// POST, say), or "".
func leftoverDirective(v any, where string) string {
	switch v := v.(type) {
	case *object:
		for _, k := range v.keys {
			if slices.Contains(directiveKeys, k) {
				return where + "." + k
			}
			if w := leftoverDirective(v.get(k), where+"."+k); w != "" {
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
