// Package livebook keeps each partner's live SwapOrders in listing order (newest first, then
// by id), fed by the SwapOrder informer's events, so that a page of GET /v1/orders finds its
// live orders by a binary search instead of copying and sorting every live order of the
// partner on each request. It holds the informer's own objects: read only.
package livebook

import (
	"slices"
	"sort"
	"sync"

	toolscache "k8s.io/client-go/tools/cache"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
)

// Book is the partners' live orders of one namespace, each partner's sorted by
// archive.PositionOf.
type Book struct {
	namespace string
	mu        sync.RWMutex
	partners  map[string][]*swapv1.SwapOrder
}

// New returns an empty book of namespace's orders (others are ignored).
func New(namespace string) *Book {
	return &Book{namespace: namespace, partners: map[string][]*swapv1.SwapOrder{}}
}

// Handler feeds informer events into the book, then into next (nil for none): whoever next
// wakes finds the book already up to date.
func (b *Book) Handler(next toolscache.ResourceEventHandler) toolscache.ResourceEventHandler {
	if next == nil {
		next = toolscache.ResourceEventHandlerFuncs{}
	}
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			if o, ok := obj.(*swapv1.SwapOrder); ok {
				b.Put(o)
			}
			next.OnAdd(obj, initial)
		},
		UpdateFunc: func(old, obj any) {
			if o, ok := obj.(*swapv1.SwapOrder); ok {
				b.Put(o)
			}
			next.OnUpdate(old, obj)
		},
		DeleteFunc: func(obj any) {
			o, ok := obj.(*swapv1.SwapOrder)
			if tomb, isTomb := obj.(toolscache.DeletedFinalStateUnknown); isTomb {
				o, ok = tomb.Obj.(*swapv1.SwapOrder)
			}
			if ok {
				b.Remove(o)
			}
			next.OnDelete(obj)
		},
	}
}

// Put adds o or replaces the order's earlier version (its partner, id and creation time
// never change, so neither does its place).
func (b *Book) Put(o *swapv1.SwapOrder) {
	if o.Namespace != b.namespace {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	list := b.partners[o.Spec.Partner]
	i, found := find(list, o)
	if found {
		list[i] = o
		return
	}
	b.partners[o.Spec.Partner] = slices.Insert(list, i, o)
}

// Ensure adds o unless the book already has its order: a reader that found o in the cache
// before the informer's handlers saw it (the store is updated first) makes the book agree,
// and never replaces a newer version the handlers put.
func (b *Book) Ensure(o *swapv1.SwapOrder) {
	if o.Namespace != b.namespace {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	list := b.partners[o.Spec.Partner]
	if i, found := find(list, o); !found {
		b.partners[o.Spec.Partner] = slices.Insert(list, i, o)
	}
}

// Remove drops o's order.
func (b *Book) Remove(o *swapv1.SwapOrder) {
	if o.Namespace != b.namespace {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	list := b.partners[o.Spec.Partner]
	if i, found := find(list, o); found {
		list = slices.Delete(list, i, i+1)
		if len(list) == 0 {
			delete(b.partners, o.Spec.Partner)
			return
		}
		b.partners[o.Spec.Partner] = list
	}
}

// find is where o's order is in list, or where it would go.
func find(list []*swapv1.SwapOrder, o *swapv1.SwapOrder) (int, bool) {
	pos := archive.PositionOf(o)
	i := sort.Search(len(list), func(i int) bool { return !archive.PositionOf(list[i]).Before(pos) })
	return i, i < len(list) && list[i].Spec.OrderID == o.Spec.OrderID
}

// Newest returns the first q.Limit+1 of q.Partner's live orders matching q after q.After,
// newest first (one more than a page tells whether another follows).
func (b *Book) Newest(q archive.Query) []*swapv1.SwapOrder {
	b.mu.RLock()
	defer b.mu.RUnlock()
	list := b.partners[q.Partner]
	start := 0
	if q.After != nil {
		start = sort.Search(len(list), func(i int) bool { return q.After.Before(archive.PositionOf(list[i])) })
	}
	var out []*swapv1.SwapOrder
	for _, o := range list[start:] {
		if len(out) > q.Limit {
			break
		}
		if archive.Matches(o, q) {
			out = append(out, o)
		}
	}
	return out
}
