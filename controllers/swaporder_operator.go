package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/webhook"
)

// ReasonOperatorResolved is the status reason (and history reason) of an order an operator
// ended with AnnotationResolve; status.resolution says who and why.
const ReasonOperatorResolved = "OperatorResolved"

// operatorControls is what the operator annotations ask of one reconcile.
type operatorControls struct {
	// paused holds provider steps (AnnotationPaused is set).
	paused bool
	// pollNow lets one provider step through now, paused or not.
	pollNow bool
	// consumed are the request annotations acted on, removed after the status write.
	consumed []string
}

// operatorAnnotationChanged lets a change of an operator annotation through, so pause,
// resume, poll, resolve and redeliver act at once.
var operatorAnnotationChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		before, after := e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations()
		for _, k := range swapv1.OperatorAnnotations {
			if before[k] != after[k] {
				return true
			}
		}
		return false
	},
}

// applyOperatorControls acts on the order's operator annotations before the step machine
// chooses: a resolve ends the order (the emit step then sends its webhook), a poll makes the
// poll due now, a redeliver creates a new delivery of each event still in history. Requests
// that cannot be honoured are consumed too, with a Warning Event saying why: an annotation
// acts once, whatever the outcome.
func (r *SwapOrderReconciler) applyOperatorControls(ctx context.Context, p *orderPass) (operatorControls, error) {
	o, st := p.order, &p.order.Status
	ann := o.GetAnnotations()
	var c operatorControls
	if _, ok := ann[swapv1.AnnotationPaused]; ok {
		c.paused = true
	}
	if v, ok := ann[swapv1.AnnotationResolve]; ok {
		c.consumed = append(c.consumed, swapv1.AnnotationResolve)
		res, change, err := resolveRequest(st.Status, v, ann[swapv1.RequestedBy(swapv1.AnnotationResolve)])
		switch {
		case err != nil && sameResolution(st.Resolution, res):
			// Applied by an earlier pass whose annotation removal did not happen.
		case err != nil:
			r.Recorder.Eventf(o, nil, "Warning", "ResolveRejected", "Resolve", "%v", err)
			p.log.Info("operator resolve rejected", "error", err.Error())
		default:
			res.At = ptrTime(p.now)
			st.Resolution = &res
			st.Substatus = orders.Substatus(change.To, change.Reason, st.Substatus, nil, false)
			p.transition(change)
			st.NextPollAt = nil
			orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
			r.Recorder.Eventf(o, nil, "Warning", ReasonOperatorResolved, "Resolve",
				"resolved to %s by %s: %s", res.Status, res.By, res.Reason)
			p.log.Info("order resolved by an operator", "to", res.Status, "by", res.By, "why", res.Reason)
		}
	}
	if _, ok := ann[swapv1.AnnotationPoll]; ok {
		// Consumed by holdPaused once the poll can happen (or never will).
		c.pollNow = true
		if !st.Status.IsTerminal() {
			st.NextPollAt = nil
		}
	}
	if _, ok := ann[swapv1.AnnotationRedeliver]; ok {
		n, err := r.redeliverOrder(ctx, o)
		switch {
		case errors.Is(err, errWebhooksDisabled):
			r.Recorder.Eventf(o, nil, "Warning", "RedeliverRejected", "Redeliver", "%v", err)
		case err != nil:
			// Nothing consumed: the next reconcile tries again.
			return c, fmt.Errorf("redelivering webhooks: %w", err)
		default:
			r.Recorder.Eventf(o, nil, "Normal", "Redelivered", "Redeliver", "%d webhook events sent again", n)
			p.log.Info("webhooks redelivered on operator request", "events", n)
		}
		c.consumed = append(c.consumed, swapv1.AnnotationRedeliver)
	}
	return c, nil
}

// holdPaused reports whether the paused order must not take step now, and keeps the Paused
// condition in line: True with who/why while paused, gone otherwise. A poll request passes the
// pause for one tracking step (never the address creation); it is consumed once it can act
// (or never will), so a pass that only emits keeps it for the next.
func holdPaused(st *swapv1.SwapOrderStatus, gen int64, c *operatorControls, step orders.Step, why string, now metav1.Time) bool {
	paused := c.paused && !st.Status.IsTerminal()
	tracking := step == orders.StepPoll || step == orders.StepForwardHint
	if c.pollNow && (!paused || tracking || step == orders.StepCreateDeposit) {
		c.consumed = append(c.consumed, swapv1.AnnotationPoll)
	}
	if !paused {
		meta.RemoveStatusCondition(&st.Conditions, swapv1.ConditionPaused)
		return false
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: swapv1.ConditionPaused, Status: metav1.ConditionTrue, Reason: "OperatorPaused",
		Message:            "no provider steps until the " + swapv1.AnnotationPaused + " annotation is removed: " + why,
		ObservedGeneration: gen, LastTransitionTime: now,
	})
	switch step {
	case orders.StepCreateDeposit:
		return true
	case orders.StepPoll, orders.StepForwardHint:
		return !c.pollNow
	}
	return false
}

// pauseNote says who paused the order, as the API server stamped it, and the pause's own
// text (why).
func pauseNote(annotations map[string]string) string {
	by := annotations[swapv1.RequestedBy(swapv1.AnnotationPaused)]
	if by == "" {
		by = "an unrecorded requester"
	}
	return "paused by " + by + ": " + annotations[swapv1.AnnotationPaused]
}

// sameResolution reports whether applied (the order's recorded resolution) is req.
func sameResolution(applied *swapv1.OperatorResolution, req swapv1.OperatorResolution) bool {
	return applied != nil && applied.Status == req.Status && applied.Reason == req.Reason && applied.By == req.By
}

// resolveRequest parses an AnnotationResolve value and decides the transition it asks for.
// Who resolves is requester, the username the API server stamped beside the annotation; a
// "by" in the value is only the client's claim and is not recorded. Money rules: the status
// must be terminal, the reason and who say it must be given (SUCCESS and REFUNDED are the
// operator's statement about funds), the order must not be terminal already, and an order
// that never got a deposit address can only be FAILED.
func resolveRequest(current swapv1.OrderStatus, value, requester string) (swapv1.OperatorResolution, orders.Change, error) {
	var res swapv1.OperatorResolution
	dec := json.NewDecoder(strings.NewReader(value))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return res, orders.Change{}, fmt.Errorf(`%s must be JSON {"status","reason"}: %v`, swapv1.AnnotationResolve, err)
	}
	if strings.TrimSpace(requester) == "" {
		return res, orders.Change{}, fmt.Errorf("resolve: no %s names who asked (is config/admission installed?)",
			swapv1.RequestedBy(swapv1.AnnotationResolve))
	}
	res.Reason, res.By, res.At = strings.TrimSpace(res.Reason), strings.TrimSpace(requester), nil
	if err := res.Validate(); err != nil {
		return res, orders.Change{}, err
	}
	switch {
	case current.IsTerminal():
		return res, orders.Change{}, fmt.Errorf("resolve: the order is already %s", current)
	case current == "" && res.Status != swapv1.OrderFailed:
		return res, orders.Change{}, fmt.Errorf("resolve: the order never got a deposit address; it can only be FAILED, not %s", res.Status)
	}
	return res, orders.Change{To: res.Status, Reason: ReasonOperatorResolved}, nil
}

var errWebhooksDisabled = errors.New("the partner's webhooks are disabled; nothing to redeliver")

// redeliverOrder creates one new delivery of every event of o that has one, and returns how
// many.
func (r *SwapOrderReconciler) redeliverOrder(ctx context.Context, o *swapv1.SwapOrder) (int, error) {
	enabled, err := r.webhookEnabled(ctx, o)
	if err != nil {
		return 0, err
	}
	if !enabled {
		return 0, errWebhooksDisabled
	}
	items, err := index.OrderDeliveries(ctx, r.Client, o.Namespace, o.Spec.OrderID)
	if err != nil {
		return 0, err
	}
	byEvent := map[string][]swapv1.WebhookDelivery{}
	var events []string
	for _, d := range items {
		if _, seen := byEvent[d.Spec.EventID]; !seen {
			events = append(events, d.Spec.EventID)
		}
		byEvent[d.Spec.EventID] = append(byEvent[d.Spec.EventID], d)
	}
	for _, ev := range events {
		if _, err := webhook.CreateRedelivery(ctx, r.Client, r.APIReader, byEvent[ev]); err != nil {
			return 0, err
		}
	}
	return len(events), nil
}

// consumeOperatorControls removes the request annotations acted on, after the status write
// recorded their effect: a crash in between repeats the request, which is harmless (resolve
// finds the order terminal, a poll or a redelivery happens twice), never loses it.
func (r *SwapOrderReconciler) consumeOperatorControls(ctx context.Context, o *swapv1.SwapOrder, c operatorControls) error {
	if len(c.consumed) == 0 {
		return nil
	}
	remove := map[string]any{}
	for _, k := range c.consumed {
		remove[k] = nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": remove}})
	if err != nil {
		return err
	}
	obj := &swapv1.SwapOrder{}
	obj.Namespace, obj.Name = o.Namespace, o.Name
	if err := r.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("removing operator annotations: %w", err))
	}
	return nil
}
