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
