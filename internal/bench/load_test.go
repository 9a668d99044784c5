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

func TestClosedStopsAfterDuration(t *testing.T) {
	res := Closed(context.Background(), 2, 50*time.Millisecond, 0, func(context.Context, int, int) error {
		time.Sleep(5 * time.Millisecond)
		return nil
	})
	if res.Elapsed < 50*time.Millisecond || res.Elapsed > time.Second || res.OK() < 4 {
		t.Errorf("elapsed %v with %d operations", res.Elapsed, res.OK())
	}
	if ps := res.PerSecond(); ps <= 0 || ps > 2*1000/5+50 {
		t.Errorf("PerSecond = %v, impossible for 2 workers of 5 ms", ps)
	}
}

func TestOpenKeepsTheRateAndCountsOverload(t *testing.T) {
	res := Open(context.Background(), 200, 250*time.Millisecond, 100, func(context.Context, int, int) error { return nil })
	if n := res.OK(); n < 45 || n > 55 {
		t.Errorf("%d operations at 200/s over 250 ms, want about 50", n)
	}
	slow := Open(context.Background(), 200, 100*time.Millisecond, 2, func(context.Context, int, int) error {
		time.Sleep(200 * time.Millisecond)
		return nil
	})
	if slow.OK() != 2 || slow.Errors < 15 {
		t.Errorf("with 2 in flight and 200 ms operations: ok %d, errors %d; want 2 and the rest refused", slow.OK(), slow.Errors)
	}
}
