package apiserver

import (
	"net/http"
	"slices"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/catalog"
)

// GET /v1/assets?chain=&search= → {assets: [asset record]}.
func (s *Server) listAssets(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	chain, search := q.Get("chain"), q.Get("search")
	if len(chain) > 32 {
		return apierror.Invalid("chain", "too long")
	}
	if len(search) > maxSearchLength {
		return apierror.Invalid("search", "too long")
	}
	assets := s.opts.Catalog.List(chain, search)
	if assets == nil {
		assets = []catalog.Asset{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"assets": assets})
}

// GET /v1/swappable-targets?from= → {from, targets}.
func (s *Server) swappableTargets(w http.ResponseWriter, r *http.Request) error {
	from := r.URL.Query().Get("from")
	if err := checkAssetID("from", from); err != nil {
		return err
	}
	if _, ok := s.opts.Catalog.Lookup(from); !ok {
		return unknownAsset("from", from)
	}
	targets := s.opts.Catalog.SwappableTargets(from)
	if targets == nil {
		targets = []string{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"from": from, "targets": targets})
}

// checkPair answers `unknown originAsset/destinationAsset` for ids the asset list lacks.
func (s *Server) checkPair(origin, destination string) *apierror.Error {
	if _, ok := s.opts.Catalog.Lookup(origin); !ok {
		return unknownAsset("originAsset", origin)
	}
	if _, ok := s.opts.Catalog.Lookup(destination); !ok {
		return unknownAsset("destinationAsset", destination)
	}
	return nil
}

// checkOrderAddresses checks an order's addresses against the chains of its (known) assets.
func (s *Server) checkOrderAddresses(origin, destination, sender, recipient, refundTo string) *apierror.Error {
	o, _ := s.opts.Catalog.Lookup(origin)
	d, _ := s.opts.Catalog.Lookup(destination)
	return checkAddresses(o.Chain, d.Chain, sender, recipient, refundTo)
}

func unknownAsset(field, id string) *apierror.Error {
	return apierror.Newf(apierror.UnknownAsset, "%s %q is not in the asset list", field, id)
}

// providerRoutes reports whether provider routes the pair according to the catalog.
func (s *Server) providerRoutes(origin, destination string, id swapv1.ProviderID) bool {
	return slices.Contains(s.opts.Catalog.ProvidersFor(origin, destination), id)
}
