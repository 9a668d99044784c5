package apiserver

import (
	"net/http"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/auth"
)

// Headers a browser may send and read (CORS). Retry-After and the rate-limit headers must be
// readable on 429s, the request id on everything.
var (
	corsAllowHeaders  = strings.Join([]string{"Authorization", "Content-Type", auth.HeaderKeyID, "Idempotency-Key", headerRequestID}, ", ")
	corsExposeHeaders = strings.Join([]string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", headerRequestID}, ", ")
)

func setCORSHeaders(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	h.Add("Vary", "Origin")
}

// clearCORSHeaders withdraws what cors set once the caller turns out not to list the origin.
func clearCORSHeaders(h http.Header) {
	h.Del("Access-Control-Allow-Origin")
	h.Del("Access-Control-Expose-Headers")
}

// cors lets a browser read every answer to an origin some partner lists — 401s, 404s and
// 429s included, so a page can show the error and honour Retry-After. Before the caller is
// known no narrower rule is possible; authenticated narrows it to the caller's own origins.
// Preflights are answered by preflight.
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && r.Method != http.MethodOptions {
			allowed, err := s.originListedAnywhere(r, origin)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			if allowed {
				setCORSHeaders(w.Header(), origin)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// originListedAnywhere reports whether some partner lists origin (read through the cache).
func (s *Server) originListedAnywhere(r *http.Request, origin string) (bool, error) {
	var partners swapv1.PartnerList
	if err := s.opts.Client.List(r.Context(), &partners, client.InNamespace(s.opts.Namespace)); err != nil {
		return false, err
	}
	return auth.AnyPartnerAllows(partners.Items, origin), nil
}

// preflight answers a CORS preflight (OPTIONS /v1/...). It carries no credentials, so it is
// allowed for an origin any partner lists; the actual request is then checked against its own
// partner's list.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	allowed, err := s.originListedAnywhere(r, origin)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !allowed {
		s.writeError(w, r, apierror.New(apierror.OriginNotAllowed, ""))
		return
	}
	h := w.Header()
	setCORSHeaders(h, origin)
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}
