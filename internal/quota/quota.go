// Package quota enforces the monthly quote cap of each partner.
//
// The count lives in Partner.status.quotaUsage so it survives restarts and is shared by every
// frontend replica. Writing it on every quote would put one API-server write on every request,
// so a replica of a capped partner first claims an allowance block of the cap
// (status.quotaUsage.claimed, raised with an optimistic-lock patch: a conflict means another
// replica wrote, so re-read and decide again) and then spends from its block in memory.
// claimed never exceeds the cap and every answered quote was spent from a claimed block, so the
// replicas together never answer more quotes than the cap, exactly. Blocks shrink near the cap
// (Block) so one replica does not sit on the rest; idle blocks are given back at the next
// flush and all of them on shutdown. A replica that crashes keeps its unused block claimed
// until the month ends: the partner then gets fewer quotes, never more.
// Answered quotes (status.quotaUsage.quotes, the usage partners see) are flushed in batches.
package quota

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
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

const (
	// maxBlock bounds a claim far from the cap: one status write per this many quotes.
	maxBlock = 100
	// blockShare: a claim takes at most 1/blockShare of what is left of the cap (or what the
	// request needs), so near the cap the replicas share the rest in ever smaller blocks.
	blockShare = 8
)

// Block is the claim decision: how many quotes a replica that needs want more takes from a
// cap of limit of which claimed are already taken this month (limit 0 means unlimited: no
// claim is needed, want is granted).
func Block(limit, claimed, want int64) int64 {
	if limit <= 0 {
		return max(want, 0)
	}
	left := limit - claimed
	if left <= 0 || want <= 0 {
		return 0
	}
	return min(left, max(want, min(maxBlock, left/blockShare)))
}

// claimedOf is what usage has taken of the cap: the claimed blocks, or the answered quotes
// when they are more (a count stored before blocks existed, or while the partner had no cap).
func claimedOf(u swapv1.QuotaUsage) int64 { return max(u.Claimed, u.Quotes) }

// Merge applies a batch of month delta.Month (answered quotes to add, a claim change) onto the
// stored usage. A batch of an older month than the stored one is stale (another replica already
// rolled over; last month's blocks expired with it) and changes nothing.
func Merge(stored *swapv1.QuotaUsage, delta swapv1.QuotaUsage) (swapv1.QuotaUsage, bool) {
	switch {
	case stored == nil || stored.Month < delta.Month:
		return swapv1.QuotaUsage{Month: delta.Month, Quotes: max(delta.Quotes, 0), Claimed: max(delta.Claimed, 0)}, true
	case stored.Month == delta.Month:
		return swapv1.QuotaUsage{Month: delta.Month, Quotes: stored.Quotes + delta.Quotes,
			Claimed: max(stored.Claimed+delta.Claimed, 0)}, true
	default:
		return *stored, false
	}
}

// block is a replica's unspent allowance of one partner in one month.
type block struct {
	month string
	free  int64
	// used: spent from since the last flush; an unused block is given back.
	used bool
}

// Counter counts quotes per partner, claims allowance blocks and flushes into Partner status.
type Counter struct {
	writer client.Client
	reader client.Reader
	log    logr.Logger

	mu sync.Mutex
	// pending is what this replica answered and has not written yet; its Claimed is the part
	// of this replica's blocks given back and not written yet (negative).
	pending map[types.NamespacedName]swapv1.QuotaUsage
	// written is the latest quote count this replica wrote; the informer cache may not show it yet.
	written map[types.NamespacedName]swapv1.QuotaUsage
	blocks  map[types.NamespacedName]block
	// claiming serializes one partner's claims on this replica: one write serves the requests
	// that queue behind it.
	claiming map[types.NamespacedName]*sync.Mutex
}

// NewCounter returns a Counter writing through writer and reading fresh Partners (for claims
// and after a conflict) through reader, normally the manager's API reader.
func NewCounter(writer client.Client, reader client.Reader, log logr.Logger) *Counter {
	return &Counter{
		writer:   writer,
		reader:   reader,
		log:      log,
		pending:  map[types.NamespacedName]swapv1.QuotaUsage{},
		written:  map[types.NamespacedName]swapv1.QuotaUsage{},
		blocks:   map[types.NamespacedName]block{},
		claiming: map[types.NamespacedName]*sync.Mutex{},
	}
}

// Reserve holds n quotes of p's cap at now while they are being answered, so concurrent
// requests cannot pass the cap together. settle(answered) counts the quotes a provider
// answered and frees the rest: quotes that failed upstream (which partners are told to
// retry) never count. When the cap does not allow n, nothing is held and retryAfter is the
// time to the next month, when the count starts again. err is a failed claim (API server).
func (c *Counter) Reserve(ctx context.Context, p *swapv1.Partner, n int64, now time.Time) (settle func(answered int64), ok bool, retryAfter time.Duration, err error) {
	settle, granted, retryAfter, err := c.ReserveUpTo(ctx, p, n, now)
	if err != nil || granted < n {
		if settle != nil {
			settle(0)
		}
		return nil, false, UntilNextMonth(now), err
	}
	return settle, true, retryAfter, nil
}

// ReserveUpTo holds as many of n quotes as p's cap (p.Spec.MonthlyQuoteQuota, the effective
// one) still allows (a rates request answers the targets that fit), claiming a block when
// this replica's is short. granted 0 holds nothing, settle is nil and retryAfter is the time
// to the next month.
func (c *Counter) ReserveUpTo(ctx context.Context, p *swapv1.Partner, n int64, now time.Time) (settle func(answered int64), granted int64, retryAfter time.Duration, err error) {
	month := Month(now)
	key := client.ObjectKeyFromObject(p)
	if n <= 0 {
		return func(int64) {}, 0, 0, nil
	}
	if p.Spec.MonthlyQuoteQuota <= 0 {
		// No cap: nothing to claim, answered quotes are only counted.
		return c.settler(key, month, n, false), n, 0, nil
	}
	// Another request of this replica may spend a fresh block first: claim again until the
	// request is served or the cap has nothing left to claim (a false 429 otherwise).
	for granted = c.spend(key, month, n); granted < n; {
		claimed, err := c.claim(ctx, key, month, p.Spec.MonthlyQuoteQuota, n-granted)
		if err != nil {
			// Unknown is not "over the cap": give back what was spent and let the caller say so.
			c.settle(key, month, granted, 0, true)
			return nil, 0, 0, err
		}
		if claimed == 0 {
			break
		}
		granted += c.spend(key, month, n-granted)
	}
	if granted == 0 {
		return nil, 0, UntilNextMonth(now), nil
	}
	return c.settler(key, month, granted, true), granted, 0, nil
}

// spend takes up to n from this replica's block of month.
func (c *Counter) spend(key types.NamespacedName, month string, n int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.blocks[key]
	if b.month != month {
		return 0 // last month's block expired with it
	}
	took := min(n, b.free)
	b.free -= took
	b.used = true
	c.blocks[key] = b
	return took
}

// claim adds a block (Block of limit and the claims the fresh Partner status shows) to this
// replica's allowance for month, unless the replica already holds want since it queued; it
// returns what was added. limit is the request's effective cap (its own or its tier's), so it
// is not read from the fresh spec.
func (c *Counter) claim(ctx context.Context, key types.NamespacedName, month string, limit, want int64) (int64, error) {
	c.mu.Lock()
	lock := c.claiming[key]
	if lock == nil {
		lock = &sync.Mutex{}
		c.claiming[key] = lock
	}
	c.mu.Unlock()
	lock.Lock()
	defer lock.Unlock()
	c.mu.Lock()
	if b := c.blocks[key]; b.month == month && b.free >= want {
		c.mu.Unlock()
		return want, nil // a claim this request queued behind brought enough
	}
	c.mu.Unlock()

	var got int64
	written, err := c.write(ctx, key, func(p *swapv1.Partner) (swapv1.QuotaUsage, bool) {
		got = 0
		stored := swapv1.QuotaUsage{Month: month}
		if u := p.Status.QuotaUsage; u != nil {
			if u.Month > month {
				return *u, false // the month rolled over under this request
			}
			if u.Month == month {
				stored = *u
			}
		}
		got = Block(limit, claimedOf(stored), want)
		if got == 0 {
			return stored, false
		}
		stored.Claimed = claimedOf(stored) + got
		return stored, true
	})
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remember(key, written)
	b := c.blocks[key]
	if b.month != month {
		b = block{month: month}
	}
	b.free += got
	b.used = true // not idle: the request that claimed it spends from it next
	c.blocks[key] = b
	return got, nil
}

// settler returns the settle function of n quotes of month reserved for key (fromBlock: spent
// from this replica's block, where the unanswered ones go back).
func (c *Counter) settler(key types.NamespacedName, month string, n int64, fromBlock bool) func(int64) {
	var once sync.Once
	return func(answered int64) {
		once.Do(func() { c.settle(key, month, n, min(max(answered, 0), n), fromBlock) })
	}
}

func (c *Counter) settle(key types.NamespacedName, month string, n, answered int64, fromBlock bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.blocks[key]; fromBlock && b.month == month {
		b.free += n - answered
		c.blocks[key] = b
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

// Used reports p's answered quotes in the month of now as this replica sees it.
func (c *Counter) Used(p *swapv1.Partner, now time.Time) int64 {
	month := Month(now)
	key := client.ObjectKeyFromObject(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	var used int64
	if cached := p.Status.QuotaUsage; cached != nil && cached.Month == month {
		used = cached.Quotes
	}
	if w := c.written[key]; w.Month == month {
		used = max(used, w.Quotes) // the cache may lag what this replica wrote
	}
	if pend := c.pending[key]; pend.Month == month {
		used += pend.Quotes
	}
	return used
}

// remember keeps the newest count this replica wrote. Callers hold c.mu.
func (c *Counter) remember(key types.NamespacedName, written *swapv1.QuotaUsage) {
	if written == nil {
		return
	}
	if w := c.written[key]; w.Month < written.Month || (w.Month == written.Month && w.Quotes < written.Quotes) {
		c.written[key] = *written
	}
}

// Flush writes every pending count and gives back the blocks not spent from since the last
// flush, so an idle replica does not keep quotes another one could answer. Batches that fail
// are kept for the next flush.
func (c *Counter) Flush(ctx context.Context) error { return c.flush(ctx, false) }

// Release is the last flush, on shutdown: it gives back every unspent block. It must come
// after the last request that could spend from them has finished.
func (c *Counter) Release(ctx context.Context) error { return c.flush(ctx, true) }

func (c *Counter) flush(ctx context.Context, all bool) error {
	c.mu.Lock()
	for key, b := range c.blocks {
		if b.free > 0 && (all || !b.used) {
			pend := c.pending[key]
			if pend.Month != b.month {
				if pend.Month > b.month {
					delete(c.blocks, key)
					continue
				}
				pend = swapv1.QuotaUsage{Month: b.month} // an older batch is stale anyway
			}
			pend.Claimed -= b.free
			c.pending[key] = pend
			b.free = 0
		}
		b.used = false
		c.blocks[key] = b
	}
	batches := c.pending
	c.pending = map[types.NamespacedName]swapv1.QuotaUsage{}
	c.mu.Unlock()

	var firstErr error
	for key, delta := range batches {
		if delta.Quotes == 0 && delta.Claimed == 0 {
			continue
		}
		written, err := c.write(ctx, key, func(p *swapv1.Partner) (swapv1.QuotaUsage, bool) {
			return Merge(p.Status.QuotaUsage, delta)
		})
		c.mu.Lock()
		if err != nil {
			if !rejected(err) {
				// The answer was lost (timeout, cut connection): the batch may have been applied.
				// Its quotes are sent again (counted twice at worst: fewer quotes, never more),
				// its given-back blocks are not: given back twice, they would let the replicas
				// claim past the cap.
				delta.Claimed = 0
			}
			c.requeue(key, delta)
		} else {
			c.remember(key, written)
		}
		c.mu.Unlock()
		if err != nil {
			c.log.Error(err, "flushing quote usage", "partner", key.String(), "quotes", delta.Quotes, "returned", -delta.Claimed)
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
		cur.Claimed += delta.Claimed
		c.pending[key] = cur
	case cur.Month < delta.Month:
		c.pending[key] = delta
	}
}

// rejected reports whether err is the API server's answer that a write was not applied (a
// 4xx status). Any other error (a timeout, a cut connection, a 5xx) may come after the write
// was applied.
func rejected(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code >= 400 && code < 500 && code != http.StatusRequestTimeout
}

// writeBackoff spaces the retries of a conflicting status write; replicas claiming together
// conflict, so it allows more (and more jittered) attempts than client-go's default.
var writeBackoff = wait.Backoff{Steps: 12, Duration: 5 * time.Millisecond, Factor: 1.5, Jitter: 1, Cap: time.Second}

// write sets the usage decide derives from the fresh Partner with an optimistic lock (a
// conflict re-reads and decides again); it returns the value written, nil when there was
// nothing to write (partner gone, decide declined).
func (c *Counter) write(ctx context.Context, key types.NamespacedName, decide func(*swapv1.Partner) (swapv1.QuotaUsage, bool)) (*swapv1.QuotaUsage, error) {
	var written *swapv1.QuotaUsage
	err := retry.RetryOnConflict(writeBackoff, func() error {
		written = nil
		p := &swapv1.Partner{}
		if err := c.reader.Get(ctx, key, p); err != nil {
			return err
		}
		usage, changed := decide(p)
		if !changed {
			return nil
		}
		patch := client.MergeFromWithOptions(p.DeepCopy(), client.MergeFromWithOptimisticLock{})
		p.Status.QuotaUsage = &usage
		if err := c.writer.Status().Patch(ctx, p, patch); err != nil {
			return err
		}
		written = &usage
		return nil
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return written, err
}

// flushTimeout bounds one periodic flush, so a hanging API server cannot hold up shutdown.
const flushTimeout = 10 * time.Second

// Run flushes every interval until ctx ends. The final Release is the caller's: it must come
// after the last request that could count a quote has finished.
func (c *Counter) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// A flush under way when ctx ends still finishes: cutting its write would lose the
			// answer of a write the API server may have applied. Failures are logged and
			// retried next tick.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
			_ = c.Flush(fctx)
			cancel()
		}
	}
}
