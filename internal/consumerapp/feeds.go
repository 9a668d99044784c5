package consumerapp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// feedEvent is one server-sent event of an order's status stream: `order` with the page's view
// when it changed, `problem` while /v1 cannot be read, `end` once the order is terminal.
type feedEvent struct {
	name string
	data any
	view *orderView
}

// errTooManyStreams refuses a stream past a cap.
var errTooManyStreams = errors.New("too many status streams")

// feeds reads each followed order from /v1 once per change however many pages watch it, and
// fans each answer out to every open stream of the order. A change is told by the partner's
// event stream (orderEvents) while it is open, else found by one poll every 10–15 s. Streams
// are capped per session and per order.
type feeds struct {
	read func(ctx context.Context, id string) (orderView, *Problem)
	// interval is the wait before the next poll; 0 while events tell every change.
	interval   func() time.Duration
	perSession int
	perOrder   int
	// events, when set, runs while any order is followed.
	events *orderEvents

	mu       sync.Mutex
	orders   map[string]*feed
	sessions map[string]int
}

// feed is one order's poll and its viewers.
type feed struct {
	subs   map[chan feedEvent]struct{}
	last   *feedEvent // the latest event, given at once to a viewer that joins
	poke   chan struct{}
	cancel context.CancelFunc
}

func newFeeds(read func(context.Context, string) (orderView, *Problem), interval func() time.Duration, perSession, perOrder int) *feeds {
	return &feeds{read: read, interval: interval, perSession: perSession, perOrder: perOrder,
		orders: map[string]*feed{}, sessions: map[string]int{}}
}

// subscribe opens a stream of order id for session sid. Each receive is the latest event: a
// slow viewer skips states it was too slow for, never the last one. leave must be called.
func (f *feeds) subscribe(ctx context.Context, sid, id string) (events <-chan feedEvent, leave func(), err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fd := f.orders[id]
	if f.sessions[sid] >= f.perSession || (fd != nil && len(fd.subs) >= f.perOrder) {
		return nil, nil, errTooManyStreams
	}
	if fd == nil {
		if len(f.orders) == 0 && f.events != nil {
			f.events.start()
		}
		pollCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		fd = &feed{subs: map[chan feedEvent]struct{}{}, poke: make(chan struct{}, 1), cancel: cancel}
		f.orders[id] = fd
		go f.run(pollCtx, id, fd)
	}
	ch := make(chan feedEvent, 2) // the latest state, and room for end behind it
	fd.subs[ch] = struct{}{}
	f.sessions[sid]++
	if fd.last != nil {
		ch <- *fd.last
	}
	return ch, func() { f.leave(sid, id, fd, ch) }, nil
}

func (f *feeds) leave(sid, id string, fd *feed, ch chan feedEvent) {
	f.mu.Lock()
	if _, ok := fd.subs[ch]; !ok {
		f.mu.Unlock()
		return
	}
	delete(fd.subs, ch)
	if f.sessions[sid]--; f.sessions[sid] <= 0 {
		delete(f.sessions, sid)
	}
	if len(fd.subs) == 0 && f.orders[id] == fd {
		fd.cancel()
		delete(f.orders, id)
	}
	f.mu.Unlock()
	f.stopEventsWhenIdle()
}

// stopEventsWhenIdle closes the event stream once no order is followed (outside f.mu: the
// stream's last wakes take it).
func (f *feeds) stopEventsWhenIdle() {
	f.mu.Lock()
	idle := len(f.orders) == 0
	f.mu.Unlock()
	if idle && f.events != nil {
		f.events.stop()
	}
}

// pokeOrder makes the order's read run now (its event came, or a deposit hint was just
// passed on).
func (f *feeds) pokeOrder(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fd := f.orders[id]; fd != nil {
		fd.wake()
	}
}

// pokeAll reads every followed order now.
func (f *feeds) pokeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fd := range f.orders {
		fd.wake()
	}
}

func (fd *feed) wake() {
	select {
	case fd.poke <- struct{}{}:
	default:
	}
}

// run reads the order at every wake (or poll) until it is terminal or nobody watches it.
func (f *feeds) run(ctx context.Context, id string, fd *feed) {
	var last []byte
	for {
		v, p := f.read(ctx, id)
		if ctx.Err() != nil {
			return
		}
		switch {
		case p != nil:
			f.broadcast(fd, feedEvent{name: "problem", data: p})
		default:
			if b, _ := json.Marshal(v); string(b) != string(last) {
				last = b
				f.broadcast(fd, feedEvent{name: "order", data: v, view: &v})
			}
			if v.Terminal {
				f.broadcast(fd, feedEvent{name: "end", data: map[string]string{"status": string(v.Status)}})
				f.retire(id, fd)
				return
			}
		}
		var poll <-chan time.Time
		var t *time.Timer
		if d := f.interval(); d > 0 {
			t = time.NewTimer(d)
			poll = t.C
		}
		select {
		case <-ctx.Done():
			return
		case <-fd.poke:
		case <-poll:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// broadcast gives ev to every viewer: a state replaces one the viewer has not taken yet, end
// queues behind the final state.
func (f *feeds) broadcast(fd *feed, ev feedEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ev.name != "end" {
		fd.last = &ev
	}
	for ch := range fd.subs {
		if ev.name != "end" {
			for len(ch) > 0 {
				<-ch
			}
		}
		ch <- ev
	}
}

// retire ends a terminal order's feed: a page that opens its stream later starts a new one,
// which reads the order once and ends.
func (f *feeds) retire(id string, fd *feed) {
	f.mu.Lock()
	if f.orders[id] == fd {
		delete(f.orders, id)
	}
	f.mu.Unlock()
	f.stopEventsWhenIdle()
}
