package parking

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func obj(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: name} }

// woken drains what Wake sent so far.
func woken(l *Lot[string]) []string {
	var out []string
	for {
		select {
		case w := <-l.Woken():
			out = append(out, w.Object.Name)
		default:
			return out
		}
	}
}

func wakeAll(l *Lot[string], key string) {
	for l.Wake(key) {
	}
}

func TestWakeIsOldestFirstPerKey(t *testing.T) {
	l := New[string](16)
	l.Park("a", obj("1"))
	l.Park("b", obj("x"))
	l.Park("a", obj("2"))
	l.Park("a", obj("1")) // parked again before its turn: keeps its place
	l.Park("a", obj("3"))
	if !l.Wake("a") {
		t.Fatal("Wake(a) found nobody")
	}
	if got := woken(l); len(got) != 1 || got[0] != "1" {
		t.Fatalf("one wake of a = %v, want [1]", got)
	}
	wakeAll(l, "a")
	if got := woken(l); len(got) != 2 || got[0] != "2" || got[1] != "3" {
		t.Fatalf("the rest of a = %v, want [2 3]", got)
	}
	if l.Wake("a") {
		t.Fatal("Wake of an empty line reported a wake")
	}
	if got := l.Lens()["b"]; got != 1 {
		t.Fatalf("Lens()[b] = %d: waking a touched b", got)
	}
}

func TestObjectIsInOneLineAtMost(t *testing.T) {
	l := New[string](16)
	l.Park("a", obj("1"))
	l.Park("a", obj("2"))
	l.Park("b", obj("1")) // now waits for b instead
	if got := l.Lens()["a"]; got != 1 {
		t.Fatalf("Lens()[a] = %d after 1 moved to b, want 1", got)
	}
	l.Remove(obj("2"))
	l.Remove(obj("gone")) // never parked: nothing happens
	wakeAll(l, "a")
	wakeAll(l, "b")
	if got := woken(l); len(got) != 1 || got[0] != "1" {
		t.Fatalf("woken = %v, want only 1 (from b)", got)
	}
	if len(l.lines) != 0 || len(l.spots) != 0 {
		t.Fatalf("an empty lot keeps %d lines and %d entries", len(l.lines), len(l.spots))
	}
}

func TestFullChannelLeavesTheOldestParked(t *testing.T) {
	l := New[string](1)
	l.Park("a", obj("1"))
	l.Park("a", obj("2"))
	if !l.Wake("a") || l.Wake("a") {
		t.Fatal("want one wake into a one-slot channel, then none")
	}
	if got := l.Lens()["a"]; got != 1 {
		t.Fatalf("Lens()[a] = %d, want 1: the unsent wake must leave 2 parked", got)
	}
	_ = woken(l)
	if !l.Wake("a") {
		t.Fatal("2 was not woken once the channel had room")
	}
	if got := woken(l); len(got) != 1 || got[0] != "2" {
		t.Fatalf("woken = %v, want [2]", got)
	}
}
