// Package keyuse records when each partner API key was last used, for `swaprouter keys list`:
// in Partner.status.keysLastUsed, coarsely, so a busy key costs no API-server write per
// request. A request only notes the use in memory; a periodic flush writes the notes, and a
// key whose recorded use (as the informer cache shows it, or as this replica last noted it) is
// younger than Resolution is not noted again. N replicas therefore write a busy key's use at
// most N times per Resolution, usually once: the first write reaches the others' caches.
package keyuse

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Resolution is how precisely a key's last use is known: a use within this time of the
// recorded one is not recorded again.
const Resolution = 15 * time.Minute

// Due decides whether a use at now is worth noting, given the use recorded in the Partner's
// status (nil: none) and the one this replica noted last (zero: none).
func Due(recorded *metav1.Time, noted, now time.Time) bool {
	if recorded != nil && now.Sub(recorded.Time) < Resolution {
		return false
	}
	return noted.IsZero() || now.Sub(noted) >= Resolution
}

// Recorder notes uses and writes them to the Partners' status.
type Recorder struct {
	writer client.Client
	log    logr.Logger

	mu sync.Mutex
	// noted is the latest use this replica noted per key id; pending the notes not written yet.
	noted   map[string]time.Time
	pending map[types.NamespacedName]map[string]time.Time
	// latest is the latest use noted: notes older than Resolution before it are forgotten.
	latest time.Time
}

// NewRecorder returns a Recorder writing through writer (status merge patches).
func NewRecorder(writer client.Client, log logr.Logger) *Recorder {
	return &Recorder{writer: writer, log: log, noted: map[string]time.Time{}, pending: map[types.NamespacedName]map[string]time.Time{}}
}

// Used notes that p's key keyID authenticated a request at now. It does no I/O.
func (r *Recorder) Used(p *swapv1.Partner, keyID string, now time.Time) {
	var recorded *metav1.Time
	if t, ok := p.Status.KeysLastUsed[keyID]; ok {
		recorded = &t
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !Due(recorded, r.noted[keyID], now) {
		return
	}
	r.noted[keyID] = now
	if now.After(r.latest) {
		r.latest = now
	}
	key := client.ObjectKeyFromObject(p)
	if r.pending[key] == nil {
		r.pending[key] = map[string]time.Time{}
	}
	r.pending[key][keyID] = now.UTC().Truncate(time.Second)
}

// Flush writes the pending notes, one merge patch per Partner that names only its keys'
// entries, so it never conflicts with another writer of the status. A note whose write the
// API server refused (the key was revoked meanwhile, the Partner is gone) is dropped; one
// whose write failed otherwise is kept for the next flush (writing it twice is harmless).
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	batches := r.pending
	r.pending = map[types.NamespacedName]map[string]time.Time{}
	for id, at := range r.noted {
		if r.latest.Sub(at) >= Resolution {
			delete(r.noted, id) // the cache shows the record by now, or the key is idle
		}
	}
	r.mu.Unlock()

	var firstErr error
	for key, uses := range batches {
		err := r.write(ctx, key, uses)
		if err == nil || apierrors.IsNotFound(err) {
			continue
		}
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) {
			r.log.V(1).Info("key use not recorded", "partner", key.String(), "reason", err.Error())
			continue
		}
		r.log.Error(err, "recording key use", "partner", key.String())
		r.requeue(key, uses)
		if firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

func (r *Recorder) write(ctx context.Context, key types.NamespacedName, uses map[string]time.Time) error {
	entries := map[string]metav1.Time{}
	for id, at := range uses {
		entries[id] = metav1.Time{Time: at}
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"keysLastUsed": entries}})
	if err != nil {
		return err
	}
	p := &swapv1.Partner{}
	p.Namespace, p.Name = key.Namespace, key.Name
	return r.writer.Status().Patch(ctx, p, client.RawPatch(types.MergePatchType, patch))
}

func (r *Recorder) requeue(key types.NamespacedName, uses map[string]time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending[key] == nil {
		r.pending[key] = map[string]time.Time{}
	}
	for id, at := range uses {
		if at.After(r.pending[key][id]) {
			r.pending[key][id] = at
		}
	}
}

// flushTimeout bounds one flush, so a hanging API server cannot hold up shutdown.
const flushTimeout = 10 * time.Second

// Run flushes every interval until ctx ends, and once more then.
func (r *Recorder) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
			_ = r.Flush(fctx)
			cancel()
			return
		case <-t.C:
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
			_ = r.Flush(fctx)
			cancel()
		}
	}
}
