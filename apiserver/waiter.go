package apiserver

import (
	"context"
	"sync"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// orderWaiter lets requests wait for changes of one SwapOrder without polling: the informer's
// event handler notifies waiters by object name after the cache has the new version.
type orderWaiter struct {
	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
}

func newOrderWaiter() *orderWaiter {
	return &orderWaiter{waiters: map[string]map[chan struct{}]struct{}{}}
}

// subscribe returns a channel that receives after each change of name, and its cancel.
func (w *orderWaiter) subscribe(name string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.waiters[name] == nil {
		w.waiters[name] = map[chan struct{}]struct{}{}
	}
	w.waiters[name][ch] = struct{}{}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		delete(w.waiters[name], ch)
		if len(w.waiters[name]) == 0 {
			delete(w.waiters, name)
		}
		w.mu.Unlock()
	}
}

func (w *orderWaiter) notify(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.waiters[name] {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending; the waiter re-reads the latest state anyway
		}
	}
}

// eventHandler feeds SwapOrder informer events into notify.
func (w *orderWaiter) eventHandler() toolscache.ResourceEventHandler {
	name := func(obj any) {
		if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if o, ok := obj.(client.Object); ok {
			w.notify(o.GetName())
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    name,
		UpdateFunc: func(_, obj any) { name(obj) },
		DeleteFunc: name,
	}
}

// await reads the order key through reader until done reports true, waking on every change.
// Subscribing before the first read means no change between read and wait is missed.
func (w *orderWaiter) await(ctx context.Context, reader client.Reader, key client.ObjectKey,
	done func(*swapv1.SwapOrder) bool) (*swapv1.SwapOrder, error) {
	changed, cancel := w.subscribe(key.Name)
	defer cancel()
	for {
		o := &swapv1.SwapOrder{}
		err := reader.Get(ctx, key, o)
		switch {
		case err == nil && done(o):
			return o, nil
		case err != nil && client.IgnoreNotFound(err) != nil:
			return nil, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
