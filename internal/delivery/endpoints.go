package delivery

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/swaprouter/swaprouter/internal/parking"
	"github.com/swaprouter/swaprouter/internal/resilience"
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
	FailureThreshold int
	OpenFor          time.Duration
	RetryWait        time.Duration
	// Now is the clock of the circuits; time.Now when nil.
	Now func() time.Time
	// Metrics is where the per-partner metrics are registered; nil: controller-runtime's
	// registry.
	Metrics prometheus.Registerer
}

func (o EndpointOptions) withDefaults() EndpointOptions {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.FailureThreshold <= 0 {
		o.FailureThreshold = DefaultFailureThreshold
	}
	if o.OpenFor <= 0 {
		o.OpenFor = DefaultOpenFor
	}
	if o.RetryWait <= 0 {
		o.RetryWait = DefaultRetryWait
	}
	if o.Now == nil {
		o.Now = time.Now
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
// bulkhead of attempts in flight and its own circuit breaker (internal/resilience), so one
// partner's slow or dead endpoint costs the shared workers at most MaxInFlight attempts at a
// time, and nothing at all while its circuit is open. State is per process and in memory: a
// restarted manager starts every circuit closed.
type Endpoints struct {
	opts    EndpointOptions
	policy  resilience.Policy
	rand    func() float64
	metrics *endpointMetrics

	mu        sync.Mutex
	byPartner map[PartnerKey]*endpoint
	inFlight  *resilience.Bulkhead[PartnerKey]
	// waiting holds the deliveries put back while their partner was saturated, oldest first
	// per partner: each freed slot wakes the oldest at once instead of leaving it to its
	// RetryWait. Parked and woken with e.mu held, so no freed slot is missed.
	waiting *parking.Lot[PartnerKey]
}

// PartnerKey names a partner: deliveries of different namespaces never share a gate.
type PartnerKey struct{ Namespace, Name string }

type endpoint struct {
	url     string
	circuit resilience.State
}

// NewEndpoints returns an empty gate.
func NewEndpoints(opts EndpointOptions) *Endpoints {
	opts = opts.withDefaults()
	return &Endpoints{opts: opts, rand: rand.Float64, byPartner: map[PartnerKey]*endpoint{},
		metrics: newEndpointMetrics(opts.Metrics),
		// Half-open: one probe decides; a circuit stays open OpenFor each time.
		policy:   resilience.Policy{Threshold: opts.FailureThreshold, Cooldown: opts.OpenFor, MaxCooldown: opts.OpenFor},
		inFlight: resilience.NewBulkhead[PartnerKey](opts.MaxInFlight),
		waiting:  parking.New[PartnerKey](freedBuffer)}
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
	now := e.opts.Now()
	ep := e.byPartner[partner]
	if ep == nil || ep.url != url {
		ep = e.resetCircuit(partner, url)
	}
	release, ok := e.inFlight.TryAcquire(partner)
	if !ok {
		e.waiting.Park(partner, delivery)
		return e.deferral(partner, VerdictSaturated, ep, now)
	}
	allowed, next := resilience.Allow(ep.circuit, now)
	e.setCircuit(partner, ep, next)
	if !allowed {
		release()
		v := VerdictProbing
		if next.Phase == resilience.Open {
			v = VerdictOpen
		}
		return e.deferral(partner, v, ep, now)
	}
	e.waiting.Remove(delivery)
	e.metrics.inFlight.WithLabelValues(partner.Namespace, partner.Name).Inc()
	var once sync.Once
	return Admission{Verdict: VerdictSend, done: func(res Result) {
		once.Do(func() {
			e.mu.Lock()
			if e.byPartner[partner] == ep { // else the partner's url changed since
				e.setCircuit(partner, ep, resilience.Record(ep.circuit, AttemptOutcome(res), 0, e.opts.Now(), e.policy, 0))
			}
			release()
			e.waiting.Wake(partner) // a full buffer leaves it to the waiter's RetryWait
			e.mu.Unlock()
			e.metrics.inFlight.WithLabelValues(partner.Namespace, partner.Name).Dec()
		})
	}}
}

func (e *Endpoints) deferral(partner PartnerKey, v Verdict, ep *endpoint, now time.Time) Admission {
	e.metrics.deferred.WithLabelValues(partner.Namespace, partner.Name, string(v)).Inc()
	return Admission{Verdict: v, Wait: RetryWait(v, ep.circuit.RetryAt, now, e.opts.RetryWait, e.rand())}
}

// resetCircuit gives partner a closed circuit for url; called with e.mu held. Attempts still
// in flight to the old url keep their slots, and their results are ignored.
func (e *Endpoints) resetCircuit(partner PartnerKey, url string) *endpoint {
	fresh := &endpoint{url: url}
	e.byPartner[partner] = fresh
	e.setCircuit(partner, fresh, resilience.State{})
	return fresh
}

// setCircuit records ep's circuit and shows its phase; called with e.mu held.
func (e *Endpoints) setCircuit(partner PartnerKey, ep *endpoint, s resilience.State) {
	ep.circuit = s
	e.metrics.circuitState.WithLabelValues(partner.Namespace, partner.Name).Set(circuitValue(s.Phase))
}

// circuitValue is the swaprouter_webhook_circuit_state of a phase.
func circuitValue(p resilience.Phase) float64 {
	switch p {
	case resilience.HalfOpen:
		return 1
	case resilience.Open:
		return 2
	}
	return 0
}

// AttemptOutcome is what an attempt's result says about the endpoint: it succeeded when it
// answered like a live one (2xx, and 4xx other than 408/429: the endpoint works, the request
// is what it refuses), failed when it did not (no answer, timeout, 408, 429, 5xx), and says
// nothing when the attempt was cut short by shutdown.
func AttemptOutcome(res Result) resilience.Outcome {
	switch {
	case res.Err != nil && errors.Is(res.Err, context.Canceled):
		return resilience.Abandoned
	case res.Err != nil, res.Code == 0:
		return resilience.Failed
	case res.Code == http.StatusRequestTimeout, res.Code == http.StatusTooManyRequests, res.Code >= 500:
		return resilience.Failed
	default:
		return resilience.Succeeded
	}
}

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
