package controllers

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/budget"
	"github.com/swaprouter/swaprouter/internal/slots"
)

// callSlots are the order reconciler's worker shares (design.md "Provider calls that cannot
// starve each other"). No worker ever waits for a slot: an order that finds none is requeued.
//
//   - providerSlots: concurrent calls per provider, below the worker count, so a provider that
//     hangs holds at most that many workers and the others keep polling;
//   - createSlots: concurrent deposit-address creations, leaving at least a quarter of the
//     workers to tracking, so a burst of new orders (which the queue serves first, see
//     queuePriority) never stops the polls of existing ones.
type callSlots struct {
	providerSlots *slots.Pool[swapv1.ProviderID]
	createSlots   *slots.Pool[orders.Step]
}

func newCallSlots(workers, perProvider int) callSlots {
	return callSlots{
		providerSlots: slots.New[swapv1.ProviderID](perProvider),
		createSlots:   slots.New[orders.Step](createShare(workers)),
	}
}

// createShare is how many workers may create deposit addresses at once: all but a quarter
// (at least one kept for tracking when there are two workers or more).
func createShare(workers int) int {
	if workers <= 1 {
		return 1
	}
	return workers - max(workers/4, 1)
}

// Queue priorities of the order controller's priority queue. A new order's partner waits
// synchronously for its deposit address, so creations go first; they are capped (createShare),
// so tracking always has workers left. Tracking uses the handler's default, so watch events
// of existing orders (hints, operator annotations) queue alongside their polls.
const (
	priorityCreate = 10
	priorityTrack  = 0
)

// queuePriority is the priority of an order's next pass: a creation until it has a status.
func queuePriority(st *swapv1.SwapOrderStatus) int {
	if st.Status == "" {
		return priorityCreate
	}
	return priorityTrack
}

// errProviderSaturated: the provider has every call slot in use; the call was not made.
var errProviderSaturated = errors.New("every call slot of the provider is in use")

// Why a pass was held back (label of heldBackTotal).
const (
	heldProviderSaturated = "provider_saturated"
	heldProviderBudget    = "provider_budget"
	heldCreatesSaturated  = "creates_saturated"
)

// Shortest waits of a held-back order. A provider at its call cap is slow (that is how it
// fills its slots), so a slot frees only every call time ÷ cap: retrying sooner than a second
// only spins the waiting orders through the queue (scenario 10 measured ~190 passes/s and a
// doubled quote p99 at 200 ms) and is still short next to a 10–15 s poll interval. The
// creation share frees within a create's few hundred milliseconds, and a partner waits for it.
const (
	heldRetrySaturated = time.Second
	heldRetryBase      = 200 * time.Millisecond
)

var heldBackTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "swaprouter",
	Subsystem: "order",
	Name:      "held_back_total",
	Help: "Order passes requeued without calling the provider, by provider and reason (provider_saturated: every call slot " +
		"of the provider in use; provider_budget: its spec.callBudget used up; creates_saturated: the deposit-creation share of the workers in use).",
}, []string{"provider", "reason"})

func init() { ctrlmetrics.Registry.MustRegister(heldBackTotal) }

// heldReason tells a call that was never made for want of capacity from a provider failure.
func heldReason(err error) (reason string, retryAfter time.Duration, held bool) {
	switch {
	case errors.Is(err, errProviderSaturated):
		return heldProviderSaturated, 0, true
	case errors.Is(err, budget.ErrExhausted):
		return heldProviderBudget, provider.AsError(err).RetryAfter, true
	}
	return "", 0, false
}

// heldDelay is the jittered wait of an order held back for reason, u in [0, 1): [d, 2d)
// with d the larger of the reason's shortest wait and when capacity is due back.
func heldDelay(reason string, retryAfter time.Duration, u float64) time.Duration {
	base := heldRetryBase
	if reason == heldProviderSaturated {
		base = heldRetrySaturated
	}
	d := max(retryAfter, base)
	return d + time.Duration(u*float64(d))
}

// heldBack handles a call that was not made because the provider is at its call cap or out
// of budget: the order is requeued shortly, with no failure counted, nothing written and no
// error backoff. It reports false for every other outcome.
func (r *SwapOrderReconciler) heldBack(p *orderPass, err error) (ctrl.Result, bool) {
	reason, retryAfter, held := heldReason(err)
	if !held {
		return ctrl.Result{}, false
	}
	return r.holdBack(p, reason, retryAfter), true
}

func (r *SwapOrderReconciler) holdBack(p *orderPass, reason string, retryAfter time.Duration) ctrl.Result {
	// The pass observed nothing: a first pass of a new order must not write just for this.
	p.order.Status.ObservedGeneration = p.orig.ObservedGeneration
	heldBackTotal.WithLabelValues(string(p.order.Spec.ProviderID), reason).Inc()
	delay := heldDelay(reason, retryAfter, r.Rand())
	p.log.V(1).Info("no capacity for this pass; requeued", "reason", reason, "retryIn", delay)
	return ctrl.Result{RequeueAfter: delay}
}
