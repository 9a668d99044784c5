package apiserver

import (
	"encoding/json"
	"net/http"
)

// writeJSON sends v with status. API answers are per caller and change, so nothing caches them.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}
