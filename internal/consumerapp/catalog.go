package consumerapp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/internal/address"
	"github.com/swaprouter/swaprouter/internal/caip"
	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
)

// asset is the /v1 asset record as the page uses it.
type asset struct {
	AssetID  string `json:"assetId"`
	Chain    string `json:"chain"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Decimals int    `json:"decimals"`
	// PriceUSD is one whole unit's indicative price in US dollars, 0 when unknown.
	PriceUSD float64 `json:"priceUsd,omitempty"`
}

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
type assetCache struct{ cached[[]asset] }

// lookup returns the cached asset with id.
func (c *assetCache) lookup(ctx context.Context, id string) (asset, bool) {
	list, err := c.get(ctx)
	if err != nil {
		return asset{}, false
	}
	for _, a := range list {
		if a.AssetID == id {
			return a, true
		}
	}
	return asset{}, false
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
	resp, err := s.api.Do(ctx, http.MethodGet, "/v1/providers", nil, http.Header{"X-Request-Id": {requestID(ctx)}})
	if err != nil || !resp.OK() {
		logr.FromContextOrDiscard(ctx).Info("providers unavailable; showing provider ids", "error", err)
		return board, nil
	}
	var body struct {
		Providers []struct {
			ProviderID  string `json:"providerId"`
			DisplayName string `json:"displayName"`
			Status      string `json:"status"`
		} `json:"providers"`
	}
	_ = json.Unmarshal(resp.Body, &body)
	for _, p := range body.Providers {
		name := p.ProviderID
		if p.DisplayName != "" {
			board.names[p.ProviderID], name = p.DisplayName, p.DisplayName
		}
		if n := providerNotice(name, p.Status); n != "" {
			board.notices[p.ProviderID] = n
		}
	}
	return board, nil
}

// providerNotice is what the page says of a provider in status (GET /v1/providers); "" when
// there is nothing to say.
func providerNotice(name, status string) string {
	switch status {
	case "DEGRADED":
		return name + " is slow right now"
	case "UNAVAILABLE":
		return name + " is unavailable right now"
	}
	return ""
}

func (s *Server) fetchAssets(ctx context.Context) ([]asset, error) {
	resp, err := s.api.Do(ctx, http.MethodGet, "/v1/assets", nil, http.Header{"X-Request-Id": {requestID(ctx)}})
	if err != nil {
		return nil, err
	}
	if !resp.OK() {
		return nil, fmt.Errorf("GET /v1/assets: status %d", resp.Status)
	}
	var body struct {
		Assets []asset `json:"assets"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, err
	}
	return body.Assets, nil
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

// forward answers the page with a /v1 answer as it is, or with its Problem.
func forward(w http.ResponseWriter, resp *upstream.Response, p *Problem, status int) {
	if p != nil {
		writeProblem(w, status, *p)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
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
	resp, p, status := s.call(r.Context(), http.MethodPost, "/v1/rates", req, nil)
	if p != nil {
		writeProblem(w, status, *p)
		return
	}
	var body struct {
		Rates []struct {
			To    string          `json:"to"`
			Best  json.RawMessage `json:"best"`
			Error *struct{ Error, Detail string }
		} `json:"rates"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		writeProblem(w, http.StatusBadGateway, explain("upstream error", "", http.StatusBadGateway))
		return
	}
	type rate struct {
		To      string          `json:"to"`
		Best    json.RawMessage `json:"best"`
		Problem *Problem        `json:"problem"`
	}
	out := make([]rate, 0, len(body.Rates))
	for _, rt := range body.Rates {
		row := rate{To: rt.To, Best: rt.Best}
		if rt.Error != nil {
			p := explain(rt.Error.Error, rt.Error.Detail, http.StatusBadRequest)
			row.Problem, row.Best = &p, json.RawMessage("null")
		}
		out = append(out, row)
	}
	writeJSON(w, http.StatusOK, map[string]any{"rates": out})
}

// POST /api/quote {originAsset, destinationAsset, amount} → a dry /v1/quote with every
// candidate, and providerNotices when a provider is slow or down.
func (s *Server) quote(w http.ResponseWriter, r *http.Request, _ string) {
	var req struct {
		OriginAsset      string `json:"originAsset"`
		DestinationAsset string `json:"destinationAsset"`
		Amount           string `json:"amount"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	body := map[string]any{
		"originAsset": req.OriginAsset, "destinationAsset": req.DestinationAsset,
		"amount": req.Amount, "swapType": "EXACT_INPUT", "dry": true,
	}
	resp, p, status := s.call(r.Context(), http.MethodPost, "/v1/quote", body, nil)
	if p != nil {
		writeProblem(w, status, *p)
		return
	}
	board, _ := s.providers.get(r.Context())
	var answer map[string]json.RawMessage
	if len(board.notices) == 0 || json.Unmarshal(resp.Body, &answer) != nil {
		forward(w, resp, nil, status)
		return
	}
	answer["providerNotices"], _ = json.Marshal(slices.Sorted(maps.Values(board.notices)))
	writeJSON(w, resp.Status, answer)
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
