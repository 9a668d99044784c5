package apiserver

import (
	"net/http"
	"slices"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/provider"
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
	out := wire.AssetList{Assets: make([]wire.Asset, 0, len(assets))}
	for _, a := range assets {
		out.Assets = append(out.Assets, wireAsset(a))
	}
	return writeJSON(w, http.StatusOK, out)
}

// wireAsset is a as /v1 shows it: stale and priceUsd only when they say something.
func wireAsset(a catalog.Asset) wire.Asset {
	out := wire.Asset{AssetID: a.AssetID, Chain: a.Chain, Symbol: a.Symbol, Name: a.Name, Decimals: a.Decimals,
		Providers: make([]wire.ProviderID, len(a.Providers))}
	for i, id := range a.Providers {
		out.Providers[i] = string(id)
	}
	if a.Stale {
		out.Stale = new(true)
	}
	if a.PriceUSD != 0 {
		out.PriceUsd = new(a.PriceUSD)
	}
	return out
}

// GET /v1/swappable-targets?from= → {from, targets}.
func (s *Server) swappableTargets(w http.ResponseWriter, r *http.Request) error {
	from := r.URL.Query().Get("from")
	if err := checkAssetID("from", from); err != nil {
		return err
	}
	if _, ok := s.opts.Catalog.Lookup(from); !ok {
		return s.unknownAsset("from", from)
	}
	return writeJSON(w, http.StatusOK, wire.SwappableTargets{From: from, Targets: nonNil(s.opts.Catalog.SwappableTargets(from))})
}

// checkPair answers `unknown originAsset/destinationAsset` for ids the asset list lacks.
func (s *Server) checkPair(origin, destination string) *apierror.Error {
	if _, ok := s.opts.Catalog.Lookup(origin); !ok {
		return s.unknownAsset("originAsset", origin)
	}
	if _, ok := s.opts.Catalog.Lookup(destination); !ok {
		return s.unknownAsset("destinationAsset", destination)
	}
	return nil
}

// checkOrderAddresses checks an order's addresses against the chains of its (known) assets.
func (s *Server) checkOrderAddresses(origin, destination, sender, recipient, refundTo string) *apierror.Error {
	o, _ := s.opts.Catalog.Lookup(origin)
	d, _ := s.opts.Catalog.Lookup(destination)
	return checkAddresses(o.Chain, d.Chain, sender, recipient, refundTo)
}

// unknownAsset is the answer for an id the asset list lacks: `unknown ...` ("fix first") only
// when every provider's list is known; while a provider whose assets are not known yet is
// down, the id may be one it routes, so the outage is answered (502/504, retry with backoff).
func (s *Server) unknownAsset(field, id string) *apierror.Error {
	if pid, err := s.opts.Catalog.Outage(); err != nil {
		code := apierror.UpstreamError
		if provider.IsKind(err, provider.KindTimeout) {
			code = apierror.UpstreamTimeout
		}
		e := apierror.Newf(code, "%s %q is not in the asset list while %s's asset list is unavailable", field, id, pid)
		if pe := provider.AsError(err); pe.Upstream != nil {
			e.Upstream = &apierror.Upstream{Status: pe.Upstream.Status, Path: pe.Upstream.Path}
		}
		return e
	}
	return apierror.Newf(apierror.UnknownAsset, "%s %q is not in the asset list", field, id)
}

// providerRoutes reports whether provider routes the pair according to the catalog.
func (s *Server) providerRoutes(origin, destination string, id swapv1.ProviderID) bool {
	return slices.Contains(s.opts.Catalog.ProvidersFor(origin, destination), id)
}
