// Package wire holds the small JSON helpers the simulated protocol handlers share.
package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// maxBody bounds request bodies.
const maxBody = 64 << 10

// JSON writes v with status, and its length: without one an answer over 2 KiB (a Relay
// quote) goes out in chunks, and the client cannot read it in one allocation. The body is
// encoded into a pooled buffer, as json.Encoder would write it (newline included).
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	buf := buffers.Get().(*bytes.Buffer)
	defer func() { buf.Reset(); buffers.Put(buf) }()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		w.WriteHeader(status) // as an Encoder writing to w would: the status, and no body
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

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
