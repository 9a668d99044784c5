package resilience

import "sync"

// Bulkhead caps how many calls of one key run at once without ever making a caller wait: a
// caller that finds its key full is told so at once and comes back later. The zero Bulkhead
// has no room; use NewBulkhead.
type Bulkhead[K comparable] struct {
	size int
	mu   sync.Mutex
	used map[K]int
}

// NewBulkhead returns a Bulkhead of size slots per key (at least 1).
func NewBulkhead[K comparable](size int) *Bulkhead[K] {
	return &Bulkhead[K]{size: max(size, 1), used: map[K]int{}}
}

// Size is the number of slots per key.
func (b *Bulkhead[K]) Size() int { return b.size }

// TryAcquire takes a slot of key when one is free; release gives it back (once; later calls
// do nothing).
func (b *Bulkhead[K]) TryAcquire(key K) (release func(), ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used[key] >= b.size {
		return nil, false
	}
	b.used[key]++
	var once sync.Once
	return func() { once.Do(func() { b.release(key) }) }, true
}

func (b *Bulkhead[K]) release(key K) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used[key]--; b.used[key] <= 0 {
		delete(b.used, key)
	}
}

// InUse is the number of slots of key taken now.
func (b *Bulkhead[K]) InUse(key K) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used[key]
}
