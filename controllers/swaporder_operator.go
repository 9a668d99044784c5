package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
	"github.com/swaprouter/swaprouter/internal/orders"
)

// ReasonOperatorResolved is the status reason (and history reason) of an order an operator
// ended with AnnotationResolve; status.resolution says who and why.
const ReasonOperatorResolved = verbs.ReasonResolved

// operatorControls is what the operator annotations ask of one reconcile: the controls its
// plan takes as inputs, and what answering them needs.
type operatorControls struct {
	orders.Controls
	// resolution and resolveTo are the allowed resolve request (Controls.Resolve).
	resolution swapv1.OperatorResolution
	resolveTo  orders.Change
	// redeliver is an allowed redeliver request, planned.
	redeliver *redelivery
	// consumed are the annotations the pass answers whatever its step (refused, or acted
	// on while reading); the steps add the ones they act on (orderEffect.remove).
	consumed []string
	// read are the annotations as the pass read them: a removal takes away only the
	// request acted on, never a newer one written meanwhile.
	read map[string]string
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

// readOperatorControls decides the order's request annotations before the pass is planned:
// an allowed resolve or poll becomes a control of the plan, an allowed redeliver is planned
// (the deliveries it creates, read but not written). What verbs.Decide refuses is answered
// with a Warning Event and a log line in the pass's effect: no request outlives the pass that
// read it unanswered. It only reads; an error means nothing was decided.
func (r *SwapOrderReconciler) readOperatorControls(ctx context.Context, p *orderPass) (operatorControls, error) {
	o, st := p.order, &p.order.Status
	ann := o.GetAnnotations()
	c := operatorControls{read: maps.Clone(ann)}
	_, c.Paused = ann[swapv1.AnnotationPaused]
	if v, ok := ann[swapv1.AnnotationResolve]; ok {
		res, change, err := resolveRequest(verbs.Of(o, false), v, ann[swapv1.RequestedBy(swapv1.AnnotationResolve)])
		switch {
		case err != nil && sameResolution(st.Resolution, res):
			// Applied by an earlier pass whose annotation removal did not happen.
			c.consumed = append(c.consumed, swapv1.AnnotationResolve)
		case err != nil:
			c.consumed = append(c.consumed, swapv1.AnnotationResolve)
			p.refuse(verbs.Resolve, err)
		default:
			// Consumed by resolve, the step it plans.
			c.Resolve, c.resolution, c.resolveTo = true, res, change
		}
	}
	if _, ok := ann[swapv1.AnnotationPoll]; ok {
		if err := verbs.Decide(verbs.Request{Verb: verbs.Poll}, verbs.Of(o, false)); err != nil {
			c.consumed = append(c.consumed, swapv1.AnnotationPoll)
			p.refuse(verbs.Poll, err)
		} else {
			// Consumed by settleOperatorControls once a tracking step took it.
			c.PollNow = true
		}
	}
	c.Review = r.readReview(p, &c)
	if _, ok := ann[swapv1.AnnotationRedeliver]; ok {
		rd, err := r.readRedeliver(ctx, p)
		if err != nil {
			return c, err
		}
		c.redeliver = rd
		c.consumed = append(c.consumed, swapv1.AnnotationRedeliver)
	}
	return c, nil
}

// readRedeliver decides the order's redeliver annotation: a new delivery of every event in
// its history (delivery.PlanRedelivery), or a refusal (nil).
func (r *SwapOrderReconciler) readRedeliver(ctx context.Context, p *orderPass) (*redelivery, error) {
	o := p.order
	enabled, err := r.webhookEnabled(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := verbs.Decide(verbs.Request{Verb: verbs.Redeliver}, verbs.Of(o, enabled)); err != nil {
		p.refuse(verbs.Redeliver, err)
		return nil, nil
	}
	items, err := index.OrderDeliveries(ctx, r.Client, o.Namespace, o.Spec.OrderID)
	if err != nil {
		return nil, err
	}
	by := o.Annotations[swapv1.RequestedBy(swapv1.AnnotationRedeliver)]
	plan, err := delivery.PlanRedelivery(ctx, r.APIReader, o, items, true, delivery.Ask{RequestedBy: by})
	if err != nil {
		return nil, fmt.Errorf("planning the redelivery of webhooks: %w", err)
	}
	return &redelivery{plan: plan, by: by}, nil
}

// refuse answers a request verbs.Decide refused, in the pass's effect: a Warning Event on
// the order (the plugin shows its note), and a log line.
func (p *orderPass) refuse(v verbs.Verb, err error) {
	ev := refusal(v, err)
	p.effect.events = append(p.effect.events, ev)
	p.log.Info("operator request refused", "verb", string(v), "reason", err.Error())
}

// resolve ends the order as the operator asked (allowed when the request was read). Its
// webhook follows the status write like any transition's.
func (r *SwapOrderReconciler) resolve(p *orderPass) ctrl.Result {
	o, st, c := p.order, &p.order.Status, &p.controls
	res, change := c.resolution, c.resolveTo
	res.At = ptrTime(p.now)
	st.Resolution = &res
	st.Substatus = orders.Substatus(st.Status, change.To, change.Reason, st.Substatus, nil, false)
	p.transition(change)
	st.NextPollAt = nil
	orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
	c.consumed = append(c.consumed, swapv1.AnnotationResolve)
	p.effect.event("Warning", ReasonOperatorResolved, "Resolve", "resolved to %s by %s: %s", res.Status, res.By, res.Reason)
	p.log.Info("order resolved by an operator", "to", res.Status, "by", res.By, "why", res.Reason)
	return ctrl.Result{RequeueAfter: nextStepNow}
}

// markPaused keeps the Paused condition in line with the pause: True with who and why while
// a live order is paused, gone otherwise (what a pause holds is orders.Plan's).
func markPaused(st *swapv1.SwapOrderStatus, gen int64, paused bool, why string, now metav1.Time) {
	if !paused || st.Status.IsTerminal() {
		meta.RemoveStatusCondition(&st.Conditions, swapv1.ConditionPaused)
		return
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: swapv1.ConditionPaused, Status: metav1.ConditionTrue, Reason: "OperatorPaused",
		Message:            "no provider steps until the " + swapv1.AnnotationPaused + " annotation is removed: " + why,
		ObservedGeneration: gen, LastTransitionTime: now,
	})
}

// recordPause reports a persisted change of the order's pause: a Paused Event naming who
// paused it and why when its Paused condition came on, a Resumed Event when it went while the
// order is live (an order that ended while paused has its PauseEnded Event).
func (r *SwapOrderReconciler) recordPause(o *swapv1.SwapOrder, before *swapv1.SwapOrderStatus) {
	was := meta.IsStatusConditionTrue(before.Conditions, swapv1.ConditionPaused)
	now := meta.IsStatusConditionTrue(o.Status.Conditions, swapv1.ConditionPaused)
	switch {
	case !was && now:
		r.Recorder.Eventf(o, nil, "Normal", verbs.ReasonPaused, "Pause", "%s; no provider steps until resume", pauseNote(o.Annotations))
	case was && !now && !o.Status.Status.IsTerminal():
		r.Recorder.Eventf(o, nil, "Normal", verbs.ReasonResumed, "Resume", "the pause is lifted; provider steps resume (the order is %s)", statusWord(o))
	}
}

// statusWord is the order's status for a message: "new" before it has one.
func statusWord(o *swapv1.SwapOrder) string {
	if o.Status.Status == "" {
		return "new"
	}
	return string(o.Status.Status)
}

// settleOperatorControls closes the pass's operator controls into its effect: the requests
// it answered are removed (each by the value read), and an allowed redelivery is made. A
// poll request is done once a tracking step asked the provider (a pass held back for
// capacity asked nothing; one that only emitted leaves it to the next), and reported once
// its request is gone. A pause ends with the order: a finished order takes no provider
// steps, so its Paused condition and annotation go, with a PauseEnded Event when it ended
// while paused and a refusal when it was paused after it ended.
func (r *SwapOrderReconciler) settleOperatorControls(p *orderPass) {
	c, e := &p.controls, &p.effect
	step := p.decision.Step
	o, st := p.order, &p.order.Status
	if c.PollNow && (step == orders.StepPoll || step == orders.StepForwardHint) && !e.held {
		c.consumed = append(c.consumed, swapv1.AnnotationPoll)
		e.afterRemoval = append(e.afterRemoval, kubeEvent{kind: "Normal", reason: verbs.ReasonPolled, action: "Poll",
			message: fmt.Sprintf("provider %s asked at the request of %s; the order is %s (%s)",
				o.Spec.ProviderID, requester(c.read, swapv1.AnnotationPoll), st.Status, st.Substatus)})
	}
	if c.Paused && st.Status.IsTerminal() {
		c.consumed = append(c.consumed, swapv1.AnnotationPaused)
		wasPaused := meta.IsStatusConditionTrue(p.orig.Conditions, swapv1.ConditionPaused) ||
			meta.IsStatusConditionTrue(st.Conditions, swapv1.ConditionPaused)
		meta.RemoveStatusCondition(&st.Conditions, swapv1.ConditionPaused)
		if !wasPaused {
			p.refuse(verbs.Pause, verbs.Decide(verbs.Request{Verb: verbs.Pause}, verbs.Of(o, false)))
		} else {
			e.event("Normal", verbs.ReasonPauseEnded, "Pause", "the order ended as %s while paused; the pause is lifted", st.Status)
			p.log.Info("the order ended while paused; pause lifted", "status", st.Status)
		}
	}
	e.redeliver = c.redeliver
	for _, k := range c.consumed {
		e.remove = append(e.remove, annotationRemoval{key: k, value: c.read[k]})
	}
}

// refuseRequest reports a request verbs.Decide refused at once (outside a pass): a Warning
// Event on the order and a log line.
func refuseRequest(rec events.EventRecorder, log logr.Logger, o *swapv1.SwapOrder, v verbs.Verb, err error) {
	ev := refusal(v, err)
	rec.Eventf(o, nil, ev.kind, ev.reason, ev.action, "%s", ev.message)
	log.Info("operator request refused", "verb", string(v), "reason", err.Error())
}

// refusal is the Warning Event of a refused request.
func refusal(v verbs.Verb, err error) kubeEvent {
	return kubeEvent{kind: "Warning", reason: v.RejectedReason(), action: strings.ToUpper(string(v[:1])) + string(v[1:]), message: err.Error()}
}

// redeliverRequested acts on the order's redeliver annotation: a new delivery of every event
// in its history (delivery.RedeliverOrder), or a refusal. An error means nothing was decided
// and the request stays.
func redeliverRequested(ctx context.Context, c client.Client, live client.Reader, rec events.EventRecorder, log logr.Logger, o *swapv1.SwapOrder) error {
	enabled, err := partnerWebhookEnabled(ctx, c, o)
	if err != nil {
		return err
	}
	if err := verbs.Decide(verbs.Request{Verb: verbs.Redeliver}, verbs.Of(o, enabled)); err != nil {
		refuseRequest(rec, log, o, verbs.Redeliver, err)
		return nil
	}
	items, err := index.OrderDeliveries(ctx, c, o.Namespace, o.Spec.OrderID)
	if err != nil {
		return err
	}
	by := o.Annotations[swapv1.RequestedBy(swapv1.AnnotationRedeliver)]
	names, err := delivery.RedeliverOrder(ctx, c, live, o, items, true, delivery.Ask{RequestedBy: by})
	if err != nil {
		return fmt.Errorf("redelivering webhooks (%d sent again before the error): %w", len(names), err)
	}
	rec.Eventf(o, nil, "Normal", verbs.ReasonRedelivered, "Redeliver", "%d webhook events sent again at the request of %s", len(names), by)
	log.Info("webhooks redelivered on operator request", "events", len(names), "requestedBy", by)
	return nil
}

// pauseNote says who paused the order, as the API server stamped it, and the pause's own
// text (why).
func pauseNote(annotations map[string]string) string {
	return "paused by " + requester(annotations, swapv1.AnnotationPaused) + ": " + annotations[swapv1.AnnotationPaused]
}

// requester is who asked for the request annotation of annotations, as the API server
// stamped it: the one name every report of an operator control gives.
func requester(annotations map[string]string, annotation string) string {
	if by := annotations[swapv1.RequestedBy(annotation)]; by != "" {
		return by
	}
	return "an unrecorded requester"
}

// sameResolution reports whether applied (the order's recorded resolution) is req.
func sameResolution(applied *swapv1.OperatorResolution, req swapv1.OperatorResolution) bool {
	return applied != nil && applied.Status == req.Status && applied.Reason == req.Reason && applied.By == req.By
}

// resolveRequest parses an AnnotationResolve value and decides the transition it asks for.
// Who resolves is requester, the username the API server stamped beside the annotation; a
// "by" in the value is only the client's claim and is not recorded. Money rules: the status
// must be terminal, the reason and who say it must be given (SUCCESS and REFUNDED are the
// operator's statement about funds), and verbs.Decide's: the order must not be terminal
// already, and one that never got a deposit address can only be FAILED.
func resolveRequest(order verbs.Order, value, requester string) (swapv1.OperatorResolution, orders.Change, error) {
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
	if err := verbs.Decide(verbs.Request{Verb: verbs.Resolve, ResolveTo: res.Status}, order); err != nil {
		return res, orders.Change{}, err
	}
	return res, orders.Change{To: res.Status, Reason: ReasonOperatorResolved}, nil
}

// removeAnnotations removes each of keys from o's annotations if it still has the value in
// read (a JSON patch testing it): a request written again meanwhile stays, for the next pass.
// It returns the order's version after the last removal (o's when nothing was removed).
func removeAnnotations(ctx context.Context, c client.Client, o *swapv1.SwapOrder, keys []string, read map[string]string) (string, error) {
	version := o.ResourceVersion
	for _, k := range keys {
		path := "/metadata/annotations/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
		patch, err := json.Marshal([]map[string]any{{"op": "test", "path": path, "value": read[k]}, {"op": "remove", "path": path}})
		if err != nil {
			return version, err
		}
		obj := &swapv1.SwapOrder{}
		obj.Namespace, obj.Name = o.Namespace, o.Name
		err = c.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch))
		switch {
		case apierrors.IsInvalid(err) || apierrors.IsNotFound(err):
			// Written again (or removed) since the pass read it; gone with the order.
			continue
		case err != nil:
			return version, fmt.Errorf("removing the %s annotation: %w", k, err)
		}
		version = obj.ResourceVersion
	}
	return version, nil
}

// settleArchivedRequests answers the operator requests on an archived order, which is
// outside the order reconciler's cache (the TTL sweep, which lists archived orders anyway,
// calls it): a redeliver is done, everything else refused; each request is removed. A
// Paused condition left from a pause the order ended under goes too.
func settleArchivedRequests(ctx context.Context, c client.Client, live client.Reader, rec events.EventRecorder, log logr.Logger, o *swapv1.SwapOrder) error {
	log = log.WithValues("orderId", o.Spec.OrderID)
	ann := o.GetAnnotations()
	var consumed []string
	read := maps.Clone(ann)
	order := verbs.Of(o, false)
	if _, ok := ann[swapv1.AnnotationPaused]; ok {
		consumed = append(consumed, swapv1.AnnotationPaused)
		if meta.IsStatusConditionTrue(o.Status.Conditions, swapv1.ConditionPaused) {
			base := o.DeepCopy()
			meta.RemoveStatusCondition(&o.Status.Conditions, swapv1.ConditionPaused)
			if err := c.Status().Patch(ctx, o, client.MergeFrom(base)); err != nil {
				return fmt.Errorf("clearing the Paused condition: %w", err)
			}
			rec.Eventf(o, nil, "Normal", verbs.ReasonPauseEnded, "Pause", "the order ended as %s while paused; the pause is lifted", o.Status.Status)
		} else {
			refuseRequest(rec, log, o, verbs.Pause, verbs.Decide(verbs.Request{Verb: verbs.Pause}, order))
		}
	}
	if _, ok := ann[swapv1.AnnotationPoll]; ok {
		consumed = append(consumed, swapv1.AnnotationPoll)
		refuseRequest(rec, log, o, verbs.Poll, verbs.Decide(verbs.Request{Verb: verbs.Poll}, order))
	}
	if v, ok := ann[swapv1.AnnotationResolve]; ok {
		consumed = append(consumed, swapv1.AnnotationResolve)
		if _, _, err := resolveRequest(order, v, ann[swapv1.RequestedBy(swapv1.AnnotationResolve)]); err != nil {
			refuseRequest(rec, log, o, verbs.Resolve, err)
		}
	}
	if _, ok := ann[swapv1.AnnotationRedeliver]; ok {
		if err := redeliverRequested(ctx, c, live, rec, log, o); err != nil {
			return err
		}
		consumed = append(consumed, swapv1.AnnotationRedeliver)
	}
	for _, v := range []verbs.Verb{verbs.Approve, verbs.Reject} {
		if _, ok := ann[v.Annotation()]; ok {
			consumed = append(consumed, v.Annotation())
			refuseRequest(rec, log, o, v, verbs.Decide(verbs.Request{Verb: v}, order))
		}
	}
	_, err := removeAnnotations(ctx, c, o, consumed, read)
	return err
}

// hasOperatorRequest reports whether o carries any operator annotation.
func hasOperatorRequest(o *swapv1.SwapOrder) bool {
	for _, k := range swapv1.OperatorAnnotations {
		if _, ok := o.GetAnnotations()[k]; ok {
			return true
		}
	}
	return false
}
