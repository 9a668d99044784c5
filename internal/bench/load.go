package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Op is one operation of a load run; worker is the caller's index, i the operation's.
type Op func(ctx context.Context, worker, i int) error

// LoadResult is what a load run measured.
type LoadResult struct {
	// Latencies of the operations that succeeded.
	Latencies []time.Duration
	Errors    int
	FirstErr  error
	Elapsed   time.Duration
}

// OK is the number of operations that succeeded.
func (r LoadResult) OK() int { return len(r.Latencies) }

// PerSecond is successful operations per second of the run.
func (r LoadResult) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.OK()) / r.Elapsed.Seconds()
}

type collector struct {
	mu sync.Mutex
	LoadResult
}

func (c *collector) add(d time.Duration, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.Errors++
		if c.FirstErr == nil {
			c.FirstErr = err
		}
		return
	}
	c.Latencies = append(c.Latencies, d)
}

// Closed runs op from concurrency workers back to back, each starting its next operation
// when the previous ends, for duration d, or until total operations started when total > 0.
// Every worker runs at least one operation, so a run always has samples, however slow.
func Closed(ctx context.Context, concurrency int, d time.Duration, total int, op Op) LoadResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var c collector
	var next atomic.Int64
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Go(func() {
			for first := true; ctx.Err() == nil; first = false {
				i := int(next.Add(1)) - 1
				if total > 0 && i >= total {
					return
				}
				if total <= 0 && !first && time.Now().After(deadline) {
					return
				}
				t0 := time.Now()
				err := op(ctx, w, i)
				c.add(time.Since(t0), err)
			}
		})
	}
	wg.Wait()
	c.Elapsed = time.Since(start)
	return c.LoadResult
}

// Open starts op at a fixed rate per second for duration d, whatever the latency (as
// independent partners would), with at most maxInFlight outstanding; starts beyond that are
// counted as errors so an overloaded system shows up instead of slowing the generator.
func Open(ctx context.Context, rate float64, d time.Duration, maxInFlight int, op Op) LoadResult {
	return startOpen(ctx, rate, d, maxInFlight, op).wait()
}

// openRun is an open-loop run whose schedule has been played out; operations may still be
// in flight until wait returns.
type openRun struct {
	c     *collector
	wg    *sync.WaitGroup
	start time.Time
}

// startOpen plays the whole schedule of an open-loop run and returns without waiting for the
// operations still in flight.
func startOpen(ctx context.Context, rate float64, d time.Duration, maxInFlight int, op Op) openRun {
	run := openRun{c: &collector{}, wg: &sync.WaitGroup{}, start: time.Now()}
	sem := make(chan struct{}, maxInFlight)
	interval := time.Duration(float64(time.Second) / rate)
	for i := 0; ; i++ {
		at := run.start.Add(time.Duration(i) * interval)
		if at.Sub(run.start) >= d || ctx.Err() != nil {
			break
		}
		if wait := time.Until(at); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		select {
		case sem <- struct{}{}:
		default:
			run.c.add(0, errOverloaded)
			continue
		}
		run.wg.Go(func() {
			defer func() { <-sem }()
			t0 := time.Now()
			err := op(ctx, 0, i)
			run.c.add(time.Since(t0), err)
		})
	}
	return run
}

// wait waits for the operations in flight and returns what the run measured.
func (r openRun) wait() LoadResult {
	r.wg.Wait()
	r.c.Elapsed = time.Since(r.start)
	return r.c.LoadResult
}

type overloaded struct{}

func (overloaded) Error() string {
	return "too many requests in flight: the system fell behind the rate"
}

var errOverloaded error = overloaded{}
