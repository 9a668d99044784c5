// Package slots caps how many things of one key run at once without ever making a caller
// wait: a caller that finds its key full is told so at once and comes back later. The order
// reconciler uses it for provider calls (key: provider) and for step kinds (key: create or
// track), so a worker is never parked on a slow provider or on a flood of one kind of work.
package slots

import "sync"

// Pool holds Size slots per key. The zero Pool has no slots; use New.
type Pool[K comparable] struct {
	size int
	mu   sync.Mutex
	used map[K]int
}

// New returns a Pool of size slots per key (at least 1).
func New[K comparable](size int) *Pool[K] {
	return &Pool[K]{size: max(size, 1), used: map[K]int{}}
}

// Size is the number of slots per key.
func (p *Pool[K]) Size() int { return p.size }

// TryAcquire takes a slot of key when one is free; release gives it back (call it once).
func (p *Pool[K]) TryAcquire(key K) (release func(), ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used[key] >= p.size {
		return nil, false
	}
	p.used[key]++
	var once sync.Once
	return func() { once.Do(func() { p.release(key) }) }, true
}

func (p *Pool[K]) release(key K) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used[key]--; p.used[key] <= 0 {
		delete(p.used, key)
	}
}

// InUse is the number of slots of key taken now.
func (p *Pool[K]) InUse(key K) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used[key]
}
