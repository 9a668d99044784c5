package devenv

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// Receiver is a partner's webhook endpoint: it verifies every delivery, processes each
// webhook-id once, and keeps the events in arrival order. `swaprouter-dev --webhook-receiver`
// prints them; the whole-journey suites assert on them.
type Receiver struct {
	// Out, when set, gets one line per new event.
	Out io.Writer
	// FailFirst answers 503 to this many deliveries before accepting (retry tests).
	FailFirst int

	mu       sync.Mutex
	secret   string
	seen     map[string]bool
	events   []webhooks.Event
	payloads map[string][]byte // by webhook-id: the bytes as signed
	rejected int
	attempts int
}

// SetSecret sets the signing secret (whsec_...) deliveries must verify against.
func (r *Receiver) SetSecret(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = secret
}

// ServeHTTP verifies, deduplicates by webhook-id, and records the event.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20))
	if err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts++
	if err := webhooks.Verify(r.secret, req.Header, body, time.Now()); err != nil {
		r.rejected++
		http.Error(w, "signature rejected", http.StatusUnauthorized)
		return
	}
	if r.attempts <= r.FailFirst {
		http.Error(w, "try again", http.StatusServiceUnavailable)
		return
	}
	id := req.Header.Get("webhook-id")
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if r.seen[id] {
		w.WriteHeader(http.StatusNoContent) // a redelivery: acknowledged, not processed twice
		return
	}
	var ev webhooks.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		http.Error(w, "bad event", http.StatusBadRequest)
		return
	}
	r.seen[id] = true
	r.events = append(r.events, ev)
	if r.payloads == nil {
		r.payloads = map[string][]byte{}
	}
	r.payloads[id] = body
	if r.Out != nil {
		fmt.Fprintf(r.Out, "webhook %s: order %s %s -> %s (seq %d, verified)\n",
			ev.ID, ev.OrderID, ev.PreviousStatus, ev.Status, ev.Sequence)
	}
	w.WriteHeader(http.StatusNoContent)
}

// Events returns the verified events processed so far, in arrival order.
func (r *Receiver) Events() []webhooks.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]webhooks.Event(nil), r.events...)
}

// EventsFor returns the processed events of one order.
func (r *Receiver) EventsFor(orderID string) []webhooks.Event {
	var out []webhooks.Event
	for _, ev := range r.Events() {
		if ev.OrderID == orderID {
			out = append(out, ev)
		}
	}
	return out
}

// Payload returns the verified body of the event with webhook-id id, as it arrived (nil when
// none did): what a receiver decoding into its own types reads.
func (r *Receiver) Payload(id string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.payloads[id]
}

// Rejected counts deliveries whose signature did not verify.
func (r *Receiver) Rejected() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rejected
}
