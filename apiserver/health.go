package apiserver

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/http"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// GET /healthz: the process serves HTTP.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// GET /readyz: the caches are synced, the catalog has heard from every enabled provider and
// the server is not shutting down; a load balancer stops sending requests as soon as this
// turns 503. Until its first catalog load a new replica would answer `unknown ...` for
// assets its peers list, so it takes no traffic before.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	if !s.ready.Load() {
		return writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready"})
	}
	if err := s.CatalogReady(r); err != nil {
		return writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": err.Error()})
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// CatalogReady is the readiness check (also the manager's, so the probe port says the same)
// that fails until the catalog has heard from every enabled RoutingProvider.
func (s *Server) CatalogReady(r *http.Request) error {
	loaded, err := s.catalogReady(r.Context())
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if !loaded {
		return errors.New("catalog loading: not every enabled provider has been heard from")
	}
	return nil
}

// catalogReady reports whether the catalog has heard (assets or a failure) from every enabled
// RoutingProvider. It latches: later outages are the catalog's business (stale assets), not a
// reason to take the replica out of service.
func (s *Server) catalogReady(ctx context.Context) (bool, error) {
	if s.catalogLoaded.Load() {
		return true, nil
	}
	var list swapv1.RoutingProviderList
	if err := s.opts.Client.List(ctx, &list); err != nil {
		return false, err
	}
	for _, rp := range list.Items {
		if rp.Spec.Enabled && !s.opts.Catalog.Known(rp.Spec.ProviderID) {
			return false, nil
		}
	}
	s.catalogLoaded.Store(true)
	return true, nil
}
