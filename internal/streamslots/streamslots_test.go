package streamslots

import (
	"context"
	"testing"
)

func TestInProcessCapsPerKey(t *testing.T) {
	s := NewInProcess()
	ctx := context.Background()
	r1, ok1 := s.Acquire(ctx, "acme", 2)
	_, ok2 := s.Acquire(ctx, "acme", 2)
	_, ok3 := s.Acquire(ctx, "acme", 2)
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("acquired %v %v %v, want the third refused", ok1, ok2, ok3)
	}
	if _, ok := s.Acquire(ctx, "globex", 2); !ok {
		t.Fatal("another key shares acme's slots")
	}
	r1()
	r1() // a second release gives nothing back twice
	if _, ok := s.Acquire(ctx, "acme", 2); !ok {
		t.Fatal("a released slot is not free again")
	}
	if _, ok := s.Acquire(ctx, "acme", 2); ok {
		t.Fatal("a double release freed two slots")
	}
}
