package controllers

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/parking"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/budget"
	"github.com/swaprouter/swaprouter/internal/resilience"
)

// callSlots are the order reconciler's worker shares, so calls to one provider cannot starve
// the others. No worker ever waits for a slot: an order that finds none is parked
// (waiting) and woken when a slot of what it waits for is released.
//
//   - providerSlots: concurrent calls per provider, below the worker count, so a provider that
//     hangs holds at most that many workers and the others keep polling;
//   - createSlots: concurrent deposit-address creations, leaving at least a quarter of the
//     workers to tracking, so a burst of new orders (which the queue serves first, see
//     queuePriority) never stops the polls of existing ones.
type callSlots struct {
	providerSlots *resilience.Bulkhead[swapv1.ProviderID]
	createSlots   *resilience.Bulkhead[orders.Step]
	waiting       *parking.Lot[heldKey]
}

// wakeBuffer is how many wake-ups may wait for the controller; beyond it a parked order is
// brought back by its own timer (heldParked).
const wakeBuffer = 1024

func newCallSlots(workers, perProvider int) callSlots {
	return callSlots{
		providerSlots: resilience.NewBulkhead[swapv1.ProviderID](perProvider),
		createSlots:   resilience.NewBulkhead[orders.Step](createShare(workers)),
		waiting:       parking.New[heldKey](wakeBuffer),
	}
}

// heldKey is the slot a parked order waits for: one of provider's call slots
// (provider_saturated) or one of the creation share (creates_saturated, no provider).
type heldKey struct {
	reason   string
	provider swapv1.ProviderID
}

// parkedOn is where a pass held back for reason waits. A used-up budget is not parked: it
// refills at the provider's Retry-After, not when a call ends.
func parkedOn(reason string, provider swapv1.ProviderID) (heldKey, bool) {
	switch reason {
	case heldProviderSaturated:
		return heldKey{reason: reason, provider: provider}, true
	case heldCreatesSaturated:
		return heldKey{reason: reason}, true
	}
	return heldKey{}, false
}

// takeCall takes a call slot of provider; its release wakes the provider's oldest parked order.
func (c callSlots) takeCall(provider swapv1.ProviderID) (release func(), ok bool) {
	release, ok = c.providerSlots.TryAcquire(provider)
	return c.waking(release, heldKey{reason: heldProviderSaturated, provider: provider}), ok
}

// takeCreate takes a slot of the creation share; its release wakes the oldest parked creation.
func (c callSlots) takeCreate() (release func(), ok bool) {
	release, ok = c.createSlots.TryAcquire(orders.StepCreateDeposit)
	return c.waking(release, heldKey{reason: heldCreatesSaturated}), ok
}

func (c callSlots) waking(release func(), key heldKey) func() {
	if release == nil {
		return nil
	}
	return func() {
		release()
		c.waiting.Wake(key)
	}
}

// park lines order up for key's next released slot. A slot released between the order's
// failed take and Park woke nobody, so a free slot found after parking wakes the oldest in
// line now: no slot stays unused while orders wait for it.
func (c callSlots) park(key heldKey, order types.NamespacedName) {
	c.waiting.Park(key, order)
	if c.free(key) {
		c.waiting.Wake(key)
	}
}

func (c callSlots) free(key heldKey) bool {
	if key.reason == heldCreatesSaturated {
		return c.createSlots.InUse(orders.StepCreateDeposit) < c.createSlots.Size()
	}
	return c.providerSlots.InUse(key.provider) < c.providerSlots.Size()
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

// Why a pass was held back (label of swaprouter_order_held_back_total).
const (
	heldProviderSaturated = "provider_saturated"
	heldProviderBudget    = "provider_budget"
	heldCreatesSaturated  = "creates_saturated"
)

// Shortest waits of a held-back order. A parked order (call slots or creation share in use)
// is woken by a released slot; its timer is only the safety net for a wake-up that was
// never sent (wakeBuffer full). Timers that were the only way back spun the waiting orders
// through the queue (with one provider hanging: ~190 passes/s at 200 ms, ~57,000 passes at
// 1 s, the healthy provider's quote p99 up by half), so the net is the shortest poll interval: a
// missed wake-up delays an order by no more than one poll would. A used-up budget is not
// parked and waits for its refill (Retry-After), at least heldRetryBase.
const (
	heldParked    = 10 * time.Second
	heldRetryBase = 200 * time.Millisecond
)

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
	if _, parked := parkedOn(reason, ""); parked {
		base = heldParked
	}
	d := max(retryAfter, base)
	return d + time.Duration(u*float64(d))
}

// heldBack decides a call that was not made because the provider is at its call cap or out
// of budget (see holdBack). It reports false for every other outcome.
func (r *SwapOrderReconciler) heldBack(p *orderPass, err error) bool {
	reason, retryAfter, held := heldReason(err)
	if held {
		r.holdBack(p, reason, retryAfter)
	}
	return held
}

// holdBack makes the pass's effect the wait alone: the order is parked or requeued, with no
// failure counted, nothing written or answered and no error backoff. The pass observed
// nothing, so a first pass of a new order writes nothing just for this.
func (r *SwapOrderReconciler) holdBack(p *orderPass, reason string, retryAfter time.Duration) {
	p.order.Status = *p.orig.DeepCopy()
	e := orderEffect{held: true}
	e.count(r.metrics.heldBack, string(p.order.Spec.ProviderID), reason)
	if key, ok := parkedOn(reason, p.order.Spec.ProviderID); ok {
		e.park = &key
	}
	delay := heldDelay(reason, retryAfter, r.Rand())
	p.log.V(1).Info("no capacity for this pass; waiting", "reason", reason, "parked", e.park != nil, "retryIn", delay)
	e.result = ctrl.Result{RequeueAfter: delay}
	p.effect = e
}
