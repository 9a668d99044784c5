package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
)

const (
	// DefaultRedeliveryRequestRetention is how long an answered RedeliveryRequest is kept.
	DefaultRedeliveryRequestRetention = time.Hour
	// RedeliveryRequestEventSource is the reporting controller of this reconciler's Events.
	RedeliveryRequestEventSource = "redeliveryrequest-controller"
	// EventReasonRedeliveryRefused: a RedeliveryRequest was answered with nothing sent.
	EventReasonRedeliveryRefused = "RedeliveryRefused"
)

// RedeliveryRequestReconciler answers RedeliveryRequests, the one way partners (through the
// frontend) and operators ask for webhook events again: it builds the deliveries from the
// order's record in etcd or the archive, stamps each with who asked, records the answer in
// the request's status with an Event, and deletes the request Retention after.
type RedeliveryRequestReconciler struct {
	Client    client.Client
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Archive reads orders that have left etcd; nil: only orders in etcd can be redelivered.
	Archive   ArchivedOrders
	Now       func() time.Time
	Retention time.Duration

	records orderRecords
}

// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=redeliveryrequests,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=redeliveryrequests/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=webhookdeliveries,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=webhookdeliveries/payload,verbs=create

// SetupWithManager fills defaults and registers the controller.
func (r *RedeliveryRequestReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorder(RedeliveryRequestEventSource)
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Retention <= 0 {
		r.Retention = DefaultRedeliveryRequestRetention
	}
	r.records = orderRecords{cache: r.Client, live: r.APIReader, archive: r.Archive}
	return ctrl.NewControllerManagedBy(mgr).
		Named("redeliveryrequest").
		For(&swapv1.RedeliveryRequest{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// Reconcile answers a new request once, or deletes an answered one after Retention.
func (r *RedeliveryRequestReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var rq swapv1.RedeliveryRequest
	if err := r.Client.Get(ctx, req.NamespacedName, &rq); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	ctx = log.IntoContext(ctx, log.FromContext(ctx).WithValues("orderId", rq.Spec.OrderID, "eventId", rq.Spec.EventID, "requestedBy", rq.Spec.RequestedBy))
	now := r.Now()
	if rq.Status.CompletedAt != nil {
		if wait := rq.Status.CompletedAt.Add(r.Retention).Sub(now); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
		err := r.Client.Delete(ctx, &rq, client.Preconditions{UID: &rq.UID})
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	names, order, refusal, err := r.answer(ctx, &rq)
	if err != nil {
		return ctrl.Result{}, err // nothing decided: retried with the controller's backoff
	}
	orig := rq.DeepCopy()
	rq.Status.CompletedAt = &metav1.Time{Time: now}
	if refusal != nil {
		rq.Status.Phase, rq.Status.Reason = swapv1.RedeliveryRefused, refusal.Error()
	} else {
		rq.Status.Phase, rq.Status.Deliveries = swapv1.RedeliveryDone, names
	}
	if err := r.Client.Status().Patch(ctx, &rq, client.MergeFrom(orig)); err != nil {
		return ctrl.Result{}, fmt.Errorf("recording the answer: %w", err)
	}
	logger := log.FromContext(ctx)
	if refusal != nil {
		r.Recorder.Eventf(&rq, nil, corev1.EventTypeWarning, EventReasonRedeliveryRefused, "Redeliver", "nothing sent: %v", refusal)
		logger.Info("redelivery request refused", "reason", refusal.Error())
	} else {
		note := fmt.Sprintf("%d webhook events sent again at the request of %s", len(names), rq.Spec.RequestedBy)
		r.Recorder.Eventf(&rq, nil, corev1.EventTypeNormal, verbs.ReasonRedelivered, "Redeliver", "%s", note)
		if order != nil {
			r.Recorder.Eventf(order, nil, corev1.EventTypeNormal, verbs.ReasonRedelivered, "Redeliver", "%s", note)
		}
		logger.Info("webhooks redelivered on request", "deliveries", names)
	}
	return ctrl.Result{RequeueAfter: r.Retention}, nil
}

// answer creates what rq asks for. refusal says why nothing may be sent; err is trouble to
// retry. order is set when the order is in etcd (its Event goes there too).
func (r *RedeliveryRequestReconciler) answer(ctx context.Context, rq *swapv1.RedeliveryRequest) (names []string, order *swapv1.SwapOrder, refusal, err error) {
	if strings.TrimSpace(rq.Spec.RequestedBy) == "" {
		return nil, nil, errors.New("spec.requestedBy names no one (is config/admission installed?)"), nil
	}
	o, inEtcd, err := r.records.find(ctx, rq.Namespace, rq.Spec.Partner, rq.Spec.OrderID, true)
	if err != nil {
		return nil, nil, nil, err
	}
	if o == nil {
		return nil, nil, fmt.Errorf("partner %q has no order %s", rq.Spec.Partner, rq.Spec.OrderID), nil
	}
	enabled, err := partnerWebhookEnabled(ctx, r.Client, o)
	if err != nil {
		return nil, nil, nil, err
	}
	if !enabled {
		return nil, nil, fmt.Errorf("partner %q has webhooks disabled", rq.Spec.Partner), nil
	}
	existing, err := r.deliveriesOf(ctx, rq, inEtcd)
	if err != nil {
		return nil, nil, nil, err
	}
	names, err = delivery.RedeliverOrder(ctx, r.Client, r.APIReader, o, existing, inEtcd, delivery.Ask{
		EventID: rq.Spec.EventID, Redelivery: rq.Spec.Redelivery, RequestedBy: rq.Spec.RequestedBy, Request: rq.Name,
	})
	if errors.Is(err, delivery.ErrNoSuchEvent) {
		return nil, nil, err, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if inEtcd {
		order = o
	}
	return names, order, nil, nil
}

// deliveriesOf lists the order's deliveries from the cache, plus those rq already made as
// the API server has them: an answer whose status write failed must find its deliveries
// even before the cache does, or it would send the events twice.
func (r *RedeliveryRequestReconciler) deliveriesOf(ctx context.Context, rq *swapv1.RedeliveryRequest, inEtcd bool) ([]swapv1.WebhookDelivery, error) {
	var out []swapv1.WebhookDelivery
	if inEtcd {
		cached, err := index.OrderDeliveries(ctx, r.Client, rq.Namespace, rq.Spec.OrderID)
		if err != nil {
			return nil, err
		}
		out = cached
	}
	var made swapv1.WebhookDeliveryList
	if err := r.APIReader.List(ctx, &made, client.InNamespace(rq.Namespace),
		client.MatchingLabels{swapv1.LabelRedeliveryRequest: rq.Name}); err != nil && !apierrors.IsNotFound(err) {
		return nil, err
	}
	return append(out, made.Items...), nil
}
