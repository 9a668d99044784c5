package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// TestGracefulShutdown: stopping the server lets an order creation that is waiting for its
// deposit address finish, and writes the quote counts that were not flushed yet.
func TestGracefulShutdown(t *testing.T) {
	h := newHarness(t)
	h.setReconcile(nil)
	h.created = make(chan string, 1)
	h.srv.opts.Addr = "127.0.0.1:0"
	h.srv.opts.WaitTimeout = 30 * time.Second
	h.srv.opts.QuotaFlushInterval = time.Hour // only the final flush can write the count
	h.srv.ready.Store(false)

	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- h.srv.Start(ctx) }()
	base := "http://" + waitForAddr(t, h.srv)

	post := func(path, keyID, secret string, body any) (*http.Response, error) {
		raw, _ := json.Marshal(body)
		r, _ := http.NewRequest("POST", base+path, bytes.NewReader(raw))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Key-Id", keyID)
		r.Header.Set("Authorization", "Bearer "+secret)
		return http.DefaultClient.Do(r)
	}
	resp, err := post("/v1/quote", quotaKey, quotaSecret, quoteBody(true))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("quote: %v %v", resp, err)
	}
	resp.Body.Close()

	answered := make(chan int, 1)
	go func() {
		resp, err := post("/v1/order", acmeKey, acmeSecret, orderBody())
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	name := <-h.created // the request is now waiting for the reconciler
	stop()
	waitForRefusal(t, h.srv.Addr())
	// The server has stopped accepting; the waiting request is still served.
	h.writeStatus(name, issueAddress)
	if status := <-answered; status != http.StatusCreated {
		t.Fatalf("in-flight order answered %d", status)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if h.srv.ready.Load() {
		t.Error("still ready after shutdown")
	}
	var p swapv1.Partner
	if err := h.client.Get(context.Background(), clientKey("quota"), &p); err != nil {
		t.Fatal(err)
	}
	if u := p.Status.QuotaUsage; u == nil || u.Quotes != 1 || u.Month != "2026-03" {
		t.Errorf("quota usage after shutdown %+v, want 1 in 2026-03", u)
	}
}

// waitForRefusal waits until the listener is closed, i.e. the shutdown has begun.
func waitForRefusal(t *testing.T, addr string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		conn.Close()
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("server kept accepting connections")
		}
	}
}

// waitForAddr waits until Start has bound its listener.
func waitForAddr(t *testing.T, s *Server) string {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for s.Addr() == "" || !s.ready.Load() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("server did not start")
		}
	}
	return s.Addr()
}
