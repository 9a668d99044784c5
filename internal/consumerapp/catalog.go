package consumerapp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

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
}

type chainName struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// assetCache shares one asset list among all users: it changes rarely and every page load
// needs it, so asking /v1 per user would spend the partner's budget for nothing.
type assetCache struct {
	ttl   time.Duration
	fetch func(context.Context) ([]asset, error)

	mu      sync.Mutex
	list    []asset
	fetched time.Time
}

func (c *assetCache) get(ctx context.Context) ([]asset, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.list != nil && time.Since(c.fetched) < c.ttl {
		return c.list, nil
	}
	list, err := c.fetch(ctx)
	if err != nil {
		if c.list != nil {
			return c.list, nil // a stale list beats an empty page
		}
		return nil, err
	}
	c.list, c.fetched = list, time.Now()
	return list, nil
}

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

// GET /api/assets → {assets, chains}: chains are those the assets are on, with their names,
// for the chain filter.
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
	writeJSON(w, http.StatusOK, map[string]any{"assets": list, "chains": chains})
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

// POST /api/rates {from, amount, targets} → /v1/rates: the live preview of popular targets.
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
	forward(w, resp, p, status)
}

// POST /api/quote {originAsset, destinationAsset, amount} → a dry /v1/quote with every candidate.
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
	forward(w, resp, p, status)
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
