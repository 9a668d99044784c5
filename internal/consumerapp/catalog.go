package consumerapp

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/internal/address"
	"github.com/swaprouter/swaprouter/internal/caip"
	"github.com/swaprouter/swaprouter/pkg/client"
)

type chainName struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// cached shares one answer of /v1 among all users: asset lists and provider names change
// rarely and every page load needs them, so asking /v1 per user would spend the partner's
// budget for nothing.
type cached[T any] struct {
	ttl   time.Duration
	fetch func(context.Context) (T, error)

	mu      sync.Mutex
	value   T
	ok      bool
	fetched time.Time
}

func (c *cached[T]) get(ctx context.Context) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && time.Since(c.fetched) < c.ttl {
		return c.value, nil
	}
	v, err := c.fetch(ctx)
	if err != nil {
		if c.ok {
			return c.value, nil // a stale answer beats an empty page
		}
		return v, err
	}
	c.value, c.ok, c.fetched = v, true, time.Now()
	return v, nil
}

// assetCache is the shared asset list.
type assetCache struct{ cached[[]client.Asset] }

// lookup returns the cached asset with id.
func (c *assetCache) lookup(ctx context.Context, id string) (client.Asset, bool) {
	list, err := c.get(ctx)
	if err != nil {
		return client.Asset{}, false
	}
	for _, a := range list {
		if a.AssetId == id {
			return a, true
		}
	}
	return client.Asset{}, false
}

// providerBoard is what the page shows of the providers: their display names, and a notice
// for each one this installation measures as slow or down.
type providerBoard struct {
	names   map[string]string
	notices map[string]string
}

// providersTTL is how long GET /v1/providers is reused: a provider's health is news for the
// quote a user is about to pick, and one call per 15 s serves every user.
const providersTTL = 15 * time.Second

// fetchProviders reads GET /v1/providers. A /v1 that does not answer leaves the page with the
// provider ids, which still tell routes apart, and no notices.
func (s *Server) fetchProviders(ctx context.Context) (providerBoard, error) {
	board := providerBoard{names: map[string]string{}, notices: map[string]string{}}
	resp, err := s.api.ListProvidersWithResponse(ctx)
	if err != nil || resp.JSON200 == nil {
		logr.FromContextOrDiscard(ctx).Info("providers unavailable; showing provider ids", "error", err)
		return board, nil
	}
	for _, p := range resp.JSON200.Providers {
		id := string(p.ProviderId)
		name := id
		if p.DisplayName != "" {
			board.names[id], name = p.DisplayName, p.DisplayName
		}
		if n := providerNotice(name, p.Status); n != "" {
			board.notices[id] = n
		}
	}
	return board, nil
}

// providerNotice is what the page says of a provider in status (GET /v1/providers); "" when
// there is nothing to say.
func providerNotice(name string, status client.ProviderHealthStatus) string {
	switch status {
	case client.DEGRADED:
		return name + " is slow right now"
	case client.UNAVAILABLE:
		return name + " is unavailable right now"
	}
	return ""
}

func (s *Server) fetchAssets(ctx context.Context) ([]client.Asset, error) {
	resp, err := s.api.ListAssetsWithResponse(ctx, nil)
	if err != nil {
		return nil, err
	}
	if resp.JSON200 == nil {
		return nil, fmt.Errorf("GET /v1/assets: status %d", resp.StatusCode())
	}
	return resp.JSON200.Assets, nil
}

// GET /api/assets → {assets, chains, providerNames}: chains are those the assets are on, with
// their names, for the picker's badges; providerNames the routes' names by provider id.
func (s *Server) listAssets(w http.ResponseWriter, r *http.Request, _ string) {
	list, err := s.assets.get(r.Context())
	if err != nil {
		writeProblem(w, http.StatusBadGateway, explain("unreachable", "", http.StatusBadGateway))
		return
	}
	used := map[string]bool{}
	for _, a := range list {
		used[a.Chain] = true
	}
	var chains []chainName
	for _, c := range caip.Chains() {
		if used[c.Key] {
			chains = append(chains, chainName{Key: c.Key, Name: c.Name})
		}
	}
	board, _ := s.providers.get(r.Context())
	writeJSON(w, http.StatusOK, map[string]any{"assets": list, "chains": chains, "providerNames": board.names})
}

// POST /api/rates {from, amount, targets} → /v1/rates: the live preview of popular targets,
// each {to, best, problem}: a target /v1 could not price carries the reason as the page says
// it (an amount below a route's minimum names the minimum).
func (s *Server) rates(w http.ResponseWriter, r *http.Request, _ string) {
	var req struct {
		From    string   `json:"from"`
		Amount  string   `json:"amount"`
		Targets []string `json:"targets"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.Targets) > 8 {
		req.Targets = req.Targets[:8] // a preview, not a price feed
	}
	resp, err := s.api.GetRatesWithResponse(r.Context(), client.RatesRequest{From: req.From, Amount: req.Amount, Targets: req.Targets})
	if p, status := refused(r.Context(), "POST /v1/rates", resp, err); p != nil {
		writeProblem(w, status, *p)
		return
	}
	if resp.JSON200 == nil {
		writeProblem(w, http.StatusBadGateway, explain("upstream error", "", http.StatusBadGateway))
		return
	}
	type rate struct {
		To      string                 `json:"to"`
		Best    *client.QuoteCandidate `json:"best"`
		Problem *Problem               `json:"problem"`
	}
	out := make([]rate, 0, len(resp.JSON200.Rates))
	for _, rt := range resp.JSON200.Rates {
		row := rate{To: rt.To, Best: rt.Best}
		if rt.Error != nil {
			p := explain(string(rt.Error.Error), deref(rt.Error.Detail), http.StatusBadRequest)
			row.Problem, row.Best = &p, nil
		}
		out = append(out, row)
	}
	writeJSON(w, http.StatusOK, map[string]any{"rates": out})
}

// POST /api/quote {originAsset, destinationAsset, amount} → a dry /v1/quote with every
// candidate, the routes' providerNames (a provider added since the page loaded is named too),
// and providerNotices when a provider is slow or down.
func (s *Server) quote(w http.ResponseWriter, r *http.Request, _ string) {
	var req struct {
		OriginAsset      string `json:"originAsset"`
		DestinationAsset string `json:"destinationAsset"`
		Amount           string `json:"amount"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	swapType, dry := client.QuoteRequestSwapTypeEXACTINPUT, true
	resp, err := s.api.RequestQuoteWithResponse(r.Context(), nil, client.QuoteRequest{
		OriginAsset: req.OriginAsset, DestinationAsset: req.DestinationAsset, Amount: req.Amount,
		SwapType: &swapType, Dry: &dry})
	if p, status := refused(r.Context(), "POST /v1/quote", resp, err); p != nil {
		writeProblem(w, status, *p)
		return
	}
	if resp.JSON200 == nil {
		writeProblem(w, http.StatusBadGateway, explain("upstream error", "", http.StatusBadGateway))
		return
	}
	board, _ := s.providers.get(r.Context())
	writeJSON(w, http.StatusOK, struct {
		*client.QuoteResponse
		ProviderNames   map[string]string `json:"providerNames"`
		ProviderNotices []string          `json:"providerNotices,omitempty"`
	}{resp.JSON200, board.names, slices.Sorted(maps.Values(board.notices))})
}

// deref is the string p points at, "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// GET /api/address-check?asset=&address= → {ok, problem}: the page's per-field message.
func (s *Server) addressCheck(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	a, ok := s.assets.lookup(r.Context(), q.Get("asset"))
	if !ok {
		writeProblem(w, http.StatusBadRequest, explain("unknown originAsset/destinationAsset", "", http.StatusBadRequest))
		return
	}
	if err := address.Check(a.Chain, q.Get("address")); err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "problem": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}
