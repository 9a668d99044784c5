package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// maxBodyBytes bounds a request body: the largest valid one is a few KiB.
const maxBodyBytes = 64 << 10

// decodeJSON reads r's body into v: Content-Type application/json, at most maxBodyBytes,
// exactly one JSON value, no fields v does not declare.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/json" {
		return apierror.Invalid("Content-Type", "must be application/json")
	}
	if r.ContentLength > maxBodyBytes {
		return bodyTooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return decodeError(err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if err := dec.Decode(&json.RawMessage{}); !errors.Is(err, io.EOF) {
		return apierror.Invalid("body", "must be a single JSON object")
	}
	return exactFieldNames(body, v)
}

// exactFieldNames refuses keys that differ from a declared field only in case: encoding/json
// matches names case-insensitively ("Amount" would fill amount), but the contract's fields
// are exact.
func exactFieldNames(body []byte, v any) error {
	var keys map[string]json.RawMessage
	if json.Unmarshal(body, &keys) != nil {
		return nil // not an object: the typed decode above already judged it
	}
	declared := jsonFieldNames(reflect.TypeOf(v))
	for key := range keys {
		if !declared[key] {
			return apierror.Invalid(key, "unknown field")
		}
	}
	return nil
}

var fieldNamesByType sync.Map // reflect.Type -> map[string]bool

// jsonFieldNames lists the JSON names of a struct's fields, embedded structs included.
func jsonFieldNames(t reflect.Type) map[string]bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if names, ok := fieldNamesByType.Load(t); ok {
		return names.(map[string]bool)
	}
	names := map[string]bool{}
	if t.Kind() != reflect.Struct {
		return names
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-":
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			for n := range jsonFieldNames(f.Type) {
				names[n] = true
			}
		case tag != "":
			names[tag] = true
		case f.IsExported():
			names[f.Name] = true
		}
	}
	fieldNamesByType.Store(t, names)
	return names
}

func bodyTooLarge() *apierror.Error {
	return apierror.Newf(apierror.BodyTooLarge, "the limit is %d bytes", maxBodyBytes)
}

// decodeError turns encoding/json's errors into `invalid request` naming the field.
func decodeError(err error) *apierror.Error {
	var (
		tooLarge  *http.MaxBytesError
		syntax    *json.SyntaxError
		wrongType *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooLarge):
		return bodyTooLarge()
	case errors.Is(err, io.EOF):
		return apierror.Invalid("body", "empty; a JSON object is required")
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return apierror.Invalid("body", "malformed JSON")
	case errors.As(err, &wrongType):
		field := wrongType.Field
		if field == "" {
			return apierror.Invalid("body", "must be a JSON object")
		}
		return apierror.Invalid(field, fmt.Sprintf("must be %s", jsonKind(wrongType.Type.Kind().String())))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for this; the message is stable API.
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apierror.Invalid(name, "unknown field")
	}
	return apierror.Invalid("body", "not a valid request")
}

// jsonKind names a Go kind the way a JSON author thinks of it.
func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	}
	return "a " + goKind
}
