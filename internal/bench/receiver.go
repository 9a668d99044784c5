package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// Receiver is the partner's webhook endpoint for the benchmark: it verifies each delivery's
// signature and records when each event first arrived.
type Receiver struct {
	mu       sync.Mutex
	secret   string
	arrived  map[string]time.Time // by webhook-id
	byOrder  map[orderSeq]time.Time
	rejected int
	notify   chan struct{}
}

type orderSeq struct {
	order string
	seq   int64
}

// NewReceiver verifies against secret (whsec_...).
func NewReceiver(secret string) *Receiver {
	return &Receiver{secret: secret, arrived: map[string]time.Time{}, byOrder: map[orderSeq]time.Time{}, notify: make(chan struct{}, 1)}
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	now := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20))
	if err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	if err := webhooks.Verify(r.secret, req.Header, body, now); err != nil {
		r.mu.Lock()
		r.rejected++
		r.mu.Unlock()
		http.Error(w, "signature rejected", http.StatusUnauthorized)
		return
	}
	var ev webhooks.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		http.Error(w, "bad event", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	id := req.Header.Get("webhook-id")
	if _, dup := r.arrived[id]; !dup {
		r.arrived[id] = now
		r.byOrder[orderSeq{ev.OrderID, ev.Sequence}] = now
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

// Count is the number of distinct verified events received.
func (r *Receiver) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.arrived)
}

// Rejected counts deliveries whose signature did not verify.
func (r *Receiver) Rejected() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rejected
}

// ArrivedAt is when the event for an order's transition seq first arrived.
func (r *Receiver) ArrivedAt(orderID string, seq int64) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.byOrder[orderSeq{orderID, seq}]
	return t, ok
}

// ArrivalTimes lists the arrival times of the given event ids that arrived.
func (r *Receiver) ArrivalTimes(ids []string) []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Time
	for _, id := range ids {
		if t, ok := r.arrived[id]; ok {
			out = append(out, t)
		}
	}
	return out
}

// Changed is signalled after each new arrival (coalesced).
func (r *Receiver) Changed() <-chan struct{} { return r.notify }
