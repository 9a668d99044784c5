package webhook

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
	"k8s.io/apimachinery/pkg/types"

	"github.com/swaprouter/swaprouter/internal/parking"
)

// Defaults of EndpointOptions.
const (
	// DefaultMaxInFlight caps one partner's attempts in flight: a hanging endpoint holds at
	// most this many of the delivery workers.
	DefaultMaxInFlight = 4
	// DefaultFailureThreshold consecutive failed attempts open a partner's circuit.
	DefaultFailureThreshold = 5
	// DefaultOpenFor is how long an open circuit sends nothing before one probe attempt.
	DefaultOpenFor = 30 * time.Second
	// DefaultRetryWait is how long a delivery waits when a probe is in flight, and when its
	// partner is saturated and no freed slot woke it earlier (see Freed).
	DefaultRetryWait = time.Second
	// freedBuffer holds wake-ups not yet taken by the controller; when it is full a waiter
	// falls back to its RetryWait.
	freedBuffer = 1024
)

// EndpointOptions configures Endpoints; zero fields take the defaults above.
type EndpointOptions struct {
	MaxInFlight      int
	FailureThreshold uint32
	OpenFor          time.Duration
	RetryWait        time.Duration
}

func (o EndpointOptions) withDefaults() EndpointOptions {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.FailureThreshold == 0 {
		o.FailureThreshold = DefaultFailureThreshold
	}
	if o.OpenFor <= 0 {
		o.OpenFor = DefaultOpenFor
	}
	if o.RetryWait <= 0 {
		o.RetryWait = DefaultRetryWait
	}
	return o
}

// Verdict is the gate's answer for one attempt.
type Verdict string

const (
	VerdictSend      Verdict = "send"
	VerdictSaturated Verdict = "saturated"       // the partner's attempts in flight are at the cap
	VerdictOpen      Verdict = "circuit_open"    // the partner's endpoint keeps failing: no dial
	VerdictProbing   Verdict = "probe_in_flight" // half-open: one probe is testing the endpoint
)

// Admission is what Admit decided. When Verdict is VerdictSend the caller dials and must call
// Done exactly once with the attempt's result; otherwise it asks again after Wait, without
// dialing and without spending one of the delivery's attempts.
type Admission struct {
	Verdict Verdict
	Wait    time.Duration
	done    func(Result)
}

// Done reports the attempt's result and frees its slot.
func (a Admission) Done(res Result) {
	if a.done != nil {
		a.done(res)
	}
}

// Endpoints isolates partners' webhook endpoints from each other: each partner has its own
// cap on attempts in flight and its own circuit breaker (sony/gobreaker), so one partner's
// slow or dead endpoint costs the shared workers at most MaxInFlight attempts at a time, and
// nothing at all while its circuit is open. State is per process and in memory: a restarted
// manager starts every circuit closed.
type Endpoints struct {
	opts EndpointOptions
	rand func() float64

	mu        sync.Mutex
	byPartner map[PartnerKey]*endpoint
	// waiting holds the deliveries put back while their partner was saturated, oldest first
	// per partner: each freed slot wakes the oldest at once instead of leaving it to its
	// RetryWait. Parked and woken with e.mu held, so no freed slot is missed.
	waiting *parking.Lot[PartnerKey]
}

// PartnerKey names a partner: deliveries of different namespaces never share a gate.
type PartnerKey struct{ Namespace, Name string }

type endpoint struct {
	url      string
	inFlight int
	breaker  *gobreaker.TwoStepCircuitBreaker[struct{}]
	// openUntil is when the open circuit lets one probe through (set when it opens).
	openUntil time.Time
}

// NewEndpoints returns an empty gate.
func NewEndpoints(opts EndpointOptions) *Endpoints {
	return &Endpoints{opts: opts.withDefaults(), rand: rand.Float64, byPartner: map[PartnerKey]*endpoint{},
		waiting: parking.New[PartnerKey](freedBuffer)}
}

// Freed delivers the delivery to retry whenever a saturated partner's slot frees; the
// controller watches it (parking.Source).
func (e *Endpoints) Freed() <-chan parking.Wake { return e.waiting.Woken() }

// Admit decides whether delivery's attempt to partner's endpoint url may dial now. A changed
// url starts a fresh circuit: the partner fixed its endpoint, so its past failures say
// nothing.
func (e *Endpoints) Admit(partner PartnerKey, url string, delivery types.NamespacedName) Admission {
	e.mu.Lock()
	defer e.mu.Unlock()
	ep := e.byPartner[partner]
	if ep == nil {
		ep = &endpoint{}
		e.byPartner[partner] = ep
	}
	if ep.breaker == nil || ep.url != url {
		e.resetCircuit(partner, ep, url)
	}
	if ep.inFlight >= e.opts.MaxInFlight {
		e.waiting.Park(partner, delivery)
		return e.deferral(partner, VerdictSaturated, ep)
	}
	report, err := ep.breaker.Allow()
	if err != nil {
		v := VerdictProbing
		if errors.Is(err, gobreaker.ErrOpenState) {
			v = VerdictOpen
		}
		return e.deferral(partner, v, ep)
	}
	ep.inFlight++
	e.waiting.Remove(delivery)
	inFlight.WithLabelValues(partner.Namespace, partner.Name).Inc()
	var once sync.Once
	return Admission{Verdict: VerdictSend, done: func(res Result) {
		once.Do(func() {
			e.mu.Lock()
			report(BreakerOutcome(res))
			ep.inFlight--
			e.waiting.Wake(partner) // a full buffer leaves it to the waiter's RetryWait
			e.mu.Unlock()
			inFlight.WithLabelValues(partner.Namespace, partner.Name).Dec()
		})
	}}
}

func (e *Endpoints) deferral(partner PartnerKey, v Verdict, ep *endpoint) Admission {
	deferred.WithLabelValues(partner.Namespace, partner.Name, string(v)).Inc()
	return Admission{Verdict: v, Wait: RetryWait(v, ep.openUntil, time.Now(), e.opts.RetryWait, e.rand())}
}

// resetCircuit gives ep a closed circuit for url; called with e.mu held. Attempts still in
// flight to the old url keep their slots and report to the old breaker, which is ignored.
func (e *Endpoints) resetCircuit(partner PartnerKey, ep *endpoint, url string) {
	var cb *gobreaker.TwoStepCircuitBreaker[struct{}]
	cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        partner.Namespace + "/" + partner.Name,
		MaxRequests: 1, // half-open: one probe decides
		Timeout:     e.opts.OpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= e.opts.FailureThreshold },
		// Shutdown cuts attempts short: the receiver did nothing wrong.
		IsExcluded: func(err error) bool { return errors.Is(err, context.Canceled) },
		// Runs inside Allow or a report, both called with e.mu held, so ep is safe to write.
		OnStateChange: func(_ string, _, to gobreaker.State) {
			if ep.breaker != cb {
				return
			}
			circuitState.WithLabelValues(partner.Namespace, partner.Name).Set(float64(to))
			if to == gobreaker.StateOpen {
				ep.openUntil = time.Now().Add(e.opts.OpenFor)
			}
		},
	})
	ep.url, ep.breaker, ep.openUntil = url, cb, time.Time{}
	circuitState.WithLabelValues(partner.Namespace, partner.Name).Set(float64(gobreaker.StateClosed))
}

// BreakerOutcome is the error the circuit breaker records for an attempt's result: nil for
// an endpoint that answered like a live one (2xx, and 4xx other than 408/429: the endpoint
// works, the request is what it refuses), errAttemptFailed for one that did not (no answer,
// timeout, 408, 429, 5xx), and context.Canceled, which the breaker ignores, for an attempt cut
// short by shutdown.
func BreakerOutcome(res Result) error {
	switch {
	case res.Err != nil && errors.Is(res.Err, context.Canceled):
		return context.Canceled
	case res.Err != nil, res.Code == 0:
		return errAttemptFailed
	case res.Code == http.StatusRequestTimeout, res.Code == http.StatusTooManyRequests, res.Code >= 500:
		return errAttemptFailed
	default:
		return nil
	}
}

var errAttemptFailed = errors.New("webhook attempt failed")

// RetryWait is how long a deferred attempt waits before asking again: until an open
// circuit's probe is due, else the short retry wait. A random share of retry (rnd in [0, 1))
// is added so that deliveries deferred together do not all return at the same instant.
func RetryWait(v Verdict, openUntil, now time.Time, retry time.Duration, rnd float64) time.Duration {
	wait := retry
	if v == VerdictOpen {
		wait = max(openUntil.Sub(now), 0)
	}
	return wait + time.Duration(rnd*float64(retry))
}
