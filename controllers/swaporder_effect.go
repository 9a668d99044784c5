package controllers

import (
	"context"
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
)

// orderEffect is everything one pass does besides reading, as a value: planned from what the
// pass read (orders.Plan and the step's own rules), completed by the outcome of the step's
// one call (a provider call, the archive write, the deliveries StepEmit ensures), and applied
// by execute in one fixed order (operations). The status the pass leaves is the working copy
// of the order (orderPass.order); everything else is here.
type orderEffect struct {
	// transitions are the ones the pass recorded in the status: their Events and webhook
	// deliveries follow the status write that records them.
	transitions []swapv1.StatusTransition
	// labelArchived: the archive holds the order; the label that lets the TTL sweep delete
	// it is written before the status (which says Archived).
	labelArchived bool
	// events are reported once the status write succeeded (or was not needed); after
	// removal, once the annotations were removed (their Event means "done").
	events, afterRemoval []kubeEvent
	// redeliver is an operator's redelivery, answered once the status write succeeded.
	redeliver *redelivery
	// remove are the operator annotations the pass answered, each by the value it read: a
	// request written again meanwhile stays.
	remove []annotationRemoval
	// counts are metric increments of what the pass learned, kept whatever is written.
	counts []count
	// memory is what the process remembers of the pass, kept whatever is written.
	memory memoryChange
	// park: the pass was held back for a slot and waits parked for it.
	park *heldKey
	// held: the pass was held back for capacity and made no provider call.
	held bool
	// created is the deposit address the provider handed out in this pass, shown to nobody
	// until the status write records it.
	created string
	// result and err end the pass.
	result ctrl.Result
	err    error
}

// kubeEvent is one Kubernetes Event on the object a pass is about.
type kubeEvent struct {
	kind, reason, action, message string
}

// annotationRemoval removes annotation key if it still has value.
type annotationRemoval struct {
	key, value string
}

// count is one increment of a counter.
type count struct {
	vec    *prometheus.CounterVec
	labels []string
}

// memoryChange is what a pass changes in orderMemory: the run of provider failures (one
// more, or ended) and of failed delivery creates, and the seq up to which deliveries were
// found to exist. What writes add to memory (superseded versions, emitted seqs) the
// executor records as it makes them.
type memoryChange struct {
	failed, recovered         bool
	emitFailed, emitRecovered bool
	emitted                   int64
}

// redelivery is an allowed redeliver request: the deliveries it creates (planned from what
// the pass read) and who asked.
type redelivery struct {
	plan delivery.RedeliveryPlan
	by   string
}

func (e *orderEffect) event(kind, reason, action, format string, args ...any) {
	e.events = append(e.events, kubeEvent{kind: kind, reason: reason, action: action, message: fmt.Sprintf(format, args...)})
}

func (e *orderEffect) count(vec *prometheus.CounterVec, labels ...string) {
	e.counts = append(e.counts, count{vec: vec, labels: labels})
}

// opKind is one of the executor's operations, in the order execute applies them.
type opKind int

const (
	// opNote keeps what the pass learned in memory and metrics (no API write).
	opNote opKind = iota
	// opLabelArchived labels the order archived (optimistically locked).
	opLabelArchived
	// opWriteStatus writes the status when it changed (optimistically locked on the
	// version read, so a stale read never overwrites newer history).
	opWriteStatus
	// opReport records the Events of what the write persisted.
	opReport
	// opEnsureDeliveries creates the webhook deliveries of the transitions the write
	// recorded, when the partner wants them.
	opEnsureDeliveries
	// opRedeliver creates an operator's redeliveries.
	opRedeliver
	// opRemoveAnnotation removes one answered operator annotation.
	opRemoveAnnotation
	// opReportRemoved records the Events that mean a request is done.
	opReportRemoved
	// opWait parks the order for its slot, or ends its wait for one.
	opWait
)

// op is one operation of an effect: the annotation it removes, the seqs whose deliveries it
// creates.
type op struct {
	kind       opKind
	annotation annotationRemoval
	seqs       []int64
}

// operations is the effect as the executor applies it, in this fixed order, each operation
// applied only if every API write before it succeeded (opNote and opWait always):
//
//  1. opNote: memory and metrics of what the pass learned (the provider answered or failed).
//  2. opLabelArchived: the archive holds the order, so the label that lets it go is written
//     first; the status write then says Archived.
//  3. opWriteStatus: the one status write.
//  4. opReport: the Events of the transitions, the pause and the step, timed at the write.
//  5. opEnsureDeliveries: a transition's delivery is created only after the write that
//     recorded it succeeded, so no delivery ever exists for a transition that was not
//     persisted; a failed create is left to StepEmit (swaporder_emission.go).
//  6. opRedeliver: an operator's redeliveries.
//  7. opRemoveAnnotation: the requests answered, removed only once their effect is written
//     (steps 3 and 6): a crash in between repeats the request, which is harmless, and never
//     loses it.
//  8. opReportRemoved: a poll's Event, which means done once its request is gone (not
//     when a removal failed).
//  9. opWait: park for the slot the pass was held back for, or end the order's wait.
func (e *orderEffect) operations() []op {
	ops := []op{{kind: opNote}}
	if e.labelArchived {
		ops = append(ops, op{kind: opLabelArchived})
	}
	ops = append(ops, op{kind: opWriteStatus}, op{kind: opReport})
	if len(e.transitions) > 0 {
		seqs := make([]int64, 0, len(e.transitions))
		for _, t := range e.transitions {
			seqs = append(seqs, t.Seq)
		}
		ops = append(ops, op{kind: opEnsureDeliveries, seqs: seqs})
	}
	if e.redeliver != nil {
		ops = append(ops, op{kind: opRedeliver})
	}
	for _, a := range e.remove {
		ops = append(ops, op{kind: opRemoveAnnotation, annotation: a})
	}
	if len(e.afterRemoval) > 0 {
		ops = append(ops, op{kind: opReportRemoved})
	}
	return append(ops, op{kind: opWait})
}

// execute applies the pass's effect (operations) and returns the pass's result.
func (r *SwapOrderReconciler) execute(ctx context.Context, p *orderPass) (ctrl.Result, error) {
	e := &p.effect
	res, err := e.result, e.err
	written, redelivered, removed := true, true, true
	for _, o := range e.operations() {
		switch o.kind {
		case opNote:
			r.note(p)
		case opLabelArchived:
			if lerr := r.labelArchived(ctx, p); lerr != nil {
				res, err, written = ctrl.Result{}, errors.Join(err, lerr), false
			}
		case opWriteStatus:
			if !written {
				continue
			}
			switch werr := r.write(ctx, p); {
			case werr == nil:
			case err == nil && apierrors.IsConflict(werr):
				// Someone wrote the order since we read it: the step repeats (an address
				// created in this pass was counted as unshown), so retry at once rather than
				// growing the error backoff towards minutes, which would stall a partner
				// waiting for an address.
				p.log.V(1).Info("order changed while reconciling; retrying", "reason", werr.Error())
				res, written = ctrl.Result{RequeueAfter: conflictRetry}, false
			default:
				res, err, written = ctrl.Result{}, errors.Join(err, werr), false
			}
		case opReport:
			if written {
				r.report(p)
			}
		case opEnsureDeliveries:
			if written {
				r.emitRecorded(ctx, p)
			}
		case opRedeliver:
			if !written {
				continue
			}
			if rerr := r.redeliver(ctx, p); rerr != nil {
				err, redelivered = errors.Join(err, rerr), false
			}
		case opRemoveAnnotation:
			if !written || (o.annotation.key == swapv1.AnnotationRedeliver && !redelivered) {
				continue
			}
			if rerr := r.removeAnnotation(ctx, p, o.annotation); rerr != nil {
				err, removed = errors.Join(err, rerr), false
			}
		case opReportRemoved:
			if written && removed {
				r.recordEvents(p.order, e.afterRemoval)
			}
		case opWait:
			if e.park != nil {
				r.park(*e.park, client.ObjectKeyFromObject(p.order))
			} else {
				r.waiting.Remove(client.ObjectKeyFromObject(p.order))
			}
		}
	}
	res.Priority = new(queuePriority(&p.order.Status))
	return res, err
}

// note keeps what the pass learned: its metrics, and its changes of the order's memory.
func (r *SwapOrderReconciler) note(p *orderPass) {
	e := &p.effect
	for _, c := range e.counts {
		c.vec.WithLabelValues(c.labels...).Inc()
	}
	key, m := client.ObjectKeyFromObject(p.order), e.memory
	switch {
	case m.failed:
		r.memory.failed(key, p.now)
	case m.recovered:
		r.memory.recovered(key)
	}
	switch {
	case m.emitFailed:
		r.memory.emitFailed(key, p.now)
	case m.emitRecovered:
		r.memory.emitRecovered(key)
	}
	r.memory.caughtUp(p.order, p.orig.NotifiedSeq)
	if m.emitted > 0 {
		r.memory.rememberEmitted(p.order, m.emitted)
	}
}

// removeAnnotation removes one answered request. The version that still carried it is
// remembered as superseded, so a pass reading it from a lagging cache does not act on it
// again.
func (r *SwapOrderReconciler) removeAnnotation(ctx context.Context, p *orderPass, a annotationRemoval) error {
	carried := p.order.ResourceVersion
	removed, err := removeAnnotations(ctx, r.Client, p.order, []string{a.key}, map[string]string{a.key: a.value})
	if err != nil {
		return err
	}
	r.memory.wrote(client.ObjectKeyFromObject(p.order), carried, removed)
	p.order.ResourceVersion = removed
	return nil
}

// redeliver creates the redeliveries an operator asked for.
func (r *SwapOrderReconciler) redeliver(ctx context.Context, p *orderPass) error {
	rd := p.effect.redeliver
	names, err := rd.plan.Create(ctx, r.Client)
	if err != nil {
		return fmt.Errorf("redelivering webhooks (%d sent again before the error): %w", len(names), err)
	}
	r.Recorder.Eventf(p.order, nil, "Normal", verbs.ReasonRedelivered, "Redeliver", "%d webhook events sent again at the request of %s", len(names), rd.by)
	p.log.Info("webhooks redelivered on operator request", "events", len(names), "requestedBy", rd.by)
	return nil
}

func (r *SwapOrderReconciler) recordEvents(o *swapv1.SwapOrder, evs []kubeEvent) {
	for _, ev := range evs {
		r.Recorder.Eventf(o, nil, ev.kind, ev.reason, ev.action, "%s", ev.message)
	}
}
