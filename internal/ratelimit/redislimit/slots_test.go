package redislimit

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/dev/localproc/redis"
	"github.com/swaprouter/swaprouter/internal/streamslots"
)

func TestSlotsAreSharedAndLeased(t *testing.T) {
	ctx := context.Background()
	srv, stop, err := redis.StartThrowaway(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	clock := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	replica := func() *Slots {
		s, err := NewSlots(srv.URL(), streamslots.NewInProcess(), logr.Discard(), prometheus.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		s.now = func() time.Time { return clock }
		s.renew = time.Hour // renewals are not what this test looks at
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, b := replica(), replica()

	releaseA, ok1 := a.Acquire(ctx, "acme", 2)
	_, ok2 := b.Acquire(ctx, "acme", 2)
	_, ok3 := a.Acquire(ctx, "acme", 2)
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("acquired %v %v %v across two replicas, want the third refused", ok1, ok2, ok3)
	}
	if _, ok := b.Acquire(ctx, "globex", 2); !ok {
		t.Fatal("another key shares acme's slots")
	}
	releaseA()
	if _, ok := b.Acquire(ctx, "acme", 2); !ok {
		t.Fatal("a slot released on one replica is not free on the other")
	}
	// Both acme slots are held now, by replica b; b dies without releasing. Its leases end.
	if _, ok := a.Acquire(ctx, "acme", 2); ok {
		t.Fatal("a third slot while two are held")
	}
	clock = clock.Add(slotLease + time.Second)
	if _, ok := a.Acquire(ctx, "acme", 2); !ok {
		t.Fatal("the slots of a replica that stopped renewing never came free")
	}
}

func TestSlotsFallBackWhenRedisIsDown(t *testing.T) {
	s, err := NewSlots("redis://127.0.0.1:1/0", streamslots.NewInProcess(), logr.Discard(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.Acquire(context.Background(), "acme", 1); !ok {
		t.Fatal("no slot while Redis is down: availability first")
	}
	if _, ok := s.Acquire(context.Background(), "acme", 1); ok {
		t.Fatal("the fallback does not cap")
	}
}
