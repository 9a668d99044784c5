// Package fault injects failures into the simulated providers' answers: latency, hangs,
// error statuses at a rate, malformed bodies and forged signatures, per provider and per call.
package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// AnyCall matches every call of a provider.
const AnyCall = "*"

// Fault describes how one call misbehaves. The zero Fault is a healthy call.
type Fault struct {
	// Latency delays the answer (the request's own cancellation still ends the wait).
	Latency time.Duration
	// Hang never answers: the call blocks until the client gives up.
	Hang bool
	// ErrorRate is the chance (0..1) that the call answers Status instead of working.
	ErrorRate float64
	// Status is the error status; 503 when zero.
	Status int
	// RetryAfter, with an error status, is sent as the Retry-After header (whole seconds), as
	// providers do on 429 and 503.
	RetryAfter time.Duration
	// Garbage answers 200 with a body that is not JSON.
	Garbage bool
	// BadSignature answers as usual but with a signature that does not verify (route_A's
	// quotes); the protocol applies it, see FromContext.
	BadSignature bool
}

// faultJSON is Fault on the control API, with the latency as a Go duration string.
type faultJSON struct {
	Latency    string  `json:"latency,omitempty"`
	Hang       bool    `json:"hang,omitempty"`
	ErrorRate  float64 `json:"errorRate,omitempty"`
	Status     int     `json:"status,omitempty"`
	RetryAfter string  `json:"retryAfter,omitempty"`
	Garbage    bool    `json:"garbage,omitempty"`
	// BadSignature is set by the control API as "badSignature".
	BadSignature bool `json:"badSignature,omitempty"`
}

// MarshalJSON writes the latency as e.g. "250ms".
func (f Fault) MarshalJSON() ([]byte, error) {
	j := faultJSON{Hang: f.Hang, ErrorRate: f.ErrorRate, Status: f.Status, Garbage: f.Garbage, BadSignature: f.BadSignature}
	if f.Latency > 0 {
		j.Latency = f.Latency.String()
	}
	if f.RetryAfter > 0 {
		j.RetryAfter = f.RetryAfter.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the latency as a Go duration string.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var j faultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Fault{Hang: j.Hang, ErrorRate: j.ErrorRate, Status: j.Status, Garbage: j.Garbage, BadSignature: j.BadSignature}
	for _, d := range []struct {
		name string
		in   string
		out  *time.Duration
	}{{"latency", j.Latency, &f.Latency}, {"retryAfter", j.RetryAfter, &f.RetryAfter}} {
		if d.in == "" {
			continue
		}
		v, err := time.ParseDuration(d.in)
		if err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		*d.out = v
	}
	return f.Validate()
}

// Validate checks the fault's ranges.
func (f Fault) Validate() error {
	switch {
	case f.Latency < 0 || f.RetryAfter < 0:
		return fmt.Errorf("latency and retryAfter must not be negative")
	case f.ErrorRate < 0 || f.ErrorRate > 1:
		return fmt.Errorf("errorRate must be within 0..1")
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Errorf("status must be a 4xx or 5xx code")
	}
	return nil
}

// faultBody is the {"message"} both real providers answer, with their own words where known.
func faultBody(status int) string {
	if status == http.StatusTooManyRequests {
		return `{"message":"Too many requests, please try again later"}`
	}
	return `{"message":"simulated fault"}`
}

// Key names a provider's call.
type Key struct {
	Provider swapv1.ProviderID `json:"provider"`
	Call     string            `json:"call"`
}

// Injector holds the configured faults and a seeded random source for error rates.
type Injector struct {
	mu     sync.Mutex
	faults map[Key]Fault
	rnd    *rand.Rand
}

// NewInjector returns an Injector without faults.
func NewInjector(seed uint64) *Injector {
	return &Injector{faults: map[Key]Fault{}, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Set configures the fault of a provider's call (AnyCall for all its calls); a zero Fault
// removes it.
func (in *Injector) Set(provider swapv1.ProviderID, call string, f Fault) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if f == (Fault{}) {
		delete(in.faults, Key{provider, call})
		return
	}
	in.faults[Key{provider, call}] = f
}

// Clear removes every fault.
func (in *Injector) Clear() {
	in.mu.Lock()
	defer in.mu.Unlock()
	clear(in.faults)
}

// All returns the configured faults.
func (in *Injector) All() map[Key]Fault {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make(map[Key]Fault, len(in.faults))
	for k, f := range in.faults {
		out[k] = f
	}
	return out
}

// lookup prefers the call's own fault over the provider-wide one, and rolls the error dice.
func (in *Injector) lookup(provider swapv1.ProviderID, call string) (f Fault, fail bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	f, ok := in.faults[Key{provider, call}]
	if !ok {
		f = in.faults[Key{provider, AnyCall}]
	}
	return f, f.ErrorRate > 0 && in.rnd.Float64() < f.ErrorRate
}

// Wrap applies the provider call's fault, if any, before next.
func (in *Injector) Wrap(provider swapv1.ProviderID, call string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, fail := in.lookup(provider, call)
		if f != (Fault{}) {
			// The server notices a client hanging up only once the body is consumed, so a
			// delayed or hanging POST must read it first to end with its client.
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if f.Hang {
			<-r.Context().Done()
			return
		}
		if f.Latency > 0 {
			t := time.NewTimer(f.Latency)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
		}
		switch {
		case fail:
			status := f.Status
			if status == 0 {
				status = http.StatusServiceUnavailable
			}
			w.Header().Set("Content-Type", "application/json")
			if f.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(int(f.RetryAfter.Round(time.Second)/time.Second)))
			}
			w.WriteHeader(status)
			_, _ = w.Write([]byte(faultBody(status)))
		case f.Garbage:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"quote": [unterminated`))
		default:
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), faultKey{}, f)))
		}
	})
}

type faultKey struct{}

// FromContext is the fault of the call a request belongs to (the zero Fault when none), for
// the faults a protocol applies itself.
func FromContext(ctx context.Context) Fault {
	f, _ := ctx.Value(faultKey{}).(Fault)
	return f
}
