package resilience

import "testing"

func TestBulkheadCapsEachKeyOnItsOwn(t *testing.T) {
	p := NewBulkhead[string](2)
	r1, ok1 := p.TryAcquire("a")
	_, ok2 := p.TryAcquire("a")
	_, ok3 := p.TryAcquire("a")
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("a: got %v %v %v, want two slots then none", ok1, ok2, ok3)
	}
	if _, ok := p.TryAcquire("b"); !ok {
		t.Fatal("a full key must not hold back another key")
	}
	r1()
	r1() // a second release of the same slot frees nothing more
	if got := p.InUse("a"); got != 1 {
		t.Fatalf("InUse(a) = %d after one release, want 1", got)
	}
	if _, ok := p.TryAcquire("a"); !ok {
		t.Fatal("a released slot must be free again")
	}
	if _, ok := p.TryAcquire("a"); ok {
		t.Fatal("a double release must not free a second slot")
	}
}

func TestBulkheadHasAtLeastOneSlot(t *testing.T) {
	if got := NewBulkhead[int](0).Size(); got != 1 {
		t.Fatalf("Size = %d, want 1", got)
	}
}
