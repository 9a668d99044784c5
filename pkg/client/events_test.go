package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/pkg/client"
)

func event(id string, seq int) string {
	return fmt.Sprintf("id: %s\nevent: order.status_changed\ndata: {\"id\":\"evt_%d\",\"orderId\":\"ord_a\",\"status\":\"PENDING\",\"sequence\":%d}\n\n", id, seq, seq)
}

func TestEventStreamResumesAfterTheLastEventWhenTheConnectionBreaks(t *testing.T) {
	var opens atomic.Int32
	var resumedFrom atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/events" || r.Header.Get("X-Key-Id") != "k" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		switch opens.Add(1) {
		case 1:
			// Two events, a heartbeat and an event of another kind between them, then the
			// connection drops.
			fmt.Fprint(w, event("p1", 1), ": heartbeat\n\n", "event: other\ndata: {}\n\n", event("p2", 2))
		case 2:
			resumedFrom.Store(r.Header.Get("Last-Event-ID"))
			fmt.Fprint(w, event("p3", 3))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			w.Header().Set("Retry-After", "7")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":"rate limit exceeded","detail":"at most 2 concurrent event streams"}`)
		}
	}))
	defer srv.Close()
	c, err := client.NewClient(srv.URL, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Key-Id", "k")
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.OpenEvents(ctx, client.StreamEventsParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Reconnect = time.Millisecond
	for want := 1; want <= 3; want++ {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("event %d: %v", want, err)
		}
		if ev.Event.Sequence != int64(want) || ev.ID != fmt.Sprintf("p%d", want) || ev.Event.ID != fmt.Sprintf("evt_%d", want) {
			t.Fatalf("event %d: %+v", want, ev)
		}
	}
	if got := resumedFrom.Load(); got != "p2" {
		t.Errorf("reconnected with Last-Event-ID %v, want p2 (the last event returned)", got)
	}
	if s.LastID() != "p3" {
		t.Errorf("LastID %q", s.LastID())
	}

	_, err = c.OpenEvents(ctx, client.StreamEventsParams{})
	var refused *client.StreamError
	if !errors.As(err, &refused) || refused.Status != http.StatusTooManyRequests || refused.Body.Error != "rate limit exceeded" || refused.RetryAfter != 7*time.Second {
		t.Fatalf("a refused open: %#v", err)
	}
}
