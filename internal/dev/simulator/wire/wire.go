// Package wire holds the small JSON helpers the simulated protocol handlers share.
package wire

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/swaprouter/swaprouter/internal/jsonbody"
)

// maxBody bounds request bodies.
const maxBody = 64 << 10

// JSON writes v with status, and its length (jsonbody).
func JSON(w http.ResponseWriter, status int, v any) {
	_ = jsonbody.Write(w, status, v) // the protocols' own types always encode
}

// Error writes {"message": msg}, the error shape of both simulated protocols.
func Error(w http.ResponseWriter, status int, msg string) {
	JSON(w, status, map[string]string{"message": msg})
}

// Decode reads a JSON body into v, rejecting unknown fields; on failure it answers 400 and
// returns false.
func Decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		Error(w, http.StatusBadRequest, "invalid request body: "+strings.TrimPrefix(err.Error(), "json: "))
		return false
	}
	return true
}

// BearerOK checks the Authorization header when token is set.
func BearerOK(w http.ResponseWriter, r *http.Request, token string) bool {
	if token == "" || r.Header.Get("Authorization") == "Bearer "+token {
		return true
	}
	Error(w, http.StatusUnauthorized, "Unauthorized")
	return false
}
