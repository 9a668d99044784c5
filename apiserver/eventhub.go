package apiserver

import (
	"sync"

	toolscache "k8s.io/client-go/tools/cache"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// eventHub passes the SwapOrder informer's events to the open event streams of the order's
// partner. It holds no order of its own: each subscription keeps the latest object of each
// order it has not taken yet, so a slow stream costs one entry per changed order, never a
// backlog of versions.
type eventHub struct {
	mu   sync.Mutex
	subs map[string]map[*subscription]struct{} // by partner
}

func newEventHub() *eventHub { return &eventHub{subs: map[string]map[*subscription]struct{}{}} }

// subscription is one stream's inbox.
type subscription struct {
	partner, orderID string // orderID: only this order, when not empty
	wake             chan struct{}

	mu      sync.Mutex
	pending map[string]orderChange // by order id
}

// orderChange is an order's latest state as the informer delivered it; gone when it left the
// cache (archived and deleted, or deleted).
type orderChange struct {
	order *swapv1.SwapOrder
	gone  bool
}

func (h *eventHub) subscribe(partner, orderID string) *subscription {
	s := &subscription{partner: partner, orderID: orderID, wake: make(chan struct{}, 1), pending: map[string]orderChange{}}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[partner] == nil {
		h.subs[partner] = map[*subscription]struct{}{}
	}
	h.subs[partner][s] = struct{}{}
	return s
}

func (h *eventHub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs[s.partner], s)
	if len(h.subs[s.partner]) == 0 {
		delete(h.subs, s.partner)
	}
}

// offer hands o to the partner's subscriptions that want it.
func (h *eventHub) offer(o *swapv1.SwapOrder, gone bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[o.Spec.Partner] {
		if s.orderID == "" || s.orderID == o.Spec.OrderID {
			s.put(orderChange{order: o, gone: gone})
		}
	}
}

func (s *subscription) put(c orderChange) {
	s.mu.Lock()
	s.pending[c.order.Spec.OrderID] = c
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns and clears what arrived since the last take.
func (s *subscription) take() []orderChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]orderChange, 0, len(s.pending))
	for _, c := range s.pending {
		out = append(out, c)
	}
	clear(s.pending)
	return out
}

// handler feeds the hub from the SwapOrder informer.
func (h *eventHub) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := obj.(*swapv1.SwapOrder); ok {
				h.offer(o, false)
			}
		},
		UpdateFunc: func(_, obj any) {
			if o, ok := obj.(*swapv1.SwapOrder); ok {
				h.offer(o, false)
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if o, ok := obj.(*swapv1.SwapOrder); ok {
				h.offer(o, true)
			}
		},
	}
}
