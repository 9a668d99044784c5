package controllers

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// orderWriteGuard remembers, per order, the resourceVersions our own writes superseded. Until
// the informer delivers the newest version, the cache still serves an older one; acting on it
// would repeat the step just taken (a second provider call, a conflicting status write).
type orderWriteGuard struct {
	mu         sync.Mutex
	superseded map[types.NamespacedName][]string
}

// wrote records that a write turned version readVersion of key into newVersion. A write
// that changed nothing (the API server keeps the version) supersedes nothing.
func (g *orderWriteGuard) wrote(key types.NamespacedName, readVersion, newVersion string) {
	if readVersion == newVersion {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.superseded == nil {
		g.superseded = map[types.NamespacedName][]string{}
	}
	g.superseded[key] = append(g.superseded[key], readVersion)
}

// stale reports whether version of key is one our writes superseded. Any other version is
// at least as new as our last write, which clears the record.
func (g *orderWriteGuard) stale(key types.NamespacedName, version string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if slices.Contains(g.superseded[key], version) {
		return true
	}
	delete(g.superseded, key)
	return false
}

func (g *orderWriteGuard) forget(key types.NamespacedName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.superseded, key)
}

// failureCounts counts consecutive failures per order in memory, with the time of the
// first (a restart starts again from zero, which only delays a threshold).
type failureCounts struct {
	mu sync.Mutex
	n  map[types.NamespacedName]failureRun
}

type failureRun struct {
	n     int32
	since time.Time
}

// inc counts one more failure of key at now and returns the count and when the run began.
func (f *failureCounts) inc(key types.NamespacedName, now time.Time) (int32, time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[types.NamespacedName]failureRun{}
	}
	run := f.n[key]
	if run.n == 0 {
		run.since = now
	}
	run.n++
	f.n[key] = run
	return run.n, run.since
}

// forget ends key's run of failures.
func (f *failureCounts) forget(key types.NamespacedName) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.n, key)
}
