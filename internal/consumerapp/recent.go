package consumerapp

import (
	"slices"
	"sync"
	"time"
)

// Bounds of what the app remembers per user, in memory: a user's recent orders are a
// convenience of this browser session, /v1 keeps the orders themselves.
const (
	ordersPerSession = 20
	maxSessions      = 10000
)

// recentOrders remembers which orders each session created and how they looked last.
type recentOrders struct {
	mu       sync.Mutex
	sessions map[string]*sessionOrders
}

type sessionOrders struct {
	ids    []string // oldest first
	orders map[string]orderView
	seen   time.Time
}

func newRecentOrders() *recentOrders { return &recentOrders{sessions: map[string]*sessionOrders{}} }

func (r *recentOrders) add(sid string, v orderView) {
	r.mu.Lock()
	defer r.mu.Unlock()
	so := r.sessions[sid]
	if so == nil {
		r.evictOldest()
		so = &sessionOrders{orders: map[string]orderView{}}
		r.sessions[sid] = so
	}
	so.seen = time.Now()
	if _, ok := so.orders[v.Id]; !ok {
		so.ids = append(so.ids, v.Id)
	}
	so.orders[v.Id] = v
	if len(so.ids) > ordersPerSession {
		delete(so.orders, so.ids[0])
		so.ids = so.ids[1:]
	}
}

// evictOldest makes room for one more session by forgetting the longest idle one.
func (r *recentOrders) evictOldest() {
	if len(r.sessions) < maxSessions {
		return
	}
	var oldest string
	for sid, so := range r.sessions {
		if oldest == "" || so.seen.Before(r.sessions[oldest].seen) {
			oldest = sid
		}
	}
	delete(r.sessions, oldest)
}

// update refreshes an order the session owns.
func (r *recentOrders) update(sid string, v orderView) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if so := r.sessions[sid]; so != nil {
		if _, ok := so.orders[v.Id]; ok {
			so.orders[v.Id] = v
			so.seen = time.Now()
		}
	}
}

func (r *recentOrders) owns(sid, id string) bool {
	_, ok := r.get(sid, id)
	return ok
}

func (r *recentOrders) get(sid, id string) (orderView, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if so := r.sessions[sid]; so != nil {
		v, ok := so.orders[id]
		return v, ok
	}
	return orderView{}, false
}

// list is the session's orders, newest first.
func (r *recentOrders) list(sid string) []orderView {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []orderView{}
	if so := r.sessions[sid]; so != nil {
		for _, id := range slices.Backward(so.ids) {
			out = append(out, so.orders[id])
		}
	}
	return out
}
