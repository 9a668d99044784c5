package bench

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestClosedRunsExactlyTotal(t *testing.T) {
	var calls atomic.Int64
	res := Closed(context.Background(), 4, time.Hour, 37, func(context.Context, int, int) error {
		if calls.Add(1)%10 == 0 {
			return errors.New("every tenth fails")
		}
		return nil
	})
	if calls.Load() != 37 || res.OK() != 34 || res.Errors != 3 || res.FirstErr == nil {
		t.Errorf("calls %d, ok %d, errors %d, first %v; want 37, 34, 3", calls.Load(), res.OK(), res.Errors, res.FirstErr)
	}
}

// Without a total, a closed run ends once its duration is over (it would run forever
// otherwise) and never before; how many operations fit in it depends on the machine, but
// every worker runs at least one.
func TestClosedStopsAfterDuration(t *testing.T) {
	const d = 50 * time.Millisecond
	var workers [2]atomic.Int64
	res := Closed(context.Background(), 2, d, 0, func(_ context.Context, w, _ int) error {
		workers[w].Add(1)
		return nil
	})
	if res.Elapsed < d {
		t.Errorf("ended after %v, before its %v", res.Elapsed, d)
	}
	if workers[0].Load() == 0 || workers[1].Load() == 0 {
		t.Errorf("operations per worker %d, %d: a worker ran none", workers[0].Load(), workers[1].Load())
	}
	if want := float64(res.OK()) / res.Elapsed.Seconds(); res.PerSecond() != want {
		t.Errorf("PerSecond = %v, want OK/Elapsed = %v", res.PerSecond(), want)
	}
}

// The schedule of an open run is fixed by rate and duration: every slot is either started or
// counted as refused, however late the generator runs on a busy machine.
func TestOpenPlaysEverySlotOfTheSchedule(t *testing.T) {
	res := Open(context.Background(), 200, 250*time.Millisecond, 100, func(context.Context, int, int) error { return nil })
	if n := res.OK() + res.Errors; n != 50 {
		t.Errorf("%d slots at 200/s over 250 ms, want 50", n)
	}
}

// Starts beyond maxInFlight are refused and counted, not queued: the two operations admitted
// first stay in flight until the whole schedule has been played.
func TestOpenRefusesStartsBeyondMaxInFlight(t *testing.T) {
	release := make(chan struct{})
	var started atomic.Int64
	run := startOpen(context.Background(), 200, 100*time.Millisecond, 2, func(context.Context, int, int) error {
		started.Add(1)
		<-release
		return nil
	})
	close(release)
	res := run.wait()
	if started.Load() != 2 || res.OK() != 2 || res.Errors != 18 {
		t.Errorf("started %d, ok %d, refused %d; want 2 started and the other 18 of 20 slots refused", started.Load(), res.OK(), res.Errors)
	}
	if !errors.Is(res.FirstErr, errOverloaded) {
		t.Errorf("first error %v, want the overload error", res.FirstErr)
	}
}
