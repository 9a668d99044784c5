// Package quota enforces the monthly quote cap of each partner.
//
// The count lives in Partner.status.quotaUsage so it survives restarts and is shared by every
// frontend replica. Writing it on every quote would put one API-server write on every request,
// so each replica counts locally and flushes its increments in batches with an
// optimistic-concurrency patch (a conflict means another replica wrote: re-read and add again).
// Enforcement therefore lags by at most one flush interval per replica: a partner can overshoot
// the cap by what the other replicas counted but have not flushed yet.
package quota

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Month is the UTC month of t as stored in status.quotaUsage.month (YYYY-MM).
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// UntilNextMonth is the time from t to the first instant of the next UTC month.
func UntilNextMonth(t time.Time) time.Duration {
	t = t.UTC()
	next := time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	return next.Sub(t)
}

// Grant is the cap decision: how many of n more quotes a limit allows with used counted
// (limit 0 means unlimited).
func Grant(limit, used, n int64) int64 {
	if limit <= 0 {
		return n
	}
	return max(0, min(n, limit-used))
}

// Merge adds a batch counted in delta.Month onto the stored usage. A batch of an older month
// than the stored one is stale (another replica already rolled over) and changes nothing.
func Merge(stored *swapv1.QuotaUsage, delta swapv1.QuotaUsage) (swapv1.QuotaUsage, bool) {
	switch {
	case stored == nil || stored.Month < delta.Month:
		return delta, true
	case stored.Month == delta.Month:
		return swapv1.QuotaUsage{Month: delta.Month, Quotes: stored.Quotes + delta.Quotes}, true
	default:
		return *stored, false
	}
}

// Counter counts quotes per partner and flushes them into Partner status.
type Counter struct {
	writer client.Client
	reader client.Reader
	log    logr.Logger

	mu sync.Mutex
	// pending is what this replica counted and has not written yet.
	pending map[types.NamespacedName]swapv1.QuotaUsage
	// written is the latest value this replica wrote; the informer cache may not show it yet.
	written map[types.NamespacedName]swapv1.QuotaUsage
	// held is what requests being answered reserved (Reserve) and not settled yet.
	held map[types.NamespacedName]swapv1.QuotaUsage
}

// NewCounter returns a Counter writing through writer and reading fresh Partners (after a
// conflict) through reader, normally the manager's API reader.
func NewCounter(writer client.Client, reader client.Reader, log logr.Logger) *Counter {
	return &Counter{
		writer:  writer,
		reader:  reader,
		log:     log,
		pending: map[types.NamespacedName]swapv1.QuotaUsage{},
		written: map[types.NamespacedName]swapv1.QuotaUsage{},
		held:    map[types.NamespacedName]swapv1.QuotaUsage{},
	}
}

// Take counts n quotes for p at now when the cap allows them (Reserve, all answered).
func (c *Counter) Take(p *swapv1.Partner, n int64, now time.Time) (ok bool, retryAfter time.Duration) {
	settle, ok, retryAfter := c.Reserve(p, n, now)
	if ok {
		settle(n)
	}
	return ok, retryAfter
}

// Reserve holds n quotes of p's cap at now while they are being answered, so concurrent
// requests cannot pass the cap together. settle(answered) counts the quotes a provider
// answered and frees the rest: quotes that failed upstream (which partners are told to
// retry) never count. When the cap does not allow n, nothing is held and retryAfter is the
// time to the next month, when the count starts again.
func (c *Counter) Reserve(p *swapv1.Partner, n int64, now time.Time) (settle func(answered int64), ok bool, retryAfter time.Duration) {
	settle, granted, retryAfter := c.ReserveUpTo(p, n, now)
	if granted < n {
		if settle != nil {
			settle(0)
		}
		return nil, false, UntilNextMonth(now)
	}
	return settle, true, retryAfter
}

// ReserveUpTo holds as many of n quotes as p's cap still allows (a rates request answers
// the targets that fit). granted 0 holds nothing, settle is nil and retryAfter is the time
// to the next month.
func (c *Counter) ReserveUpTo(p *swapv1.Partner, n int64, now time.Time) (settle func(answered int64), granted int64, retryAfter time.Duration) {
	month := Month(now)
	key := client.ObjectKeyFromObject(p)

	c.mu.Lock()
	defer c.mu.Unlock()
	used := c.stored(key, p.Status.QuotaUsage, month)
	pend := c.pending[key]
	if pend.Month != month {
		// A batch of last month not yet flushed no longer matters for this month's cap.
		pend = swapv1.QuotaUsage{Month: month}
	}
	held := c.held[key]
	if held.Month != month {
		held = swapv1.QuotaUsage{Month: month}
	}
	granted = Grant(p.Spec.MonthlyQuoteQuota, used+pend.Quotes+held.Quotes, n)
	if granted == 0 && n > 0 {
		return nil, 0, UntilNextMonth(now)
	}
	held.Quotes += granted
	c.held[key] = held
	var once sync.Once
	return func(answered int64) { once.Do(func() { c.settle(key, month, granted, min(answered, granted)) }) }, granted, 0
}

// settle releases n held quotes of month and counts answered of them.
func (c *Counter) settle(key types.NamespacedName, month string, n, answered int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if held := c.held[key]; held.Month == month {
		held.Quotes -= n
		c.held[key] = held
	}
	pend := c.pending[key]
	switch {
	case pend.Month > month:
		return // reserved before the roll-over: last month's count is closed
	case pend.Month < month:
		pend = swapv1.QuotaUsage{Month: month}
	}
	pend.Quotes += answered
	c.pending[key] = pend
}

// Used reports p's count in the month of now as this replica sees it.
func (c *Counter) Used(p *swapv1.Partner, now time.Time) int64 {
	month := Month(now)
	key := client.ObjectKeyFromObject(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	used := c.stored(key, p.Status.QuotaUsage, month)
	if pend := c.pending[key]; pend.Month == month {
		used += pend.Quotes
	}
	return used
}

// stored is the persisted count of month: the larger of the cached status and what this
// replica wrote last (counts only grow within a month). Callers hold c.mu.
func (c *Counter) stored(key types.NamespacedName, cached *swapv1.QuotaUsage, month string) int64 {
	var used int64
	if cached != nil && cached.Month == month {
		used = cached.Quotes
	}
	if w := c.written[key]; w.Month == month {
		used = max(used, w.Quotes)
	}
	return used
}

// Flush writes every pending batch. Batches that fail are kept for the next flush.
func (c *Counter) Flush(ctx context.Context) error {
	c.mu.Lock()
	batches := c.pending
	c.pending = map[types.NamespacedName]swapv1.QuotaUsage{}
	c.mu.Unlock()

	var firstErr error
	for key, delta := range batches {
		if delta.Quotes == 0 {
			continue
		}
		written, err := c.write(ctx, key, delta)
		c.mu.Lock()
		if err != nil {
			c.requeue(key, delta)
		} else if written != nil {
			if w := c.written[key]; w.Month < written.Month || (w.Month == written.Month && w.Quotes < written.Quotes) {
				c.written[key] = *written
			}
		}
		c.mu.Unlock()
		if err != nil {
			c.log.Error(err, "flushing quote usage", "partner", key.String(), "quotes", delta.Quotes)
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	return firstErr
}

// requeue puts a failed batch back. Callers hold c.mu.
func (c *Counter) requeue(key types.NamespacedName, delta swapv1.QuotaUsage) {
	cur := c.pending[key]
	switch {
	case cur.Month == delta.Month:
		cur.Quotes += delta.Quotes
		c.pending[key] = cur
	case cur.Month < delta.Month:
		c.pending[key] = delta
	}
}

// write adds delta to the stored usage with an optimistic lock; it returns the value written,
// nil when there was nothing to write (partner gone, stale month).
func (c *Counter) write(ctx context.Context, key types.NamespacedName, delta swapv1.QuotaUsage) (*swapv1.QuotaUsage, error) {
	var written *swapv1.QuotaUsage
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		written = nil
		p := &swapv1.Partner{}
		if err := c.reader.Get(ctx, key, p); err != nil {
			return client.IgnoreNotFound(err)
		}
		merged, changed := Merge(p.Status.QuotaUsage, delta)
		if !changed {
			return nil
		}
		patch := client.MergeFromWithOptions(p.DeepCopy(), client.MergeFromWithOptimisticLock{})
		p.Status.QuotaUsage = &merged
		if err := c.writer.Status().Patch(ctx, p, patch); err != nil {
			return err
		}
		written = &merged
		return nil
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return written, err
}

// Run flushes every interval until ctx ends. The final flush is the caller's: it must come
// after the last request that could count a quote has finished.
func (c *Counter) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = c.Flush(ctx) // failures are logged and retried next tick
		}
	}
}
