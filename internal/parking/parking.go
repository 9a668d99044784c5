// Package parking keeps the objects that found every slot of some key in use, oldest first,
// and wakes them one at a time as that key's slots free, so a waiter needs no short timer
// spinning it through its controller's queue. The order reconciler parks orders on provider
// call slots and on the deposit-creation share, the webhook delivery reconciler parks
// deliveries on partner endpoints; each controller watches Source(lot.Woken()).
package parking

import (
	"container/list"
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Wake is what Woken delivers: the object to reconcile now.
type Wake = event.TypedGenericEvent[types.NamespacedName]

// Lot holds one line per key. Memory is one entry per parked object: an object is in at
// most one line, and a line that empties is dropped.
type Lot[K comparable] struct {
	mu    sync.Mutex
	lines map[K]*list.List // of types.NamespacedName, oldest first
	spots map[types.NamespacedName]spot[K]
	woken chan Wake
}

type spot[K comparable] struct {
	key K
	el  *list.Element
}

// New returns an empty lot whose Woken channel holds buffer wake-ups not yet taken by the
// controller; when it is full, Wake leaves the oldest parked and its own timer brings it back.
func New[K comparable](buffer int) *Lot[K] {
	return &Lot[K]{lines: map[K]*list.List{}, spots: map[types.NamespacedName]spot[K]{}, woken: make(chan Wake, buffer)}
}

// Woken delivers each object Wake took out of its line.
func (l *Lot[K]) Woken() <-chan Wake { return l.woken }

// Park puts obj at the end of key's line. An object already in key's line keeps its place
// (it was held back again before its turn came); one in another key's line moves here.
func (l *Lot[K]) Park(key K, obj types.NamespacedName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.spots[obj]; ok {
		if s.key == key {
			return
		}
		l.remove(obj, s)
	}
	line := l.lines[key]
	if line == nil {
		line = list.New()
		l.lines[key] = line
	}
	l.spots[obj] = spot[K]{key: key, el: line.PushBack(obj)}
}

// Remove takes obj out of its line, if it is in one: it got its slot, or it is gone.
func (l *Lot[K]) Remove(obj types.NamespacedName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.spots[obj]; ok {
		l.remove(obj, s)
	}
}

func (l *Lot[K]) remove(obj types.NamespacedName, s spot[K]) {
	line := l.lines[s.key]
	line.Remove(s.el)
	if line.Len() == 0 {
		delete(l.lines, s.key)
	}
	delete(l.spots, obj)
}

// Wake sends the oldest object of key's line to Woken and takes it out of the line. It
// reports false when the line is empty or the channel is full (the object stays first).
func (l *Lot[K]) Wake(key K) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := l.lines[key]
	if line == nil {
		return false
	}
	obj := line.Front().Value.(types.NamespacedName)
	select {
	case l.woken <- Wake{Object: obj}:
		l.remove(obj, l.spots[obj])
		return true
	default:
		return false
	}
}

// Lens is the length of every line that holds an object.
func (l *Lot[K]) Lens() map[K]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[K]int, len(l.lines))
	for key, line := range l.lines {
		out[key] = line.Len()
	}
	return out
}

// Source feeds woken objects into a controller's queue. An object still queued for its own
// timer is moved to now and keeps the priority it was queued with (the priority queue keeps
// the higher of the two).
func Source(woken <-chan Wake) source.TypedSource[reconcile.Request] {
	return source.Channel(woken, handler.TypedFuncs[types.NamespacedName, reconcile.Request]{
		GenericFunc: func(_ context.Context, e Wake, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(reconcile.Request{NamespacedName: e.Object})
		},
	})
}
