package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// maxBodyBytes is design.md's body limit.
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
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if err := dec.Decode(&json.RawMessage{}); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return bodyTooLarge()
		}
		return apierror.Invalid("body", "must be a single JSON object")
	}
	return nil
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
		// Fields of embedded structs come with the Go type's name in front.
		field := strings.TrimPrefix(wrongType.Field, "swapFields.")
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
