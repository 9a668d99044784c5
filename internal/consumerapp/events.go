package consumerapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// GET /api/orders/{id}/events: a server-sent event stream of the order, fed by the order's
// shared /v1 poll (see feeds): `order` when it changed, `problem` while /v1 cannot be reached,
// `end` once it is terminal.
func (s *Server) orderEvents(w http.ResponseWriter, r *http.Request, sid string) {
	id, ok := s.owned(w, r, sid)
	if !ok {
		return
	}
	events, leave, err := s.feeds.subscribe(r.Context(), sid, id)
	if errors.Is(err, errTooManyStreams) {
		w.Header().Set("Retry-After", "15")
		p := explain("too many requests", "", http.StatusTooManyRequests)
		p.Action = "Close the other tabs that follow this order, then reload."
		writeProblem(w, http.StatusTooManyRequests, p)
		return
	}
	defer leave()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	for {
		select {
		case <-r.Context().Done():
			return
		case ev := <-events:
			if ev.view != nil {
				s.recent.update(sid, *ev.view)
			}
			b, _ := json.Marshal(ev.data)
			// The server's write timeout bounds each event, not the stream.
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, b); err != nil || rc.Flush() != nil || ev.name == "end" {
				return
			}
		}
	}
}

// readFeed is what an order's feed polls: the order as the page shows it, with the feed's own
// request id in the logs and on the /v1 call.
func (s *Server) readFeed(ctx context.Context, id string) (orderView, *Problem) {
	ctx = context.WithValue(ctx, requestIDKey{}, "app-feed-"+id)
	v, p, _ := s.readOrder(ctx, id)
	return v, p
}
