// Package callstats keeps what one process measured of its calls to each provider over the
// last hour: how many calls, how many failed the provider as a whole, and their latencies, in
// one-minute slots with a fixed latency histogram each, so memory stays bounded whatever the
// traffic. The call metrics feed it (metrics.Instrument); GET /v1/providers and the
// RoutingProvider status summary read it. A Window with SettleBounds keeps the orders'
// settlement the same way (the order reconciler feeds it when an order ends).
package callstats

import (
	"math"
	"sync"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Span is how far back a Window looks.
const Span = time.Hour

const slots = 60

// slotWidth is the width of one slot.
const slotWidth = Span / slots

// Bounds are the upper bounds (inclusive) of a Window's latency buckets; one more bucket holds
// the rest. A percentile is reported as the bound of its bucket.
type Bounds [12]time.Duration

// CallBounds suit provider calls, 5 ms to 30 s.
var CallBounds = Bounds{
	5 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second,
	2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 30 * time.Second,
}

// SettleBounds suit an order's settlement, from its deposit seen to its outcome: 15 s (about
// one status poll) to 4 h.
var SettleBounds = Bounds{
	15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 3 * time.Minute,
	5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour,
	2 * time.Hour, 4 * time.Hour,
}

// Settlement is the call label a settlement Window records orders under.
const Settlement = "settlement"

// Tally is a count of calls: their number, the provider-wide failures among them, their
// latencies by bucket, and the start of the oldest slot with a failure.
type Tally struct {
	Calls, Failed int64
	Latency       [len(Bounds{}) + 1]int64
	FirstFailure  time.Time
	// bounds are the Window's; nil is CallBounds.
	bounds *Bounds
}

func (t Tally) scale() *Bounds {
	if t.bounds == nil {
		return &CallBounds
	}
	return t.bounds
}

// add folds o into t.
func (t *Tally) add(o Tally) {
	t.Calls += o.Calls
	t.Failed += o.Failed
	for i := range t.Latency {
		t.Latency[i] += o.Latency[i]
	}
	if !o.FirstFailure.IsZero() && (t.FirstFailure.IsZero() || o.FirstFailure.Before(t.FirstFailure)) {
		t.FirstFailure = o.FirstFailure
	}
}

// Percentile is the latency within which a share q of the calls answered, to the precision
// of the buckets (a call past the last bound counts as twice that bound); false without calls.
func (t Tally) Percentile(q float64) (time.Duration, bool) {
	var n int64
	for _, c := range t.Latency {
		n += c
	}
	if n == 0 {
		return 0, false
	}
	// Nearest rank: the smallest latency at least a share q of the calls did not exceed.
	rank := max(int64(math.Ceil(q*float64(n))), 1)
	bounds := t.scale()
	var seen int64
	for i, c := range t.Latency {
		seen += c
		if seen >= rank && i < len(bounds) {
			return bounds[i], true
		}
	}
	return 2 * bounds[len(bounds)-1], true
}

// SuccessRate is the share of calls that did not fail the provider as a whole; false without
// calls.
func (t Tally) SuccessRate() (float64, bool) {
	if t.Calls == 0 {
		return 0, false
	}
	return float64(t.Calls-t.Failed) / float64(t.Calls), true
}

type key struct {
	provider swapv1.ProviderID
	call     string
}

// slot is one minute of one provider's calls of one kind.
type slot struct {
	start time.Time
	tally Tally
}

// Window is the last Span of calls of this process. Safe for concurrent use; the zero value
// uses time.Now and CallBounds.
type Window struct {
	Now func() time.Time
	// Bounds are the latency buckets; nil is CallBounds.
	Bounds *Bounds

	mu    sync.Mutex
	rings map[key]*[slots]slot
}

func (w *Window) scale() *Bounds {
	if w.Bounds == nil {
		return &CallBounds
	}
	return w.Bounds
}

func (w *Window) now() time.Time {
	if w.Now == nil {
		return time.Now()
	}
	return w.Now()
}

// Record counts one call of provider (call is one of the metrics package's call labels) that
// took took and failed the provider as a whole or not.
func (w *Window) Record(provider swapv1.ProviderID, call string, took time.Duration, failed bool) {
	now := w.now()
	start := now.Truncate(slotWidth)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rings == nil {
		w.rings = map[key]*[slots]slot{}
	}
	k := key{provider, call}
	ring := w.rings[k]
	if ring == nil {
		ring = &[slots]slot{}
		w.rings[k] = ring
	}
	s := &ring[start.Unix()/int64(slotWidth/time.Second)%slots]
	if !s.start.Equal(start) {
		*s = slot{start: start}
	}
	s.tally.Calls++
	if failed {
		s.tally.Failed++
		if s.tally.FirstFailure.IsZero() {
			s.tally.FirstFailure = start
		}
	}
	bounds := w.scale()
	b := 0
	for b < len(bounds) && took > bounds[b] {
		b++
	}
	s.tally.Latency[b]++
}

// Tally adds up provider's calls of the given kinds (metrics call labels) over the last Span.
func (w *Window) Tally(provider swapv1.ProviderID, calls ...string) Tally {
	oldest := w.now().Add(-Span)
	w.mu.Lock()
	defer w.mu.Unlock()
	t := Tally{bounds: w.scale()}
	for _, call := range calls {
		ring := w.rings[key{provider, call}]
		if ring == nil {
			continue
		}
		for _, s := range ring {
			if s.start.After(oldest) {
				t.add(s.tally)
			}
		}
	}
	return t
}

// Latency is t's median and 95th percentile in milliseconds; nil without calls.
func Latency(t Tally) *swapv1.LatencyPercentiles {
	p50, ok := t.Percentile(0.5)
	if !ok {
		return nil
	}
	p95, _ := t.Percentile(0.95)
	return &swapv1.LatencyPercentiles{P50: p50.Milliseconds(), P95: p95.Milliseconds()}
}

// Settled is t, a settlement Window's tally, as the status records it: nil without orders.
func Settled(t Tally) *swapv1.SettlementSummary {
	p50, ok := t.Percentile(0.5)
	if !ok {
		return nil
	}
	p95, _ := t.Percentile(0.95)
	return &swapv1.SettlementSummary{Orders: t.Calls, Succeeded: t.Calls - t.Failed,
		Seconds: swapv1.LatencyPercentiles{P50: int64(p50 / time.Second), P95: int64(p95 / time.Second)}}
}
