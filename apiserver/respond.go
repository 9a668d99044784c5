package apiserver

import (
	"net/http"

	"github.com/swaprouter/swaprouter/internal/jsonbody"
)

// writeJSON sends v with status and its length. API answers are per caller and change, so
// nothing caches them.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Cache-Control", "no-store")
	return jsonbody.Write(w, status, v)
}
