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

	"github.com/go-logr/logr"
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

// deliveryPass is one reconcile of one delivery: what it read, the step (delivery.Next) and
// the effect, which execute applies.
type deliveryPass struct {
	// d is the working copy; orig its status as read.
	d    *swapv1.WebhookDelivery
	orig swapv1.WebhookDeliveryStatus
	now  time.Time
	log  logr.Logger
	step delivery.Step
	wait time.Duration
	// recorded (StepExpire): the delivery's order has recorded it, or is gone.
	recorded bool
	// forged (StepAttempt): the payload is not what the order's history holds.
	forged error
	// target and targetErr (StepAttempt): where to send it, or why nothing may be sent
	// (errNoTarget) or the attempt fails without dialing (*configError).
	target    target
	targetErr error
	effect    deliveryEffect
}

// deliveryEffect is everything a pass does besides reading, applied by execute in this
// order: metrics, the one status write (no optimistic lock: the POST has happened and its
// record must land; this reconciler is the only status writer and the workqueue runs one
// worker per delivery, so a version check could only turn an unrelated write into a
// repeated POST), the Events of what it recorded, then the deletion of an expired delivery.
type deliveryEffect struct {
	outcome  string // swaprouter_webhook_deliveries_total's, when the delivery finished
	duration *attemptTiming
	events   []kubeEvent
	delete   bool
	result   ctrl.Result
	err      error
}

// attemptTiming is an attempt's duration, by result class.
type attemptTiming struct {
	class   string
	elapsed time.Duration
}

// Reconcile reads the delivery and what its step needs (no writes), takes the step it
// plans (delivery.Next): expire a finished delivery, wait until the next attempt is due, or
// make the attempt, whose outcome completes the effect; then executes the effect.
func (r *WebhookDeliveryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	p, res, err := r.read(ctx, req.NamespacedName)
	if p == nil {
		return res, err
	}
	ctx = log.IntoContext(ctx, p.log)
	r.act(ctx, p)
	return r.execute(ctx, p)
}

// read returns the pass over the delivery at key with what its step needs read, or none when
// there is nothing to do (gone, being deleted) or what the step needs cannot be read now.
func (r *WebhookDeliveryReconciler) read(ctx context.Context, key types.NamespacedName) (*deliveryPass, ctrl.Result, error) {
	var cached swapv1.WebhookDelivery
	if err := r.Client.Get(ctx, key, &cached); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.Delete(key)
		}
		return nil, ctrl.Result{}, client.IgnoreNotFound(err)
	}
	p := &deliveryPass{d: &cached, now: r.Now(),
		log: log.FromContext(ctx).WithValues("orderId", cached.Spec.OrderID, "eventId", cached.Spec.EventID)}
	ctx = log.IntoContext(ctx, p.log)
	first := time.Duration(0)
	if len(r.Policy.Schedule) > 0 {
		first = r.Policy.Schedule[0]
	}
	p.step, p.wait = delivery.Next(p.d, p.now, first, r.Retention)
	if delivery.Finished(p.d) {
		r.written.Delete(key) // never attempted again
	}
	if p.step == delivery.StepAttempt {
		d, err := r.current(ctx, p.d)
		if err != nil || d == nil {
			return nil, ctrl.Result{}, client.IgnoreNotFound(err)
		}
		p.d = d
		p.step, p.wait = delivery.Next(d, p.now, first, r.Retention)
	}
	p.orig = *p.d.Status.DeepCopy()
	var err error
	switch p.step {
	case delivery.StepNone:
		return nil, ctrl.Result{}, nil
	case delivery.StepExpire:
		p.recorded, err = r.orderRecorded(ctx, p.d)
	case delivery.StepAttempt:
		err = r.readAttempt(ctx, p)
	}
	if err != nil {
		return nil, ctrl.Result{}, err
	}
	return p, ctrl.Result{}, nil
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

// readAttempt reads what an attempt needs: whether the order's history holds the payload
// (signed bytes have one authority, the order's history: a payload it does not hold, a
// delivery someone other than the controllers wrote, is never signed) and the target. An
// error is API or archive trouble: retry, no attempt spent.
func (r *WebhookDeliveryReconciler) readAttempt(ctx context.Context, p *deliveryPass) error {
	if err := r.records.authentic(ctx, p.d); err != nil {
		var forged *unverifiedError
		if !errors.As(err, &forged) {
			return err
		}
		p.forged = err
		return nil
	}
	var cfgErr *configError
	p.target, p.targetErr = r.loadTarget(ctx, p.d)
	if p.targetErr != nil && !errors.Is(p.targetErr, errNoTarget) && !errors.As(p.targetErr, &cfgErr) {
		return p.targetErr // API trouble: retry with the controller's backoff, no attempt spent
	}
	return nil
}

// act takes the pass's step into its effect.
func (r *WebhookDeliveryReconciler) act(ctx context.Context, p *deliveryPass) {
	e := &p.effect
	switch p.step {
	case delivery.StepWait, delivery.StepKeep:
		e.result = ctrl.Result{RequeueAfter: p.wait}
	case delivery.StepExpire:
		if !p.recorded {
			e.result = ctrl.Result{RequeueAfter: min(unrecordedRetentionWait, r.Retention)}
			return
		}
		e.delete = true
	case delivery.StepAttempt:
		r.attempt(ctx, p)
	}
}

// attempt decides what needs no dialing (a forged payload, no target), then asks the
// partner's gate and makes the one POST, whose answer attemptOutcome decides.
func (r *WebhookDeliveryReconciler) attempt(ctx context.Context, p *deliveryPass) {
	d, e := p.d, &p.effect
	switch {
	case p.forged != nil:
		d.Status.ObservedGeneration = d.Generation
		r.finish(p, p.now, OutcomeUnverified, "not sent: "+p.forged.Error())
		e.events = append(e.events, kubeEvent{kind: corev1.EventTypeWarning, reason: EventReasonPayloadRejected, action: "Verify",
			message: "not sent: " + p.forged.Error()})
		p.log.Info("webhook delivery refused: its payload is not in the order's history", "reason", p.forged.Error())
		e.result = r.requeueForExpiry(d, p.now)
		return
	case errors.Is(p.targetErr, errNoTarget):
		// The partner turned webhooks off or is gone: nothing may be sent, and waiting would
		// only leave Pending objects behind. The partner can redeliver once it is back.
		d.Status.ObservedGeneration = d.Generation
		r.finish(p, p.now, "no_target", p.targetErr.Error())
		e.events = append(e.events, kubeEvent{kind: corev1.EventTypeWarning, reason: EventReasonFailed, action: "Deliver",
			message: "not delivered: " + p.targetErr.Error()})
		p.log.Info("webhook delivery failed: no target", "reason", p.targetErr.Error())
		e.result = r.requeueForExpiry(d, p.now)
		return
	}

	// A config error (bad URL, missing secret) counts as a failed attempt, without dialing.
	// Otherwise the partner's gate decides: a saturated or failing partner's delivery is put
	// back as it is, no attempt spent and the worker free for other partners.
	res := delivery.Result{Err: p.targetErr}
	var admission delivery.Admission
	if p.targetErr == nil {
		partner := delivery.PartnerKey{Namespace: d.Namespace, Name: d.Spec.Partner}
		if admission = r.Endpoints.Admit(partner, p.target.url, client.ObjectKeyFromObject(d)); admission.Verdict != delivery.VerdictSend {
			p.log.V(1).Info("webhook attempt deferred", "partner", d.Spec.Partner, "verdict", admission.Verdict, "wait", admission.Wait)
			e.result = ctrl.Result{RequeueAfter: max(admission.Wait, time.Millisecond)}
			return
		}
	}
	// The injected clock stamps status; the real one measures the duration.
	attemptAt, started := r.Now(), time.Now()
	if p.targetErr == nil {
		res = r.post(ctx, d, p.target)
		admission.Done(res)
	}
	elapsed := time.Since(started)
	if ctx.Err() != nil {
		// Shutting down: the receiver did nothing wrong. Leave the attempt unrecorded and due,
		// so the next run (this process or another) sends it again.
		e.err = ctx.Err()
		return
	}
	r.attemptOutcome(p, res, attemptAt, elapsed)
}

// attemptOutcome records an attempt and decides what follows it (Policy.Decide): delivered,
// failed for good, or the next attempt's time.
func (r *WebhookDeliveryReconciler) attemptOutcome(p *deliveryPass, res delivery.Result, attemptAt time.Time, elapsed time.Duration) {
	d, e := p.d, &p.effect
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
	e.duration = &attemptTiming{class: resultClass(res), elapsed: elapsed}
	// The partner sees the attempt's class (status); operators get the error itself.
	cause := decision.AttemptError
	if res.Err != nil {
		cause = res.Err.Error()
	}
	logger := p.log.WithValues("attempt", d.Status.AttemptCount, "code", res.Code, "durationMillis", elapsed.Milliseconds())

	switch decision.Phase {
	case swapv1.DeliveryDelivered:
		d.Status.Phase = swapv1.DeliveryDelivered
		d.Status.NextAttemptAt = nil
		d.Status.CompletedAt = ptrTime(now)
		d.Status.Reason = ""
		setReady(d, metav1.ConditionTrue, "Delivered", fmt.Sprintf("delivered on attempt %d", d.Status.AttemptCount))
		e.outcome = string(delivery.OutcomeDelivered)
		// No Event: it would be one more API write per webhook, saying what the status,
		// its Ready condition, the metric and this log line already say.
		logger.Info("webhook delivered")
		e.result = r.requeueForExpiry(d, now)
	case swapv1.DeliveryFailed:
		r.finish(p, now, string(decision.Outcome), decision.Reason)
		e.events = append(e.events, kubeEvent{kind: corev1.EventTypeWarning, reason: EventReasonFailed, action: "Deliver",
			message: fmt.Sprintf("%s (%s)", decision.Reason, cause)})
		logger.Info("webhook delivery failed", "reason", decision.Reason, "error", cause)
		e.result = r.requeueForExpiry(d, now)
	default:
		next := ceilSecond(decision.NextAttemptAt)
		d.Status.Phase = swapv1.DeliveryPending
		d.Status.NextAttemptAt = &metav1.Time{Time: next}
		setReady(d, metav1.ConditionFalse, "Retrying", fmt.Sprintf("attempt %d failed: %s", d.Status.AttemptCount, decision.AttemptError))
		e.events = append(e.events, kubeEvent{kind: corev1.EventTypeWarning, reason: EventReasonAttemptFailed, action: "Deliver",
			message: fmt.Sprintf("attempt %d failed: %s", d.Status.AttemptCount, cause)})
		logger.Info("webhook attempt failed, will retry", "error", cause, "nextAttemptAt", next)
		e.result = ctrl.Result{RequeueAfter: max(next.Sub(now), time.Millisecond)}
	}
}

// execute applies the pass's effect in deliveryEffect's order.
func (r *WebhookDeliveryReconciler) execute(ctx context.Context, p *deliveryPass) (ctrl.Result, error) {
	d, e := p.d, &p.effect
	if e.duration != nil {
		r.metrics.attemptDuration.WithLabelValues(e.duration.class).Observe(e.duration.elapsed.Seconds())
	}
	if e.outcome != "" {
		r.metrics.deliveries.WithLabelValues(e.outcome).Inc()
	}
	if !equality.Semantic.DeepEqual(p.orig, d.Status) {
		base := d.DeepCopy()
		base.Status = p.orig
		if err := r.Client.Status().Patch(ctx, d, client.MergeFrom(base)); err != nil {
			// The write's outcome is unknown: the next attempt must read the stored state.
			r.written.Store(client.ObjectKeyFromObject(d), "")
			return ctrl.Result{}, errors.Join(e.err, fmt.Errorf("recording delivery status: %w", err))
		}
		r.written.Store(client.ObjectKeyFromObject(d), d.ResourceVersion)
	}
	for _, ev := range e.events {
		r.Recorder.Eventf(d, nil, ev.kind, ev.reason, ev.action, "%s", ev.message)
	}
	if e.delete {
		if err := r.Client.Delete(ctx, d, client.Preconditions{UID: &d.UID}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return ctrl.Result{}, fmt.Errorf("deleting expired delivery: %w", err)
		}
		p.log.V(1).Info("expired webhook delivery deleted", "phase", d.Status.Phase)
	}
	return e.result, e.err
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

// requeueForExpiry is the wait until a finished delivery's retention ends (none: due now).
func (r *WebhookDeliveryReconciler) requeueForExpiry(d *swapv1.WebhookDelivery, now time.Time) ctrl.Result {
	if wait := delivery.UntilExpiry(d, now, r.Retention); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}
	}
	return ctrl.Result{}
}

// finish moves the pass's delivery to Failed with reason.
func (r *WebhookDeliveryReconciler) finish(p *deliveryPass, now time.Time, outcome, reason string) {
	d := p.d
	d.Status.Phase = swapv1.DeliveryFailed
	d.Status.NextAttemptAt = nil
	d.Status.CompletedAt = ptrTime(now)
	d.Status.Reason = reason
	setReady(d, metav1.ConditionFalse, "Failed", reason)
	p.effect.outcome = outcome
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
