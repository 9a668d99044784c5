package controllers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/netguard"
	"github.com/swaprouter/swaprouter/internal/parking"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

const (
	// DefaultDeliveryRetention is how long Delivered and Failed deliveries are kept.
	DefaultDeliveryRetention = 7 * 24 * time.Hour
	// DefaultDeliveryConcurrency is the default number of delivery workers. Workers never
	// block on a saturated or failing partner (those deliveries are put back), so the count
	// only bounds attempts in flight across all partners.
	DefaultDeliveryConcurrency = 32
	// maxResponseDrain bounds how much of a receiver's answer is read (to reuse connections).
	maxResponseDrain = 64 << 10
)

// Event reasons on WebhookDelivery objects.
const (
	EventReasonAttemptFailed = "AttemptFailed"
	EventReasonFailed        = "Failed"
	// EventReasonPayloadRejected: the payload is not what the order's history holds, so it
	// was never signed.
	EventReasonPayloadRejected = "PayloadRejected"
)

// OutcomeUnverified is the swaprouter_webhook_deliveries_total outcome of a delivery whose
// payload the order's history does not hold (an alert fires on it).
const OutcomeUnverified = "unverified"

// WebhookDeliveryReconciler POSTs each WebhookDelivery's payload, signed, to its partner's
// webhook URL, retrying on the policy's schedule, and removes finished deliveries after
// Retention. A checkpointed step machine: every reconcile does at most one POST, records it
// in status with one patch, and requeues for the next due time.
//
// Partners are isolated from each other (Endpoints): each has a cap on attempts in flight
// and a circuit breaker, and a delivery whose partner is saturated or failing is put back
// without dialing and without spending an attempt, so a slow or dead endpoint never holds
// the workers other partners' deliveries need.
type WebhookDeliveryReconciler struct {
	// Client reads deliveries, Partners and Secrets from the manager's cache (one namespace
	// in production) and writes delivery status.
	Client client.Client
	// APIReader reads a delivery right before a POST when the cache may not have seen our own
	// last status write yet. Defaults to the manager's API reader.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	// Recorder emits AttemptFailed and Failed events; defaults to the manager's.
	Recorder events.EventRecorder
	// Guard is the SSRF policy for webhook URLs; set AllowLoopback for dev and tests only.
	Guard netguard.Options
	// HTTPClient sends the POSTs; defaults to netguard.NewHTTPClient(Guard).
	HTTPClient *http.Client
	// Now is the clock; defaults to time.Now.
	Now func() time.Time
	// Wake, when set, is a test's source of extra reconcile requests (withWake).
	Wake source.Source
	// Policy is the retry schedule; a nil Schedule means delivery.DefaultPolicy().
	Policy delivery.Policy
	// Retention keeps Delivered and Failed deliveries this long; 0 means 7 days.
	Retention time.Duration
	// MaxConcurrentReconciles is the number of workers; 0 means DefaultDeliveryConcurrency.
	MaxConcurrentReconciles int
	// Endpoints caps each partner's attempts in flight and breaks its circuit while its
	// endpoint keeps failing; nil means delivery.NewEndpoints with the defaults.
	Endpoints *delivery.Endpoints
	// AttemptTimeout bounds one attempt end to end; 0 means netguard.DeliveryTimeout (the
	// default HTTPClient's own limit, so only a shorter value changes anything with it).
	AttemptTimeout time.Duration
	// Metrics is where the reconciler's metrics (and the default Endpoints') are registered;
	// nil: controller-runtime's registry.
	Metrics prometheus.Registerer
	// Archive reads orders that have left etcd, to check their redeliveries; nil: such a
	// delivery cannot be checked and is never sent.
	Archive ArchivedOrders

	metrics *deliveryMetrics
	records orderRecords

	// written holds, per delivery, the resourceVersion our last status write produced: a
	// cached copy at another version may predate that write (see current).
	written sync.Map // types.NamespacedName → string
}

// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=webhookdeliveries,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=webhookdeliveries/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=partners,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=swaporders,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// WebhookDeliveryEventSource is the reporting controller of the Events this reconciler records.
const WebhookDeliveryEventSource = "webhookdelivery-controller"

// SetupWithManager fills defaults and registers the controller.
func (r *WebhookDeliveryReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Scheme == nil {
		r.Scheme = mgr.GetScheme()
	}
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorder(WebhookDeliveryEventSource)
	}
	if r.HTTPClient == nil {
		r.HTTPClient = netguard.NewHTTPClient(r.Guard)
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Policy.Schedule == nil {
		r.Policy = delivery.DefaultPolicy()
	}
	if r.Retention <= 0 {
		r.Retention = DefaultDeliveryRetention
	}
	if r.MaxConcurrentReconciles <= 0 {
		r.MaxConcurrentReconciles = DefaultDeliveryConcurrency
	}
	if r.Endpoints == nil {
		r.Endpoints = delivery.NewEndpoints(delivery.EndpointOptions{Metrics: r.Metrics})
	}
	r.metrics = newDeliveryMetrics(r.Metrics)
	r.records = orderRecords{cache: r.Client, live: r.APIReader, archive: r.Archive}
	if r.AttemptTimeout <= 0 {
		r.AttemptTimeout = netguard.DeliveryTimeout
	}
	return withWake(ctrl.NewControllerManagedBy(mgr), r.Wake).
		Named("webhookdelivery").
		// Spec is immutable and every step requeues itself: our own status writes need not
		// trigger reconciles.
		For(&swapv1.WebhookDelivery{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// A saturated partner's freed slot wakes its oldest waiting delivery at once.
		WatchesRawSource(parking.Source(r.Endpoints.Freed())).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Complete(r)
}

// Reconcile chooses one step from status: expire a finished delivery, wait until the next
// attempt is due, or make the attempt.
func (r *WebhookDeliveryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cached swapv1.WebhookDelivery
	if err := r.Client.Get(ctx, req.NamespacedName, &cached); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.Delete(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	logger := log.FromContext(ctx).WithValues("orderId", cached.Spec.OrderID, "eventId", cached.Spec.EventID)
	ctx = log.IntoContext(ctx, logger)
	if !cached.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	now := r.Now()
	if delivery.Finished(&cached) {
		r.written.Delete(req.NamespacedName)
		return r.expire(ctx, &cached, now)
	}
	if wait := r.untilDue(&cached, now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	d, err := r.current(ctx, &cached)
	if err != nil || d == nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !d.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if delivery.Finished(d) {
		return r.expire(ctx, d, now)
	}
	if wait := r.untilDue(d, now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	return r.deliver(ctx, d)
}

// current is the delivery to act on before a POST. The cached copy is it unless our own last
// status write produced another version: then the cache may not have seen that write yet, and
// acting on it would send the same attempt twice, so the stored state is read instead. In the
// steady state (the cache caught up during the wait before the next attempt) an attempt reads
// nothing from the API server.
func (r *WebhookDeliveryReconciler) current(ctx context.Context, cached *swapv1.WebhookDelivery) (*swapv1.WebhookDelivery, error) {
	key := client.ObjectKeyFromObject(cached)
	if v, ok := r.written.Load(key); !ok || v.(string) == cached.ResourceVersion {
		return cached, nil
	}
	var fresh swapv1.WebhookDelivery
	if err := r.APIReader.Get(ctx, key, &fresh); err != nil {
		return nil, err
	}
	return &fresh, nil
}

// deliver makes one attempt and records it with a single status patch.
func (r *WebhookDeliveryReconciler) deliver(ctx context.Context, d *swapv1.WebhookDelivery) (result ctrl.Result, err error) {
	orig := d.DeepCopy()
	defer func() {
		if equality.Semantic.DeepEqual(orig.Status, d.Status) {
			return
		}
		// No optimistic lock: the POST has happened and its record must land. This reconciler
		// is the only status writer and the workqueue runs one worker per delivery, so a
		// version check could only turn an unrelated write into a repeated POST.
		if perr := r.Client.Status().Patch(ctx, d, client.MergeFrom(orig)); perr != nil {
			// The write's outcome is unknown: the next attempt must read the stored state.
			r.written.Store(client.ObjectKeyFromObject(d), "")
			err = errors.Join(err, fmt.Errorf("recording delivery status: %w", perr))
			result = ctrl.Result{}
			return
		}
		r.written.Store(client.ObjectKeyFromObject(d), d.ResourceVersion)
	}()
	logger := log.FromContext(ctx)

	// Signed bytes have one authority, the order's history: a payload it does not hold (a
	// delivery someone other than the controllers wrote) is never signed.
	if err := r.records.authentic(ctx, d); err != nil {
		var forged *unverifiedError
		if !errors.As(err, &forged) {
			return ctrl.Result{}, err // API or archive trouble: retry, no attempt spent
		}
		d.Status.ObservedGeneration = d.Generation
		r.finish(d, r.Now(), OutcomeUnverified, "not sent: "+err.Error())
		r.Recorder.Eventf(d, nil, corev1.EventTypeWarning, EventReasonPayloadRejected, "Verify", "not sent: %s", err.Error())
		logger.Info("webhook delivery refused: its payload is not in the order's history", "reason", err.Error())
		return r.requeueForExpiry(d, r.Now()), nil
	}

	target, err := r.loadTarget(ctx, d)
	var cfgErr *configError
	switch {
	case errors.Is(err, errNoTarget):
		// The partner turned webhooks off or is gone: nothing may be sent, and waiting would
		// only leave Pending objects behind. The partner can redeliver once it is back.
		d.Status.ObservedGeneration = d.Generation
		r.finish(d, r.Now(), "no_target", err.Error())
		r.Recorder.Eventf(d, nil, corev1.EventTypeWarning, EventReasonFailed, "Deliver", "not delivered: %s", err.Error())
		logger.Info("webhook delivery failed: no target", "reason", err.Error())
		return r.requeueForExpiry(d, r.Now()), nil
	case err != nil && !errors.As(err, &cfgErr):
		return ctrl.Result{}, err // API trouble: retry with the controller's backoff, no attempt spent
	}

	// A config error (bad URL, missing secret) counts as a failed attempt, without dialing.
	// Otherwise the partner's gate decides: a saturated or failing partner's delivery is put
	// back as it is, no attempt spent and the worker free for other partners.
	res := delivery.Result{Err: err}
	var admission delivery.Admission
	if err == nil {
		partner := delivery.PartnerKey{Namespace: d.Namespace, Name: d.Spec.Partner}
		if admission = r.Endpoints.Admit(partner, target.url, client.ObjectKeyFromObject(d)); admission.Verdict != delivery.VerdictSend {
			logger.V(1).Info("webhook attempt deferred", "partner", d.Spec.Partner, "verdict", admission.Verdict, "wait", admission.Wait)
			return ctrl.Result{RequeueAfter: max(admission.Wait, time.Millisecond)}, nil
		}
	}
	// The injected clock stamps status; the real one measures the duration.
	attemptAt, started := r.Now(), time.Now()
	if err == nil {
		res = r.post(ctx, d, target)
		admission.Done(res)
	}
	elapsed := time.Since(started)
	if ctx.Err() != nil {
		// Shutting down: the receiver did nothing wrong. Leave the attempt unrecorded and due,
		// so the next run (this process or another) sends it again.
		return ctrl.Result{}, ctx.Err()
	}
	now := r.Now()
	d.Status.ObservedGeneration = d.Generation
	d.Status.AttemptCount++
	decision := r.Policy.Decide(d.Status.AttemptCount, res, now)
	recordAttempt(d, swapv1.DeliveryAttempt{
		At:             metav1.NewTime(attemptAt),
		Code:           int32(res.Code),
		Error:          decision.AttemptError,
		DurationMillis: elapsed.Milliseconds(),
	})
	r.metrics.attemptDuration.WithLabelValues(resultClass(res)).Observe(elapsed.Seconds())
	// The partner sees the attempt's class (status); operators get the error itself.
	cause := decision.AttemptError
	if res.Err != nil {
		cause = res.Err.Error()
	}
	logger = logger.WithValues("attempt", d.Status.AttemptCount, "code", res.Code, "durationMillis", elapsed.Milliseconds())

	switch decision.Phase {
	case swapv1.DeliveryDelivered:
		d.Status.Phase = swapv1.DeliveryDelivered
		d.Status.NextAttemptAt = nil
		d.Status.CompletedAt = ptrTime(now)
		d.Status.Reason = ""
		setReady(d, metav1.ConditionTrue, "Delivered", fmt.Sprintf("delivered on attempt %d", d.Status.AttemptCount))
		r.metrics.deliveries.WithLabelValues(string(delivery.OutcomeDelivered)).Inc()
		// No Event: it would be one more API write per webhook, saying what the status,
		// its Ready condition, the metric and this log line already say.
		logger.Info("webhook delivered")
		return r.requeueForExpiry(d, now), nil
	case swapv1.DeliveryFailed:
		r.finish(d, now, string(decision.Outcome), decision.Reason)
		r.Recorder.Eventf(d, nil, corev1.EventTypeWarning, EventReasonFailed, "Deliver", "%s (%s)", decision.Reason, cause)
		logger.Info("webhook delivery failed", "reason", decision.Reason, "error", cause)
		return r.requeueForExpiry(d, now), nil
	default:
		next := ceilSecond(decision.NextAttemptAt)
		d.Status.Phase = swapv1.DeliveryPending
		d.Status.NextAttemptAt = &metav1.Time{Time: next}
		setReady(d, metav1.ConditionFalse, "Retrying", fmt.Sprintf("attempt %d failed: %s", d.Status.AttemptCount, decision.AttemptError))
		r.Recorder.Eventf(d, nil, corev1.EventTypeWarning, EventReasonAttemptFailed, "Deliver",
			"attempt %d failed: %s", d.Status.AttemptCount, cause)
		logger.Info("webhook attempt failed, will retry", "error", cause, "nextAttemptAt", next)
		return ctrl.Result{RequeueAfter: max(next.Sub(now), time.Millisecond)}, nil
	}
}

// target is where and how to send one delivery.
type target struct {
	url     string
	secrets []string
}

// errNoTarget marks a partner that takes no webhooks (gone, disabled, no URL).
var errNoTarget = errors.New("no webhook target")

// configError is a partner misconfiguration (bad URL, missing secret): it costs an attempt,
// so it shows in the delivery log and the delivery fails at the end of the schedule unless
// fixed in time.
type configError struct{ error }

func (e *configError) Unwrap() error { return e.error }

// loadTarget reads the Partner and its signing secrets. errNoTarget means nothing may be
// sent, a *configError is recorded as a failed attempt, anything else is transient.
func (r *WebhookDeliveryReconciler) loadTarget(ctx context.Context, d *swapv1.WebhookDelivery) (target, error) {
	var partner swapv1.Partner
	key := types.NamespacedName{Namespace: d.Namespace, Name: d.Spec.Partner}
	if err := r.Client.Get(ctx, key, &partner); err != nil {
		if apierrors.IsNotFound(err) {
			return target{}, fmt.Errorf("%w: partner %q not found", errNoTarget, d.Spec.Partner)
		}
		return target{}, fmt.Errorf("reading partner %q: %w", d.Spec.Partner, err)
	}
	wh := partner.Spec.Webhook
	switch {
	case wh == nil || !wh.Enabled:
		return target{}, fmt.Errorf("%w: partner %q has webhooks disabled", errNoTarget, partner.Name)
	case wh.URL == "":
		return target{}, fmt.Errorf("%w: partner %q has no webhook URL", errNoTarget, partner.Name)
	}
	if _, err := netguard.ValidateURL(wh.URL, r.Guard); err != nil {
		return target{}, &configError{err}
	}
	refs := append([]swapv1.SecretKeyRef{wh.SecretRef}, wh.AdditionalSecretRefs...)
	secrets := make([]string, 0, len(refs))
	for _, ref := range refs {
		s, err := r.readSecret(ctx, d.Namespace, ref)
		if err != nil {
			return target{}, err
		}
		secrets = append(secrets, s)
	}
	return target{url: wh.URL, secrets: secrets}, nil
}

func (r *WebhookDeliveryReconciler) readSecret(ctx context.Context, namespace string, ref swapv1.SecretKeyRef) (string, error) {
	var secret corev1.Secret
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, &secret); err != nil {
		if apierrors.IsNotFound(err) {
			return "", &configError{fmt.Errorf("%w: %s not found", delivery.ErrSigningSecret, ref.Name)}
		}
		return "", fmt.Errorf("reading webhook signing secret %s: %w", ref.Name, err)
	}
	value := strings.TrimSpace(string(secret.Data[ref.Key]))
	if value == "" {
		return "", &configError{fmt.Errorf("%w: %s has no key %q", delivery.ErrSigningSecret, ref.Name, ref.Key)}
	}
	if _, err := webhooks.DecodeSecret(value); err != nil {
		return "", &configError{fmt.Errorf("%w: %s/%s: %w", delivery.ErrSigningSecret, ref.Name, ref.Key, err)}
	}
	return value, nil
}

// post sends the stored payload bytes, signed with a fresh timestamp, within AttemptTimeout.
func (r *WebhookDeliveryReconciler) post(ctx context.Context, d *swapv1.WebhookDelivery, t target) delivery.Result {
	ctx, cancel := context.WithTimeout(ctx, r.AttemptTimeout)
	defer cancel()
	body := []byte(d.Spec.Payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return delivery.Result{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "swaprouter-webhooks/1")
	if err := webhooks.SetHeaders(req.Header, t.secrets, d.Spec.EventID, r.Now(), body); err != nil {
		return delivery.Result{Err: err}
	}
	resp, err := r.HTTPClient.Do(req)
	if err != nil {
		return delivery.Result{Err: err}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseDrain))
	return delivery.Result{Code: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
}

// expire deletes a finished delivery once Retention has passed since it finished (the Job
// TTL pattern), with a UID precondition so a same-named successor is never deleted.
func (r *WebhookDeliveryReconciler) expire(ctx context.Context, d *swapv1.WebhookDelivery, now time.Time) (ctrl.Result, error) {
	if res := r.requeueForExpiry(d, now); res.RequeueAfter > 0 {
		return res, nil
	}
	recorded, err := r.orderRecorded(ctx, d)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !recorded {
		return ctrl.Result{RequeueAfter: min(unrecordedRetentionWait, r.Retention)}, nil
	}
	err = r.Client.Delete(ctx, d, client.Preconditions{UID: &d.UID})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return ctrl.Result{}, fmt.Errorf("deleting expired delivery: %w", err)
	}
	log.FromContext(ctx).V(1).Info("expired webhook delivery deleted", "phase", d.Status.Phase)
	return ctrl.Result{}, nil
}

// unrecordedRetentionWait is how often (at most; a shorter retention is used when set) a
// delivery past its retention looks again whether its order has recorded it.
const unrecordedRetentionWait = time.Hour

// orderRecorded reports whether d's order has recorded d in its stored notifiedSeq, or is
// gone. Until then the delivery is what makes a repeated emission an AlreadyExists: deleting
// it would let a restarted order reconciler create it again and send the event twice
// (swaporder_emission.go). The order's next status write records it.
func (r *WebhookDeliveryReconciler) orderRecorded(ctx context.Context, d *swapv1.WebhookDelivery) (bool, error) {
	owner := metav1.GetControllerOf(d)
	if owner == nil {
		return true, nil
	}
	var o swapv1.SwapOrder
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: d.Namespace, Name: owner.Name}, &o); err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("reading the delivery's order: %w", err)
	}
	return o.UID != owner.UID || o.Status.NotifiedSeq >= d.Spec.Sequence, nil
}

// requeueForExpiry is the wait until a finished delivery's retention ends (0: due now).
func (r *WebhookDeliveryReconciler) requeueForExpiry(d *swapv1.WebhookDelivery, now time.Time) ctrl.Result {
	finished := d.CreationTimestamp.Time
	if d.Status.CompletedAt != nil {
		finished = d.Status.CompletedAt.Time
	}
	if wait := finished.Add(r.Retention).Sub(now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}
	}
	return ctrl.Result{}
}

// untilDue is how long until the next attempt; a new delivery is due Schedule[0] after
// creation.
func (r *WebhookDeliveryReconciler) untilDue(d *swapv1.WebhookDelivery, now time.Time) time.Duration {
	due := d.CreationTimestamp.Time
	if len(r.Policy.Schedule) > 0 {
		due = due.Add(r.Policy.Schedule[0])
	}
	if d.Status.NextAttemptAt != nil {
		due = d.Status.NextAttemptAt.Time
	}
	return due.Sub(now)
}

// finish moves d to Failed with reason.
func (r *WebhookDeliveryReconciler) finish(d *swapv1.WebhookDelivery, now time.Time, outcome, reason string) {
	d.Status.Phase = swapv1.DeliveryFailed
	d.Status.NextAttemptAt = nil
	d.Status.CompletedAt = ptrTime(now)
	d.Status.Reason = reason
	setReady(d, metav1.ConditionFalse, "Failed", reason)
	r.metrics.deliveries.WithLabelValues(outcome).Inc()
}

// recordAttempt appends a to the attempt log, keeping the latest MaxDeliveryAttempts.
func recordAttempt(d *swapv1.WebhookDelivery, a swapv1.DeliveryAttempt) {
	d.Status.Attempts = append(d.Status.Attempts, a)
	if extra := len(d.Status.Attempts) - swapv1.MaxDeliveryAttempts; extra > 0 {
		d.Status.Attempts = d.Status.Attempts[extra:]
	}
	d.Status.LastCode = a.Code
}

func setReady(d *swapv1.WebhookDelivery, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&d.Status.Conditions, metav1.Condition{
		Type:               swapv1.ConditionReady,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: d.Generation,
	})
}

// resultClass labels an attempt for metrics without unbounded cardinality.
func resultClass(res delivery.Result) string {
	if res.Err != nil || res.Code == 0 {
		return "error"
	}
	return strconv.Itoa(res.Code/100) + "xx"
}

// ceilSecond rounds up to a whole second: status times are stored with second precision,
// and rounding down would make an attempt due before its Retry-After.
func ceilSecond(t time.Time) time.Time {
	if t.Equal(t.Truncate(time.Second)) {
		return t
	}
	return t.Truncate(time.Second).Add(time.Second)
}

func ptrTime(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }
