package simulator

import (
	"net/http"
	"slices"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/venue"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/wire"
)

// SanctionsService is the "provider" under which the simulator serves the sanctions
// screening API (base URL {SIMULATOR_URL}/sanctions); its calls are counted and take faults
// like a provider's (SetFault(SanctionsService, SanctionsCall, ...)).
const (
	SanctionsService swapv1.ProviderID = "sanctions"
	SanctionsCall                      = "address"
)

// sanctionsRoutes speak the Chainalysis public sanctions API: GET /api/v1/address/{address}
// with X-API-Key (Options.SanctionsAPIKey, when set) → {"identifications": [...]}, one
// identification for an address of the sanctioned set.
func (s *Simulator) sanctionsRoutes() []venue.Route {
	return []venue.Route{{Pattern: "GET /api/v1/address/{address}", Call: SanctionsCall, Handler: func(w http.ResponseWriter, r *http.Request) {
		if key := s.opts.SanctionsAPIKey; key != "" && r.Header.Get("X-API-Key") != key {
			wire.Error(w, http.StatusUnauthorized, "invalid API key")
			return
		}
		ids := []sanctionsIdentification{}
		if s.isSanctioned(r.PathValue("address")) {
			ids = append(ids, sanctionsIdentification{Category: "sanctions", Name: "SANCTIONS: SIMULATED LISTING",
				Description: "listed in the simulator's sanctioned set"})
		}
		wire.JSON(w, http.StatusOK, map[string]any{"identifications": ids})
	}}}
}

type sanctionsIdentification struct {
	Category    string `json:"category"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// SetSanctioned replaces the set of addresses the sanctions API identifies (compared as
// given: the caller sends canonical forms).
func (s *Simulator) SetSanctioned(addresses ...string) {
	s.mu.Lock()
	s.sanctioned = slices.Clone(addresses)
	s.mu.Unlock()
	s.opts.Logger.Info("sanctioned addresses set", "count", len(addresses))
}

func (s *Simulator) isSanctioned(addr string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.sanctioned, addr)
}

type sanctionedRequest struct {
	Addresses []string `json:"addresses"`
}

// mountSanctionsControl serves PUT /control/sanctioned {addresses} -> 204.
func (s *Simulator) mountSanctionsControl(mux *http.ServeMux) {
	mux.HandleFunc("PUT /control/sanctioned", func(w http.ResponseWriter, r *http.Request) {
		var req sanctionedRequest
		if !wire.Decode(w, r, &req) {
			return
		}
		s.SetSanctioned(req.Addresses...)
		w.WriteHeader(http.StatusNoContent)
	})
}
