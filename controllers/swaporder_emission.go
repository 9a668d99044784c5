package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// Webhook emission costs no status write of its own (counted in swaporder_writes_test.go).
// The order of the effect (orderEffect.operations) carries the first two points; the
// property test in swaporder_effect_test.go checks them for every effect:
//
//  1. A transition's WebhookDelivery is created only after the status write that recorded it
//     succeeded (opEnsureDeliveries after opWriteStatus). A delivery therefore never exists
//     for a transition that was not persisted, and a failed write (a conflict) creates none:
//     the step repeats and may record another transition.
//  2. The seq deliveries were created up to is kept in memory (orderMemory) and, as an input
//     of orders.Plan (Memory.Emitted, orders.CarryNotified), carried into the order's next
//     status write as notifiedSeq, which that write makes anyway (the next transition, or
//     the archive step). Until then the stored notifiedSeq lags.
//  3. A lagging stored notifiedSeq is exactly the state of a crash between the status write
//     and the delivery create. A process without the memory first looks for the deliveries
//     in its cache while reading (emittedEarlier): what it finds is planned with and
//     remembered, without a write, so a restart costs no write per live order. For the
//     others it runs StepEmit, whose create of an existing delivery is AlreadyExists
//     (deterministic names), and records notifiedSeq. So a transition never loses its
//     webhook, and none is sent twice with a new id.
//  4. The WebhookDelivery reconciler keeps a finished delivery past its retention until its
//     order's stored notifiedSeq covers it (or the order is gone): deleting it earlier would
//     let a restarted process create it again and send the event a second time.
//  5. A terminal order without an archive has no later status write to carry notifiedSeq,
//     so it writes it itself (StepEmit; orders.CarryNotified leaves it).

// emittedEarlier is what a process before this one (a restart, another leader) emitted but
// never recorded: the highest unnotified seq up to which every delivery is in the cache, or
// the last seq when the partner wants no webhooks. Seen once per order after a restart (then
// remembered, see memoryChange.emitted), it spares StepEmit's create and status write for
// every live order. A delivery the cache does not show yet is left to StepEmit, whose create
// is then AlreadyExists. It only reads.
func (r *SwapOrderReconciler) emittedEarlier(ctx context.Context, p *orderPass) int64 {
	o := p.order
	st := &o.Status
	if st.LastSeq <= st.NotifiedSeq || st.EmitRetryAt != nil || (st.Status.IsTerminal() && r.Archive == nil) {
		return 0 // nothing to find, a failed emission that retries on its own, or StepEmit's
	}
	enabled, err := r.webhookEnabled(ctx, o)
	if err != nil {
		return 0
	}
	found := st.LastSeq
	if enabled {
		found = st.NotifiedSeq
		for _, t := range orders.Unnotified(st) {
			key := client.ObjectKey{Namespace: o.Namespace, Name: delivery.DeliveryName(webhooks.EventID(o.Spec.OrderID, string(o.UID), t.Seq), 0)}
			if err := r.Get(ctx, key, &swapv1.WebhookDelivery{}); err != nil {
				break
			}
			found = t.Seq
		}
	}
	if found <= st.NotifiedSeq {
		return 0
	}
	p.effect.memory.emitted = found
	return found
}

// emitRecorded creates the deliveries of the transitions the pass's status write has just
// recorded (point 1 above). Any failure leaves them to StepEmit, with its backoff, at the next
// reconcile, which the pass has asked for.
func (r *SwapOrderReconciler) emitRecorded(ctx context.Context, p *orderPass) {
	o, st := p.order, &p.order.Status
	if st.EmitRetryAt != nil {
		return // an emission that failed before retries on its own schedule
	}
	enabled, err := r.webhookEnabled(ctx, o)
	if err != nil {
		return
	}
	done := st.LastSeq
	if enabled {
		done = st.NotifiedSeq
		for _, t := range orders.Unnotified(st) {
			skipped, err := r.ensureDelivery(ctx, p, t)
			if err != nil {
				p.log.V(1).Info("webhook delivery not created with its transition; StepEmit retries", "error", err.Error())
				break
			}
			if skipped != nil {
				r.recordEvents(o, []kubeEvent{*skipped})
			}
			done = t.Seq
		}
	}
	if done > st.NotifiedSeq {
		r.memory.rememberEmitted(o, done)
	}
}

// ensureDelivery creates the WebhookDelivery of transition t; one that exists already is
// fine (deterministic name). One that cannot be built never will be: it is skipped, loudly
// (the Event it returns).
func (r *SwapOrderReconciler) ensureDelivery(ctx context.Context, p *orderPass, t swapv1.StatusTransition) (skipped *kubeEvent, err error) {
	o := p.order
	d, err := delivery.NewDelivery(o, delivery.EventFor(o, t), 0)
	if err != nil {
		p.log.Error(err, "cannot build the webhook delivery; skipping it", "seq", t.Seq)
		return &kubeEvent{kind: "Warning", reason: "WebhookSkipped", action: "Emit",
			message: fmt.Sprintf("the event of transition %d cannot be delivered: %v", t.Seq, err)}, nil
	}
	if err := r.Create(ctx, d); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating webhook delivery %s: %w", d.Name, err)
	}
	return nil, nil
}
