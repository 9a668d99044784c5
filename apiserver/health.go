package apiserver

import (
	_ "embed"
	"net/http"
)

// openAPIDocument is the OpenAPI 3.1 description of /v1, kept next to the code it describes.
//
//go:embed openapi.json
var openAPIDocument []byte

// GET /v1/openapi.json: public, it describes the API and holds nothing partner-specific.
func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, err := w.Write(openAPIDocument)
	return err
}

// GET /healthz: the process serves HTTP.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// GET /readyz: the caches are synced and the server is not shutting down; a load balancer
// stops sending requests as soon as this turns 503.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) error {
	if !s.ready.Load() {
		return writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready"})
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
