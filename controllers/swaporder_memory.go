package controllers

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orders"
)

// orderMemory is everything the order reconciler keeps about an order between passes, in
// memory only (a restart starts from nothing, which costs at most a repeated step or a
// later threshold, see each field). An order gone from the cache is forgotten at once.
type orderMemory struct {
	mu    sync.Mutex
	notes map[types.NamespacedName]*orderNotes
}

type orderNotes struct {
	// superseded are the resourceVersions our own writes replaced. Until the informer
	// delivers the newest version the cache serves an older one; acting on it would repeat
	// the step just taken (a second provider call, a conflicting status write).
	superseded []string
	// failures and emitFailures are runs of consecutive failures (provider calls, webhook
	// delivery creates). Counts reach status only at threshold crossings
	// (orders.PersistFailures), never per call.
	failures, emitFailures failureRun
	// emitted is the highest seq whose WebhookDelivery this process created (or found not
	// wanted) after the status write that recorded it; the UID tells a recreated order of
	// the same name from the one remembered (swaporder_emission.go).
	emitted    int64
	emittedUID types.UID
}

type failureRun struct {
	n     int32
	since time.Time
}

func (n *orderNotes) empty() bool {
	return len(n.superseded) == 0 && n.failures.n == 0 && n.emitFailures.n == 0 && n.emitted == 0
}

// edit runs fn on key's notes under the lock and drops notes left empty.
func (m *orderMemory) edit(key types.NamespacedName, fn func(*orderNotes)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.notes[key]
	if n == nil {
		n = &orderNotes{}
	}
	fn(n)
	if n.empty() {
		delete(m.notes, key)
		return
	}
	if m.notes == nil {
		m.notes = map[types.NamespacedName]*orderNotes{}
	}
	m.notes[key] = n
}

// forget drops everything remembered about key (the order is gone).
func (m *orderMemory) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.notes, key)
}

// wrote records that a write turned version readVersion of key into newVersion. A write
// that changed nothing (the API server keeps the version) supersedes nothing.
func (m *orderMemory) wrote(key types.NamespacedName, readVersion, newVersion string) {
	if readVersion == newVersion {
		return
	}
	m.edit(key, func(n *orderNotes) { n.superseded = append(n.superseded, readVersion) })
}

// stale reports whether version of key is one our writes superseded. Any other version is
// at least as new as our last write, which clears the record.
func (m *orderMemory) stale(key types.NamespacedName, version string) (stale bool) {
	m.edit(key, func(n *orderNotes) {
		if stale = slices.Contains(n.superseded, version); !stale {
			n.superseded = nil
		}
	})
	return stale
}

// failed counts one more failure of key's provider calls at now and returns the count and
// when the run began.
func (m *orderMemory) failed(key types.NamespacedName, now time.Time) (n int32, since time.Time) {
	m.edit(key, func(notes *orderNotes) { n, since = notes.failures.inc(now) })
	return n, since
}

// recovered ends key's run of provider call failures.
func (m *orderMemory) recovered(key types.NamespacedName) {
	m.edit(key, func(n *orderNotes) { n.failures = failureRun{} })
}

// emitFailed counts one more failed delivery create of key and returns the count.
func (m *orderMemory) emitFailed(key types.NamespacedName, now time.Time) (n int32) {
	m.edit(key, func(notes *orderNotes) { n, _ = notes.emitFailures.inc(now) })
	return n
}

// emitRecovered ends key's run of failed delivery creates.
func (m *orderMemory) emitRecovered(key types.NamespacedName) {
	m.edit(key, func(n *orderNotes) { n.emitFailures = failureRun{} })
}

func (f *failureRun) inc(now time.Time) (int32, time.Time) {
	if f.n == 0 {
		f.since = now
	}
	f.n++
	return f.n, f.since
}

// rememberEmitted records that o's deliveries exist up to seq.
func (m *orderMemory) rememberEmitted(o *swapv1.SwapOrder, seq int64) {
	m.edit(client.ObjectKeyFromObject(o), func(n *orderNotes) {
		if n.emittedUID == o.UID {
			seq = max(seq, n.emitted)
		}
		n.emitted, n.emittedUID = seq, o.UID
	})
}

// snapshot is what memory holds of o, as orders.Plan takes it. The emitted seq is o's when
// it is ahead of o's stored notifiedSeq, else 0 (see caughtUp).
func (m *orderMemory) snapshot(o *swapv1.SwapOrder) orders.Memory {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.notes[client.ObjectKeyFromObject(o)]
	if n == nil {
		return orders.Memory{}
	}
	s := orders.Memory{Failures: n.failures.n, FailingSince: n.failures.since, EmitFailures: n.emitFailures.n}
	if n.emittedUID == o.UID && n.emitted > o.Status.NotifiedSeq {
		s.Emitted = n.emitted
	}
	return s
}

// caughtUp forgets the remembered emitted seq of o once its stored notifiedSeq (notified)
// covers it, or when it was of another order of that name.
func (m *orderMemory) caughtUp(o *swapv1.SwapOrder, notified int64) {
	m.edit(client.ObjectKeyFromObject(o), func(n *orderNotes) {
		if n.emitted != 0 && (n.emittedUID != o.UID || n.emitted <= notified) {
			n.emitted, n.emittedUID = 0, ""
		}
	})
}
