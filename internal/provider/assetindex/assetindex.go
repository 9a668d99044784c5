// Package assetindex maps CAIP-19 ids to a provider's own token ids, for both adapters. The
// list is fetched on demand and kept for a while, so a quote does not cost an extra call.
package assetindex

import (
	"context"
	"sync"
	"time"

	"github.com/swaprouter/swaprouter/internal/provider"
)

// Entry is one asset with the provider's token data T.
type Entry[T any] struct {
	Asset provider.Asset
	Token T
}

// Index caches a provider's asset list.
type Index[T any] struct {
	ttl  time.Duration
	load func(ctx context.Context) ([]Entry[T], error)
	now  func() time.Time

	mu      sync.Mutex
	byID    map[string]Entry[T]
	list    []provider.Asset
	fetched time.Time
}

// New returns an Index that reloads through load when older than ttl.
func New[T any](ttl time.Duration, load func(ctx context.Context) ([]Entry[T], error)) *Index[T] {
	return &Index[T]{ttl: ttl, load: load, now: time.Now}
}

// Refresh fetches the list now and returns it.
func (x *Index[T]) Refresh(ctx context.Context) ([]provider.Asset, error) {
	entries, err := x.load(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]Entry[T], len(entries))
	list := make([]provider.Asset, 0, len(entries))
	for _, e := range entries {
		if _, dup := byID[e.Asset.AssetID]; dup {
			continue
		}
		byID[e.Asset.AssetID] = e
		list = append(list, e.Asset)
	}
	x.mu.Lock()
	x.byID, x.list, x.fetched = byID, list, x.now()
	x.mu.Unlock()
	return append([]provider.Asset(nil), list...), nil
}

// Lookup finds a CAIP-19 id, loading the list when it is missing or stale.
func (x *Index[T]) Lookup(ctx context.Context, assetID string) (Entry[T], bool, error) {
	x.mu.Lock()
	fresh := x.byID != nil && x.now().Sub(x.fetched) < x.ttl
	e, ok := x.byID[assetID]
	x.mu.Unlock()
	if fresh {
		return e, ok, nil
	}
	if _, err := x.Refresh(ctx); err != nil {
		return Entry[T]{}, false, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	e, ok = x.byID[assetID]
	return e, ok, nil
}

// Find returns the first cached entry whose token satisfies match (no loading).
func (x *Index[T]) Find(match func(T) bool) (Entry[T], bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range x.byID {
		if match(e.Token) {
			return e, true
		}
	}
	return Entry[T]{}, false
}
