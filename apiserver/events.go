package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/eventcursor"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// GET /v1/events streams the caller's order.status_changed events as server-sent events:
// the webhook's payload and id, in order per order, from the cache's live orders and, for a
// resume, the archive's. Each event's SSE id is the sealed stream position after it
// (internal/eventcursor), so Last-Event-ID (or ?after=) resumes at any replica.

// eventWriteTimeout drops a client that has not taken an event or heartbeat for this long.
const eventWriteTimeout = 30 * time.Second

func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := principal(ctx)
	if s.hub == nil {
		return apierror.New(apierror.Unavailable, "the event stream needs the order cache")
	}
	q := r.URL.Query()
	orderID := q.Get("orderId")
	if orderID != "" && !orderid.Valid(orderID) {
		return apierror.Invalid("orderId", "must be an order id (ord_ + 26 characters)")
	}
	infoFrom(ctx).orderID = orderID
	scope := p.Partner.Name + "\x00" + orderID
	pos := eventcursor.Start(s.opts.Now())
	if resume, field := resumeFrom(r); resume != "" {
		var err error
		if pos, err = s.openPosition(resume, scope); err != nil {
			return apierror.Invalid(field, "must be the id of an event of this stream (same key's partner and orderId)")
		}
	}

	if r.Method == http.MethodHead {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		return nil
	}
	limit := int(s.opts.Tiers.For(p.Partner).EventStreams)
	release, ok := s.streamSlots.Acquire(ctx, p.Partner.Name, limit)
	if !ok {
		e := apierror.Newf(apierror.RateLimitExceeded, "at most %d concurrent event streams", limit)
		e.RetryAfterSeconds = 1
		return e
	}
	defer release()

	// Subscribe before reading what is there, so nothing falls between the two; the cursor
	// drops what arrives twice.
	sub := s.hub.subscribe(p.Partner.Name, orderID)
	defer s.hub.unsubscribe(sub)
	seen := s.opts.Now()
	known, err := s.knownOrders(ctx, p.Partner.Name, orderID, pos.Watermark.Add(-s.opts.EventsVisibilityLag))
	if err != nil {
		return err
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // proxies that buffer would hold events back
	w.WriteHeader(http.StatusOK)
	s.metrics.eventStreams.Inc()
	defer s.metrics.eventStreams.Dec()
	st := &eventStream{w: w, rc: http.NewResponseController(w), s: s, scope: scope, pos: pos}
	// Flushed now, the headers tell the client the stream is open; otherwise it waits for the
	// first event or heartbeat.
	if err := st.rc.Flush(); err != nil {
		return nil // the client went away; nothing more to answer
	}
	if err := st.send(seen, known); err != nil {
		return nil
	}
	heartbeat := time.NewTicker(s.opts.EventsHeartbeat)
	defer heartbeat.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-st.s.stopping:
			return nil // the client resumes at another replica, or at this one once it is back
		case <-heartbeat.C:
			err = st.write(": heartbeat\n\n")
		case <-sub.wake:
			seen := s.opts.Now()
			err = st.send(seen, s.latest(ctx, sub.take()))
		}
		if err != nil {
			return nil
		}
	}
}

// resumeFrom is the position a client resumes from and the field it came in: Last-Event-ID
// (what EventSource sends on reconnect) or ?after=.
func resumeFrom(r *http.Request) (token, field string) {
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		return id, "Last-Event-ID"
	}
	return r.URL.Query().Get("after"), "after"
}

func (s *Server) openPosition(token, scope string) (eventcursor.Position, error) {
	raw, err := s.positions.Open(token)
	if err != nil {
		return eventcursor.Position{}, err
	}
	return eventcursor.Decode(raw, scope)
}

// knownOrders is every order of the partner (only orderID, when set) that may have events at
// or after since: the live ones in the cache, then those the archive holds that ended since
// (read after the cache, so an order archived in between is found in one or the other).
func (s *Server) knownOrders(ctx context.Context, partner, orderID string, since time.Time) ([]*swapv1.SwapOrder, error) {
	byID := map[string]*swapv1.SwapOrder{}
	for _, o := range s.book.Newest(archive.Query{Partner: partner, Limit: math.MaxInt32}) {
		if orderID == "" || o.Spec.OrderID == orderID {
			byID[o.Spec.OrderID] = o
		}
	}
	if s.opts.Archive != nil {
		err := s.opts.Archive.EachEndedSince(ctx, partner, orderID, since, func(o *swapv1.SwapOrder) error {
			if live, ok := byID[o.Spec.OrderID]; !ok || live.Status.LastSeq < o.Status.LastSeq {
				byID[o.Spec.OrderID] = o
			}
			return nil
		})
		if err != nil {
			return nil, archiveError(err)
		}
	}
	out := make([]*swapv1.SwapOrder, 0, len(byID))
	for _, o := range byID {
		out = append(out, o)
	}
	return out, nil
}

// latest is the orders of changes as the stream should read them. An order that left the
// cache before it was seen terminal (the watch skipped versions) is read from the archive,
// which holds its whole history.
func (s *Server) latest(ctx context.Context, changes []orderChange) []*swapv1.SwapOrder {
	out := make([]*swapv1.SwapOrder, 0, len(changes))
	for _, c := range changes {
		o := c.order
		if c.gone && !o.Status.Status.IsTerminal() && s.opts.Archive != nil {
			if archived, err := s.opts.Archive.Get(ctx, o.Spec.Partner, o.Spec.OrderID); err == nil {
				o = archived
			} else if !errors.Is(err, archive.ErrNotFound) {
				s.log.Error(err, "reading an order that left the cache for its events", "order", o.Spec.OrderID)
			}
		}
		out = append(out, o)
	}
	return out
}

// eventStream writes one client's events.
type eventStream struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	s     *Server
	scope string
	pos   eventcursor.Position
}

// send writes the events of orders the stream has not sent, taken from the cache at seen.
func (st *eventStream) send(seen time.Time, orders []*swapv1.SwapOrder) error {
	byID := make(map[string]*swapv1.SwapOrder, len(orders))
	batch := make([][]eventcursor.Event, 0, len(orders))
	for _, o := range orders {
		byID[o.Spec.OrderID] = o
		batch = append(batch, orderEvents(o))
	}
	emits, pos := st.pos.Next(seen, st.s.opts.EventsVisibilityLag, batch)
	var b strings.Builder
	for _, e := range emits {
		o := byID[e.Event.OrderID]
		payload, err := json.Marshal(delivery.EventFor(o, o.Status.History[e.Event.Index]))
		if err != nil {
			return fmt.Errorf("encoding event: %w", err)
		}
		if e.Late {
			st.s.metrics.eventsLate.Inc()
		}
		fmt.Fprintf(&b, "id: %s\nevent: %s\ndata: %s\n\n", st.s.positions.Seal(e.After.Encode(st.scope)), webhooks.EventType, payload)
	}
	st.pos = pos
	if b.Len() == 0 {
		return nil
	}
	return st.write(b.String())
}

// write sends s now. Each write moves the write deadline on: the server's WriteTimeout, meant
// for one answer, would otherwise cut every stream after it.
func (st *eventStream) write(s string) error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
	if _, err := st.w.Write([]byte(s)); err != nil {
		return err
	}
	return st.rc.Flush()
}

// orderEvents is o's history as the stream's events, with stream times.
func orderEvents(o *swapv1.SwapOrder) []eventcursor.Event {
	h := o.Status.History
	occurred := make([]time.Time, len(h))
	for i, t := range h {
		occurred[i] = t.At.Time
	}
	events := make([]eventcursor.Event, len(h))
	for i, at := range eventcursor.StreamTimes(occurred) {
		events[i] = eventcursor.Event{OrderID: o.Spec.OrderID, Seq: h[i].Seq, At: at, Index: i}
	}
	return events
}
