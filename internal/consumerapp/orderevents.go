package consumerapp

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/pkg/client"
)

// orderEvents is the app's one stream of the partner's order events (GET /v1/events), shared
// by every order a page follows: an event wakes its order's feed, which reads the order once.
// While the stream is up the feeds do not poll; while it cannot be opened they poll as the
// contract asks. It resumes after the last event it got, so a reconnect loses nothing; the
// feeds read their orders again whenever it goes up or down, which covers the moments before
// it was first open.
type orderEvents struct {
	api   *client.Client
	retry func() time.Duration
	wake  func(orderID string)
	// wakeAll reads every followed order again.
	wakeAll func()
	log     logr.Logger

	live atomic.Bool

	mu     sync.Mutex
	cancel context.CancelFunc // nil while stopped
	done   chan struct{}
}

func newOrderEvents(baseURL string, key func(*http.Request), transport http.RoundTripper, retry func() time.Duration, log logr.Logger) (*orderEvents, error) {
	// No client timeout: the stream stays open; the server's heartbeats keep it alive.
	api, err := client.NewClient(baseURL, client.WithHTTPClient(&http.Client{Transport: transport}),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error { key(r); return nil }))
	if err != nil {
		return nil, err
	}
	return &orderEvents{api: api, retry: retry, log: log}, nil
}

// up reports whether the stream is open: feeds then wait for its events instead of polling.
func (e *orderEvents) up() bool { return e.live.Load() }

// start opens the stream unless it is running.
func (e *orderEvents) start() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel, e.done = cancel, make(chan struct{})
	go e.run(ctx, e.done)
}

// stop closes the stream (no order is followed any more) and waits for it to end.
func (e *orderEvents) stop() {
	e.mu.Lock()
	cancel, done := e.cancel, e.done
	e.cancel, e.done = nil, nil
	e.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (e *orderEvents) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	defer e.setLive(false)
	after := ""
	for ctx.Err() == nil {
		params := client.StreamEventsParams{}
		if after != "" {
			params.After = &after
		}
		s, err := e.api.OpenEvents(ctx, params)
		if err != nil {
			e.setLive(false)
			e.log.V(1).Info("order event stream unavailable; following orders by polling", "error", err.Error())
			t := time.NewTimer(e.retry())
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
			continue
		}
		e.setLive(true)
		for {
			ev, err := s.Next()
			if err != nil {
				break
			}
			after = s.LastID()
			e.wake(ev.Event.OrderID)
		}
		_ = s.Close()
	}
}

func (e *orderEvents) setLive(live bool) {
	if e.live.Swap(live) != live {
		e.wakeAll()
	}
}
