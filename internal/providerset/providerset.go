// Package providerset holds the live provider adapters built from RoutingProvider objects.
// The RoutingProvider reconciler writes it; the frontend and the order reconciler read it.
package providerset

import (
	"slices"
	"sync"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Entry is one configured provider.
type Entry struct {
	Provider provider.Provider
	// Enabled providers take part in quotes and new orders; existing orders are tracked anyway.
	Enabled bool
	// PollMin and PollMax bound the uniformly jittered status poll interval.
	PollMin, PollMax time.Duration
	// Timeout bounds each call to the provider (RoutingProvider.spec.timeout); 0 leaves the
	// bound to the caller's context.
	Timeout time.Duration
}

// Set is a concurrency-safe map from provider id to its Entry.
type Set struct {
	mu      sync.RWMutex
	entries map[swapv1.ProviderID]Entry
	// loading is true from ExpectLoad until MarkLoaded.
	loading bool
}

// New returns an empty Set, counted as loaded: whoever fills it by hand has it complete.
func New() *Set { return &Set{entries: map[swapv1.ProviderID]Entry{}} }

// ExpectLoad says the Set is about to be filled from RoutingProvider objects: until
// MarkLoaded, Loaded is false and readers must not take an absent entry for a missing
// provider.
func (s *Set) ExpectLoad() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading = true
}

// MarkLoaded says every RoutingProvider has been loaded once.
func (s *Set) MarkLoaded() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading = false
}

// Loaded reports whether the Set holds every configured provider (see ExpectLoad).
func (s *Set) Loaded() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return !s.loading
}

// Put adds or replaces the entry of id.
func (s *Set) Put(id swapv1.ProviderID, e Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[id] = e
}

// Delete removes id.
func (s *Set) Delete(id swapv1.ProviderID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.entries, id)
}

// Get returns the entry of id.
func (s *Set) Get(id swapv1.ProviderID) (Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[id]
	return e, ok
}

// Enabled returns the enabled entries ordered by provider id.
func (s *Set) Enabled() []Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Entry, 0, len(s.entries))
	for _, e := range s.entries {
		if e.Enabled {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return compareIDs(a.Provider.ID(), b.Provider.ID())
	})
	return out
}

func compareIDs(a, b swapv1.ProviderID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
