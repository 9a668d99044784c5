package catalog

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/caip"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Catalog is the union of the providers' asset lists. Writes (one per provider refresh) rebuild
// an immutable snapshot; reads (several per frontend request) only load it, never lock.
//
// A provider whose list cannot be fetched keeps its last known assets, marked stale: an asset
// it listed before must never turn into `unknown originAsset/destinationAsset` ("fix first")
// because of an outage, or partners drop valid assets. With nothing known yet, the failure is
// kept instead, so the frontend answers the outage (Outage) rather than "unknown".
type Catalog struct {
	// mu serialises writers; readers use snap alone.
	mu        sync.Mutex
	providers map[swapv1.ProviderID]listing
	snap      atomic.Pointer[snapshot]
	sanitized *prometheus.CounterVec
}

// listing is what the catalog knows of one provider.
type listing struct {
	assets []provider.Asset
	// stale: the last fetch failed; assets are the last known ones.
	stale bool
	// failure is the last fetch's error while no assets are known.
	failure error
}

// New returns an empty Catalog counting the asset texts it cleans into reg (nil:
// controller-runtime's registry).
func New(reg prometheus.Registerer) *Catalog {
	c := &Catalog{providers: map[swapv1.ProviderID]listing{}, sanitized: newTextSanitized(reg)}
	c.snap.Store(build(c.providers))
	return c
}

// SetProviderAssets replaces everything provider id lists and returns how many distinct assets
// it now routes. Assets whose id is not a valid CAIP-19 id are ignored: every id the catalog
// answers with can be used as an asset id. Symbols and names are cleaned (cleanAssetText);
// an asset left without a symbol is ignored too.
func (c *Catalog) SetProviderAssets(id swapv1.ProviderID, assets []provider.Asset) int {
	clean := make([]provider.Asset, 0, len(assets))
	for _, a := range assets {
		a, changed, ok := cleanAssetText(a)
		if changed || !ok {
			c.sanitized.WithLabelValues(string(id)).Inc()
		}
		if ok {
			clean = append(clean, a)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.store(id, listing{assets: clean})
}

// ProviderFailed records that provider id's asset list could not be fetched (err): its last
// known assets stay, marked stale; with none known, err is kept for Outage.
func (c *Catalog) ProviderFailed(id swapv1.ProviderID, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.providers[id]
	if len(l.assets) > 0 {
		l.stale, l.failure = true, nil
	} else {
		l.failure = err
	}
	c.store(id, l)
}

// store sets id's listing and publishes a new snapshot; c.mu is held.
func (c *Catalog) store(id swapv1.ProviderID, l listing) int {
	c.providers[id] = l
	s := build(c.providers)
	c.snap.Store(s)
	return s.counts[id]
}

// Known reports whether the catalog has heard from provider id: its assets or a failure.
func (c *Catalog) Known(id swapv1.ProviderID) bool {
	_, ok := c.snap.Load().known[id]
	return ok
}

// Outage returns the failure of the first provider (by id) whose asset list could not be
// fetched while none of its assets is known: an asset missing from the catalog may then be
// one it routes. It returns nil when every provider heard from has listed its assets.
func (c *Catalog) Outage() (swapv1.ProviderID, error) {
	s := c.snap.Load()
	if len(s.outages) == 0 {
		return "", nil
	}
	return s.outages[0], s.known[s.outages[0]]
}

// RemoveProvider forgets everything provider id listed.
func (c *Catalog) RemoveProvider(id swapv1.ProviderID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.providers[id]; !ok {
		return
	}
	delete(c.providers, id)
	c.snap.Store(build(c.providers))
}

// List returns the assets on chain (a short chain key; "" for all chains) whose symbol or name
// contains search, case-insensitively ("" matches all), ordered by chain, symbol and id.
func (c *Catalog) List(chain, search string) []Asset {
	s := c.snap.Load()
	rows := s.assets
	if chain != "" {
		rows = s.byChain[strings.ToLower(strings.TrimSpace(chain))]
	}
	needle := strings.ToLower(strings.TrimSpace(search))
	out := make([]Asset, 0, len(rows))
	for _, e := range rows {
		if needle == "" || strings.Contains(e.symbolLower, needle) || strings.Contains(e.nameLower, needle) {
			out = append(out, e.public())
		}
	}
	return out
}

// Lookup returns the asset with CAIP-19 id assetID.
func (c *Catalog) Lookup(assetID string) (Asset, bool) {
	e, ok := c.snap.Load().byID[assetID]
	if !ok {
		return Asset{}, false
	}
	return e.public(), true
}

// SwappableTargets returns, sorted, every asset reachable from `from` through a provider that
// lists both; nil when `from` is unknown.
func (c *Catalog) SwappableTargets(from string) []string {
	s := c.snap.Load()
	e, ok := s.byID[from]
	if !ok {
		return nil
	}
	reachable := s.reachable[e.providerKey]
	out := make([]string, 0, len(reachable))
	for _, id := range reachable {
		if id != from {
			out = append(out, id)
		}
	}
	return out
}

// ProvidersFor returns, sorted, the providers that list both assets, so may route the pair.
// A pair of identical assets is not a swap and has no providers.
func (c *Catalog) ProvidersFor(origin, destination string) []swapv1.ProviderID {
	if origin == destination {
		return nil
	}
	s := c.snap.Load()
	o, ok1 := s.byID[origin]
	d, ok2 := s.byID[destination]
	if !ok1 || !ok2 {
		return nil
	}
	var out []swapv1.ProviderID
	for _, p := range o.providers {
		if slices.Contains(d.providers, p) {
			out = append(out, p)
		}
	}
	return out
}

// snapshot is an immutable view of the catalog; nothing in it is modified after build.
type snapshot struct {
	assets  []*entry
	byID    map[string]*entry
	byChain map[string][]*entry
	// reachable maps a provider combination (entry.providerKey) to the sorted union of the
	// asset ids those providers list. Few combinations exist, so this stays small.
	reachable map[string][]string
	// counts is the number of distinct assets each provider lists.
	counts map[swapv1.ProviderID]int
	// known holds every provider heard from, with its failure while none of its assets is known.
	known map[swapv1.ProviderID]error
	// outages lists, sorted, the providers with a failure and no known assets.
	outages []swapv1.ProviderID
}

type entry struct {
	Asset
	providers              []swapv1.ProviderID // sorted
	staleProviders         int
	providerKey            string
	symbolLower, nameLower string
}

// public returns a copy the caller may modify.
func (e *entry) public() Asset {
	a := e.Asset
	a.Providers = slices.Clone(e.providers)
	// Stale when only last known lists hold it: no provider confirmed it on its last fetch.
	a.Stale = e.staleProviders == len(e.providers)
	return a
}

func build(byProvider map[swapv1.ProviderID]listing) *snapshot {
	ids := make([]swapv1.ProviderID, 0, len(byProvider))
	for id := range byProvider {
		ids = append(ids, id)
	}
	slices.Sort(ids)

	s := &snapshot{
		byID:      map[string]*entry{},
		byChain:   map[string][]*entry{},
		reachable: map[string][]string{},
		counts:    map[swapv1.ProviderID]int{},
		known:     map[swapv1.ProviderID]error{},
	}
	listed := map[swapv1.ProviderID][]string{}
	// Providers are visited in id order, so when two providers describe the same asset
	// differently the record of the lowest provider id wins, the same on every build.
	for _, pid := range ids {
		l := byProvider[pid]
		s.known[pid] = l.failure
		if l.failure != nil {
			s.outages = append(s.outages, pid)
		}
		for _, a := range l.assets {
			parsed, err := caip.ParseAssetID(a.AssetID)
			if err != nil {
				continue
			}
			e, ok := s.byID[a.AssetID]
			if !ok {
				chain := strings.ToLower(a.Chain)
				if chain == "" {
					chain, _ = parsed.ChainKey()
				}
				e = &entry{Asset: Asset{
					AssetID:  a.AssetID,
					Chain:    chain,
					Symbol:   a.Symbol,
					Name:     a.Name,
					Decimals: a.Decimals,
				}}
				e.symbolLower = strings.ToLower(a.Symbol)
				e.nameLower = strings.ToLower(a.Name)
				s.byID[a.AssetID] = e
				s.assets = append(s.assets, e)
			}
			if e.PriceUSD == 0 {
				e.PriceUSD = a.PriceUSD
			}
			if !slices.Contains(e.providers, pid) {
				e.providers = append(e.providers, pid)
				if l.stale {
					e.staleProviders++
				}
				listed[pid] = append(listed[pid], a.AssetID)
				s.counts[pid]++
			}
		}
	}

	slices.SortFunc(s.assets, func(a, b *entry) int {
		return cmp.Or(cmp.Compare(a.Chain, b.Chain), cmp.Compare(a.symbolLower, b.symbolLower),
			cmp.Compare(a.AssetID, b.AssetID))
	})
	for _, e := range s.assets {
		e.providerKey = providerKey(e.providers)
		s.byChain[e.Chain] = append(s.byChain[e.Chain], e)
		if _, done := s.reachable[e.providerKey]; !done {
			var union []string
			for _, pid := range e.providers {
				union = append(union, listed[pid]...)
			}
			slices.Sort(union)
			s.reachable[e.providerKey] = slices.Compact(union)
		}
	}
	return s
}

func providerKey(ids []swapv1.ProviderID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = string(id)
	}
	return strings.Join(parts, ",")
}
