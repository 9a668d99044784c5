package consumerapp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
)

// eventually waits (briefly polling) until cond holds, failing after a generous bound.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAnOrderEventWakesItsViewersWithoutPolling(t *testing.T) {
	rig := &streamRig{}
	rig.status.Store("PENDING")
	push := make(chan string, 4)
	var streams atomic.Int64
	v1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/order/" + streamOrder:
			rig.reads.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"` + streamOrder + `","status":"` + rig.status.Load().(string) + `","history":[]}`))
		case "/v1/events":
			if r.Header.Get("X-Key-Id") != "key" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			streams.Add(1)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for {
				select {
				case <-r.Context().Done():
					return
				case status := <-push:
					fmt.Fprintf(w, "id: pos-1\nevent: order.status_changed\ndata: {\"id\":\"evt_1\",\"orderId\":%q,\"status\":%q,\"sequence\":2}\n\n", streamOrder, status)
					w.(http.Flusher).Flush()
				}
			}
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(v1.Close)
	// Polls an hour apart: only the event can tell the app in time.
	s, err := New(Options{APIURL: v1.URL, Key: upstream.Key{ID: "key", Secret: "partner-secret"},
		PerSession: 1000, PerClientAddress: 1000, PollMin: time.Hour, PollMax: time.Hour, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	rig.s, rig.app = s, httptest.NewServer(s)
	t.Cleanup(rig.app.Close)
	// Bounded: without the event the viewers would wait for the hourly poll.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var viewers []<-chan string
	for range 2 {
		code, events := rig.stream(ctx, t, rig.session(t))
		if code != http.StatusOK {
			t.Fatalf("stream: %d", code)
		}
		if ev := <-events; ev != "order" {
			t.Fatalf("first event %q", ev)
		}
		viewers = append(viewers, events)
	}
	eventually(t, "the app opened the partner's event stream", s.events.up)

	rig.status.Store("SUCCESS")
	push <- "SUCCESS"
	for i, events := range viewers {
		var got []string
		for ev := range events {
			got = append(got, ev)
		}
		if strings.Join(got, ",") != "order,end" {
			t.Errorf("viewer %d got %v after the order's event; want order, end", i, got)
		}
	}
	if n := streams.Load(); n != 1 {
		t.Errorf("the app opened %d event streams for one order's viewers; want one shared", n)
	}
	eventually(t, "the event stream closes once no order is followed", func() bool { return !s.events.up() })
}
