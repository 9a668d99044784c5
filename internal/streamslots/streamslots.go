// Package streamslots caps how many long-lived streams (GET /v1/events) each partner holds
// at once. InProcess counts in this process; package redislimit's Slots counts across every
// replica sharing a Redis, the way the per-minute limits are shared.
package streamslots

import (
	"context"
	"sync"
)

// Slots hands out at most limit concurrent slots per key.
type Slots interface {
	// Acquire takes one of key's limit slots: ok is false when all are held. release gives
	// it back (once; later calls do nothing).
	Acquire(ctx context.Context, key string, limit int) (release func(), ok bool)
}

// InProcess counts the slots held in this process.
type InProcess struct {
	mu   sync.Mutex
	held map[string]int
}

// NewInProcess returns an InProcess with nothing held.
func NewInProcess() *InProcess { return &InProcess{held: map[string]int{}} }

// Acquire takes a slot of key when fewer than limit are held.
func (s *InProcess) Acquire(_ context.Context, key string, limit int) (func(), bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[key] >= limit {
		return nil, false
	}
	s.held[key]++
	var once sync.Once
	return func() { once.Do(func() { s.release(key) }) }, true
}

func (s *InProcess) release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[key]--; s.held[key] <= 0 {
		delete(s.held, key)
	}
}
