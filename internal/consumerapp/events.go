package consumerapp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// GET /api/orders/{id}/events: a server-sent event stream of the order. The backend polls
// /v1 at the contract's 10–15 s (sooner right after a deposit hint) and sends `order` when
// the order changed, `problem` when /v1 cannot be reached for now, and `end` once it is
// terminal.
func (s *Server) orderEvents(w http.ResponseWriter, r *http.Request, sid string) {
	id, ok := s.owned(w, r, sid)
	if !ok {
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(event string, v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	var last []byte
	for {
		poked := s.pokes.wait(id)
		v, p, _ := s.fetchOrder(r, sid, id)
		switch {
		case p != nil:
			if !send("problem", p) {
				return
			}
		default:
			b, _ := json.Marshal(v)
			if string(b) != string(last) && !send("order", v) {
				return
			}
			last = b
			if v.Terminal {
				send("end", map[string]string{"status": v.Status})
				return
			}
		}
		t := time.NewTimer(s.pollInterval())
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-poked:
		case <-t.C:
		}
		t.Stop()
	}
}

// pokes wakes the status streams of an order at once, e.g. after a deposit hint.
type pokes struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

func newPokes() *pokes { return &pokes{ch: map[string]chan struct{}{}} }

// wait returns a channel closed at the next poke of id.
func (p *pokes) wait(id string) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.ch[id]
	if !ok {
		c = make(chan struct{})
		p.ch[id] = c
	}
	return c
}

func (p *pokes) poke(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.ch[id]; ok {
		close(c)
		delete(p.ch, id)
	}
}
