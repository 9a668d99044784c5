package wire

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
func TestJSONStatesItsLength(t *testing.T) {
	v := map[string]any{"message": "<a> & b", "steps": []string{strings.Repeat("x", 3000)}}
	rec := httptest.NewRecorder()
	JSON(rec, http.StatusCreated, v)

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
