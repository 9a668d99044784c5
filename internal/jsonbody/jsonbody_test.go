package jsonbody

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// An answer carries its length, and its bytes are what json.Encoder writes (HTML escaping
// and the trailing newline included), so clients see the same body as before.
func TestWriteStatesTheLength(t *testing.T) {
	v := map[string]any{"message": "<a> & b", "steps": []string{strings.Repeat("x", 3000)}}
	rec := httptest.NewRecorder()
	if err := Write(rec, http.StatusCreated, v); err != nil {
		t.Fatal(err)
	}

	var want bytes.Buffer
	if err := json.NewEncoder(&want).Encode(v); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusCreated {
		t.Errorf("status %d, want 201", rec.Code)
	}
	if got := rec.Body.String(); got != want.String() {
		t.Errorf("body %q, want %q", got, want.String())
	}
	if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(want.Len()) {
		t.Errorf("Content-Length %q, want %d", got, want.Len())
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
}

// A value that does not encode sends its status without a body, and says why.
func TestWriteUnencodable(t *testing.T) {
	rec := httptest.NewRecorder()
	if err := Write(rec, http.StatusOK, map[string]any{"f": func() {}}); err == nil {
		t.Fatal("no error for a value JSON cannot hold")
	}
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Fatalf("status %d, body %q; want 200 and no body", rec.Code, rec.Body.String())
	}
}
