package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/metricsreg"
	"github.com/swaprouter/swaprouter/internal/orderdisplay"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/parking"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	"github.com/swaprouter/swaprouter/internal/providerset"
	"github.com/swaprouter/swaprouter/internal/resilience"
)

// Defaults of the tunables of SwapOrderReconciler.
const (
	DefaultExpiryGrace             = 10 * time.Minute
	DefaultUnknownAfter            = 5
	DefaultRetryBase               = time.Second
	DefaultRetryMax                = time.Minute
	DefaultPollBackoffMax          = 5 * time.Minute
	DefaultCallTimeout             = 30 * time.Second
	DefaultMaxConcurrentReconciles = 16
	DefaultCreateBound             = 10 * time.Minute
	DefaultProviderIssueAfter      = time.Minute
	DefaultWatchBound              = 24 * time.Hour
	DefaultEmitRetryBase           = 5 * time.Second
	DefaultEmitRetryMax            = 5 * time.Minute
)

const (
	// nextStepNow re-runs the step machine right after a step whose successor is due at once
	// (emission after a transition). Result.Requeue is deprecated and would go through the
	// error backoff; a tiny RequeueAfter does not.
	nextStepNow = time.Millisecond
	// cacheLagRetry is how long to wait when the cache still shows an order from before our
	// own last write.
	cacheLagRetry = 100 * time.Millisecond
	// conflictRetry is the wait after a write conflict: long enough for the cache to see
	// the other writer's version.
	conflictRetry = 200 * time.Millisecond
	// providersLoadingRetry is how often an order looks again while the RoutingProvider
	// reconciler has not loaded every provider yet (start-up).
	providersLoadingRetry = 250 * time.Millisecond
)

// SwapOrderReconciler walks a SwapOrder through its lifecycle: it obtains the deposit
// address, forwards deposit hints, polls the provider until the order is terminal, ensures
// one WebhookDelivery per transition and writes terminal orders to the archive. Each
// reconcile takes exactly one step planned by orders.Plan from the order, the operator's
// requests, the capacity on offer and what this process remembers of the order, makes at
// most one provider call, and applies the pass's effect (orderEffect) with one status write.
type SwapOrderReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder events.EventRecorder
	// APIReader reads around the cache: a redelivery's payload, which the cache drops from
	// finished deliveries (delivery.TrimFinished). mgr.GetAPIReader() when nil.
	APIReader client.Reader
	// Providers holds the live adapters (filled by the RoutingProvider reconciler).
	Providers *providerset.Set
	// Assets finds the assets the providers list (the catalog the RoutingProvider reconciler
	// fills), for the swap status.display shows; nil: none, and the order shows its swap as
	// created.
	Assets orderdisplay.Lookup

	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Wake, when set, is a test's source of extra reconcile requests (withWake).
	Wake source.Source
	// Rand returns a number in [0, 1) for poll jitter; rand.Float64 when nil.
	Rand func() float64

	// ExpiryGrace is added to the provider's deposit deadline before a PENDING order fails
	// with DepositExpired (late deposits are often still refunded by the provider).
	ExpiryGrace time.Duration
	// UnknownAfter is the number of answers in a row in which the provider does not know a
	// tracked order after which it becomes UNKNOWN. Provider-wide failures never count.
	UnknownAfter int32
	// ProviderIssueAfter is how long an order's provider must have failed it as a whole
	// (timeouts, 5xx, throttling, rejected credentials) before the order's conditions say so.
	ProviderIssueAfter time.Duration
	// Health, when set, is the providers' circuit breakers (the RoutingProvider reconciler's):
	// an outage is timed from the later of the order's failures and the provider's.
	Health *health.Tracker
	// Settlements, when set, measures each provider's orders as they end (from deposit seen
	// to outcome, and whether it was SUCCESS); ProviderCallsPublisher publishes it.
	Settlements *callstats.Window
	// CreateBound is how long a new order may wait for its deposit address; then it is
	// FAILED NoDepositAddress (no address was ever shown for it).
	CreateBound time.Duration
	// ReviewBound is how long an order screening held waits for approval (DefaultReviewBound).
	ReviewBound time.Duration
	// WatchBound is how long an order the provider gives no usable answer for is watched
	// (polls backing off to PollBackoffMax) before polling stops with Stalled WatchStopped.
	WatchBound time.Duration
	// EmitRetryBase and EmitRetryMax bound the backoff of failed webhook delivery creation.
	EmitRetryBase, EmitRetryMax time.Duration
	// Archive receives terminal orders; nil keeps them in etcd (nothing is ever deleted
	// without the archive holding it). OrderTTLSweeper deletes archived ones.
	Archive OrderArchiver
	// ArchiveRetry is the wait before writing to an unavailable archive again.
	ArchiveRetry time.Duration
	// RetryBase and RetryMax bound the backoff of failed deposit-address creation: 1 s, 2 s,
	// 4 s, ... so the frontend's bounded wait still sees a transient failure heal.
	RetryBase, RetryMax time.Duration
	// PollBackoffMax caps the backoff of failing status polls.
	PollBackoffMax time.Duration
	// CallTimeout bounds each provider call when the provider entry has no timeout.
	CallTimeout time.Duration
	// MaxConcurrentReconciles is the number of orders reconciled in parallel.
	MaxConcurrentReconciles int
	// ProviderConcurrency caps concurrent calls to one provider across all workers; an order
	// whose provider is at the cap waits parked until a slot frees, never in a worker. Below
	// MaxConcurrentReconciles it keeps one slow provider from holding every worker; 0 means
	// half of MaxConcurrentReconciles.
	ProviderConcurrency int
	// Leader, when set, is asked right before a deposit address is created: a process that
	// no longer holds the leader lease (it was paused past it) must not create one.
	Leader interface{ Held(context.Context) error }
	// Metrics is where the reconciler's metrics are registered: the manager's registry
	// (controller-runtime's, which the metrics server serves) when nil.
	Metrics prometheus.Registerer

	metrics *orderMetrics
	callSlots
	memory orderMemory
}

// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=swaporders,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=swaporders/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=webhookdeliveries,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=partners,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// SwapOrderEventSource is the reporting controller of the Events this reconciler records.
const SwapOrderEventSource = "swaporder-controller"

// SetupWithManager fills what is unset (client, scheme, recorder, tunables) from the manager
// and the defaults, and registers the controller.
func (r *SwapOrderReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Providers == nil {
		return errors.New("SwapOrderReconciler needs Providers")
	}
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Scheme == nil {
		r.Scheme = mgr.GetScheme()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	r.applyDefaults()
	if r.Recorder == nil {
		r.Recorder = mgr.GetEventRecorder(SwapOrderEventSource)
	}
	gauge, err := countOrders(mgr.GetCache())
	if err != nil {
		return err
	}
	if err := r.metrics.register(metricsreg.OrDefault(r.Metrics), gauge, r.waiting); err != nil {
		return fmt.Errorf("order metrics: %w", err)
	}
	return withWake(ctrl.NewControllerManagedBy(mgr), r.Wake).
		Named("swaporder").
		For(&swapv1.SwapOrder{}, builder.WithPredicates(predicate.Or[client.Object](
			predicate.GenerationChangedPredicate{}, operatorAnnotationChanged))).
		// A released call or creation slot wakes the oldest order parked for it.
		WatchesRawSource(parking.Source(r.waiting.Woken())).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: r.MaxConcurrentReconciles,
			// Failures here are mostly API conflicts and provider outages: retry in seconds
			// to minutes, never in milliseconds.
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](time.Second, 5*time.Minute),
			// Every result carries the priority of the order's next step (queuePriority):
			// new orders ahead of tracking, creates capped so tracking keeps its workers.
			UsePriorityQueue: new(true),
		}).
		Complete(r)
}

func (r *SwapOrderReconciler) applyDefaults() {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Rand == nil {
		r.Rand = rand.Float64
	}
	if r.Assets == nil {
		r.Assets = func(string) (catalog.Asset, bool) { return catalog.Asset{}, false }
	}
	if r.ExpiryGrace <= 0 {
		r.ExpiryGrace = DefaultExpiryGrace
	}
	if r.UnknownAfter <= 0 {
		r.UnknownAfter = DefaultUnknownAfter
	}
	if r.ArchiveRetry <= 0 {
		r.ArchiveRetry = DefaultArchiveRetry
	}
	if r.RetryBase <= 0 {
		r.RetryBase = DefaultRetryBase
	}
	if r.RetryMax <= 0 {
		r.RetryMax = DefaultRetryMax
	}
	if r.PollBackoffMax <= 0 {
		r.PollBackoffMax = DefaultPollBackoffMax
	}
	if r.CallTimeout <= 0 {
		r.CallTimeout = DefaultCallTimeout
	}
	if r.MaxConcurrentReconciles <= 0 {
		r.MaxConcurrentReconciles = DefaultMaxConcurrentReconciles
	}
	if r.ProviderConcurrency <= 0 {
		r.ProviderConcurrency = max(r.MaxConcurrentReconciles/2, 1)
	}
	if r.CreateBound <= 0 {
		r.CreateBound = DefaultCreateBound
	}
	if r.ProviderIssueAfter <= 0 {
		r.ProviderIssueAfter = DefaultProviderIssueAfter
	}
	if r.WatchBound <= 0 {
		r.WatchBound = DefaultWatchBound
	}
	if r.EmitRetryBase <= 0 {
		r.EmitRetryBase = DefaultEmitRetryBase
	}
	if r.EmitRetryMax <= 0 {
		r.EmitRetryMax = DefaultEmitRetryMax
	}
	if r.providerSlots == nil {
		r.callSlots = newCallSlots(r.MaxConcurrentReconciles, r.ProviderConcurrency)
	}
	if r.metrics == nil {
		r.metrics = newOrderMetrics()
	}
}

// orderPass is one reconcile of one order: what it read (the working copy, the snapshot to
// diff against, the operator's controls, the order's memory, its provider), the plan, and
// the effect, which execute applies.
type orderPass struct {
	order    *swapv1.SwapOrder
	orig     swapv1.SwapOrderStatus
	now      time.Time
	log      logr.Logger
	controls operatorControls
	memory   orders.Memory
	// entry is the order's provider, ok when it is configured; providerFailingSince is when
	// the provider's own run of failures began, as its breaker knew after the pass's call
	// (zero: none known).
	entry                providerset.Entry
	entryOK              bool
	providerFailingSince time.Time
	decision             orders.Decision
	effect               orderEffect
	// carried: the pass's notifiedSeq was moved up to what memory knows was emitted
	// (swaporder_emission.go).
	carried bool
}

// Reconcile runs one pass over the order: read it, the operator's requests and what this
// process remembers of it (no writes); plan the pass (orders.Plan); take the capacity the
// plan names and act on the step, whose one call completes the pass's effect; then execute
// the effect in its fixed order (orderEffect.operations).
func (r *SwapOrderReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if !r.Providers.Loaded() {
		// Start-up: an absent adapter means "not loaded yet"; taking a step now would
		// record a miss for a provider that is configured.
		return ctrl.Result{RequeueAfter: providersLoadingRetry}, nil
	}
	p, res, err := r.read(ctx, req.NamespacedName)
	if p == nil {
		return res, err
	}
	ctx = ctrl.LoggerInto(ctx, p.log)
	r.runStep(ctx, p)
	return r.execute(ctx, p)
}

// read returns the pass over the order at key, or none when there is nothing to do now: the
// order is gone (and forgotten), the cache still shows it from before our last write, it is
// being deleted, or what the pass needs cannot be read.
func (r *SwapOrderReconciler) read(ctx context.Context, key client.ObjectKey) (*orderPass, ctrl.Result, error) {
	order := &swapv1.SwapOrder{}
	if err := r.Get(ctx, key, order); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(key)
		}
		return nil, ctrl.Result{}, client.IgnoreNotFound(err)
	}
	log := ctrl.LoggerFrom(ctx).WithValues("orderId", order.Spec.OrderID)
	if r.memory.stale(key, order.ResourceVersion) {
		log.V(1).Info("cache still shows the order before our last write; waiting for it")
		return nil, ctrl.Result{RequeueAfter: cacheLagRetry}, nil
	}
	if !order.DeletionTimestamp.IsZero() {
		return nil, ctrl.Result{}, nil
	}
	p := &orderPass{order: order, orig: *order.Status.DeepCopy(), now: r.Now(), log: log}
	ctx = ctrl.LoggerInto(ctx, log)
	p.entry, p.entryOK = r.Providers.Get(order.Spec.ProviderID)
	p.memory = r.memory.snapshot(order)
	if p.memory.Emitted == 0 {
		p.memory.Emitted = r.emittedEarlier(ctx, p)
	}
	controls, err := r.readOperatorControls(ctx, p)
	if err != nil {
		// Nothing was decided, nothing written: the next reconcile reads again.
		return nil, ctrl.Result{}, err
	}
	p.controls = controls
	return p, ctrl.Result{}, nil
}

// forget drops everything this process keeps about an order that is gone.
func (r *SwapOrderReconciler) forget(key client.ObjectKey) {
	r.memory.forget(key)
	r.waiting.Remove(key)
}

// runStep plans the pass, takes the capacity the plan names (released by a defer, so a
// panic in the step, which controller-runtime recovers, leaks no slot) and acts on it. A
// slot on offer that another worker took meanwhile is planned again without it.
func (r *SwapOrderReconciler) runStep(ctx context.Context, p *orderPass) {
	state := orders.State{Order: p.order, Controls: p.controls.Controls, Memory: p.memory, Archive: r.Archive != nil, Now: p.now,
		Offer: orders.Capacity{CreateSlot: r.free(heldKey{reason: heldCreatesSaturated})}}
	d := orders.Plan(state)
	if d.Take.CreateSlot {
		release, ok := r.takeCreate()
		if !ok {
			state.Offer.CreateSlot = false
			d = orders.Plan(state)
		} else {
			defer release()
		}
	}
	p.decision = d
	r.act(ctx, p)
}

// act applies the plan to the pass's working copy and effect: the step, or the hold. A step
// makes at most one call; what its answer means is decided by the step's pure outcome.
func (r *SwapOrderReconciler) act(ctx context.Context, p *orderPass) {
	d, st := p.decision, &p.order.Status
	p.log.V(1).Info("reconciling", "step", d.Step.String(), "hold", string(d.Hold), "status", st.Status)
	if d.NotifiedSeq != st.NotifiedSeq {
		st.NotifiedSeq, p.carried = d.NotifiedSeq, true
	}
	e := &p.effect
	if d.Hold == orders.HoldCreatesSaturated {
		r.holdBack(p, heldCreatesSaturated, 0)
		return
	}
	markPaused(st, p.order.Generation, p.controls.Paused, pauseNote(p.order.Annotations), metav1.NewTime(p.now))
	switch d.Hold {
	case orders.HoldNone:
		e.result = r.step(ctx, p)
	case orders.HoldForReview:
		e.result = r.holdForReview(p)
	default:
		// Held until an operator acts; that change of the order brings it back.
		p.log.V(1).Info("held; no provider step", "hold", string(d.Hold), "step", d.Step.String())
	}
	if !e.held {
		st.ObservedGeneration = p.order.Generation
		r.settleOperatorControls(p)
	}
}

// step takes the planned step.
func (r *SwapOrderReconciler) step(ctx context.Context, p *orderPass) ctrl.Result {
	switch p.decision.Step {
	case orders.StepResolve:
		return r.resolve(p)
	case orders.StepEndReview:
		return r.endReview(p)
	case orders.StepCreateDeposit:
		return r.createDeposit(ctx, p)
	case orders.StepEmit:
		return r.emit(ctx, p)
	case orders.StepArchive:
		return r.archiveOrder(ctx, p)
	case orders.StepForwardHint:
		return r.forwardHint(ctx, p)
	case orders.StepPoll:
		return r.poll(ctx, p)
	}
	return r.wake(p)
}

// wake is the result of a pass with nothing more to do now: come back when the order's next
// scheduled step is due (a poll, a webhook emission retry), or never.
func (r *SwapOrderReconciler) wake(p *orderPass) ctrl.Result {
	if d, ok := orders.Wake(p.order, p.now); ok {
		return ctrl.Result{RequeueAfter: max(d, nextStepNow)}
	}
	return ctrl.Result{}
}

// write writes the status when it changed (optimistically locked on the version read, so a
// stale read can never overwrite newer history). A deposit address created in this pass but
// not written was shown to nobody and never will be: it is counted, and the step repeats.
func (r *SwapOrderReconciler) write(ctx context.Context, p *orderPass) error {
	order := p.order
	key := client.ObjectKeyFromObject(order)
	readVersion := order.ResourceVersion
	// The swap as shown follows the status in the writes made anyway; alone it is written only
	// for an order that has a status but was never shown (made by an earlier version).
	changed := statusChanged(&p.orig, r.unwritten(p))
	if changed || (order.Status.Status != "" && order.Status.Display == nil) {
		order.Status.Display = orderdisplay.Now(order.Spec, order.Status, r.Assets)
		changed = statusChanged(&p.orig, r.unwritten(p))
	}
	if !changed {
		return nil
	}
	base := order.DeepCopy()
	base.Status = p.orig
	if err := r.Status().Patch(ctx, order, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		if created := p.effect.created; created != "" {
			r.metrics.unshown.WithLabelValues(string(order.Spec.ProviderID), unshownStatusWriteFailed).Inc()
			p.log.Info("deposit address not recorded; it will never be shown", "depositAddress", created, "error", err.Error())
		}
		return fmt.Errorf("writing order status: %w", err)
	}
	r.memory.wrote(key, readVersion, order.ResourceVersion)
	return nil
}

// report records the Events of what the pass's status write persisted (or, when nothing
// needed writing, what the pass found): its transitions first, timed at the write (webhook
// latency is measured from them), the pause, then the step's own.
func (r *SwapOrderReconciler) report(p *orderPass) {
	for _, t := range p.effect.transitions {
		r.recordTransition(p.order, t)
	}
	r.recordSettlement(p.order, p.effect.transitions)
	r.recordPause(p.order, &p.orig)
	r.recordEvents(p.order, p.effect.events)
}

// unwritten is the pass's status without what alone is not worth a write: a moved nextPollAt
// (see withNextPollAt) and a notifiedSeq carried from memory (swaporder_emission.go), which
// the next write that is made anyway records.
func (r *SwapOrderReconciler) unwritten(p *orderPass) *swapv1.SwapOrderStatus {
	st := withNextPollAt(&p.order.Status, p.orig.NextPollAt)
	if p.carried && st.NotifiedSeq == p.decision.NotifiedSeq {
		st.NotifiedSeq = p.orig.NotifiedSeq
	}
	return st
}

// withNextPollAt returns st with nextPollAt replaced. A poll that changed nothing else is not
// written: the requeue carries the next poll time, so an idle order costs no etcd write per
// poll (10,000 orders would otherwise mean ~800 writes a second). nextPollAt in the API is
// therefore the schedule as of the last real change; after a restart every order polls once
// at start, which the per-provider call cap spreads out.
func withNextPollAt(st *swapv1.SwapOrderStatus, next *metav1.Time) *swapv1.SwapOrderStatus {
	out := *st
	out.NextPollAt = next
	return &out
}

// statusChanged compares what the API would store: times are kept in whole seconds, so a
// poll that only moved nextPollAt within the same second writes nothing.
func statusChanged(a, b *swapv1.SwapOrderStatus) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA != nil || errB != nil || !bytes.Equal(ja, jb)
}

// transition applies c to the order and remembers it for the events and metrics.
func (p *orderPass) transition(c orders.Change) bool {
	t, ok := orders.Apply(&p.order.Status, c, metav1.NewTime(p.now))
	if ok {
		p.effect.transitions = append(p.effect.transitions, t)
		p.log.Info("order status changed", "from", t.PreviousStatus, "to", t.Status, "reason", t.Reason, "seq", t.Seq)
	}
	return ok
}

// recordTransition emits the Kubernetes Event and the metric of a persisted transition.
func (r *SwapOrderReconciler) recordTransition(order *swapv1.SwapOrder, t swapv1.StatusTransition) {
	kind := "Normal"
	if t.Status == swapv1.OrderFailed || t.Status == swapv1.OrderRefunded || t.Status == swapv1.OrderUnknown {
		kind = "Warning"
	}
	from := string(t.PreviousStatus)
	if from == "" {
		from = "NEW"
	}
	r.Recorder.Eventf(order, nil, kind, orders.CamelStatus(t.Status), "Transition",
		"%s -> %s: %s", from, t.Status, t.Reason)
	r.metrics.transitions.WithLabelValues(from, string(t.Status)).Inc()
}

// recordSettlement counts the order in its provider's settlements when one of the persisted
// transitions ended it after a deposit: the write that ends an order happens once.
func (r *SwapOrderReconciler) recordSettlement(order *swapv1.SwapOrder, persisted []swapv1.StatusTransition) {
	if r.Settlements == nil || !slices.ContainsFunc(persisted, func(t swapv1.StatusTransition) bool { return t.Status.IsTerminal() }) {
		return
	}
	if took, succeeded, ok := orders.Settlement(order); ok {
		r.Settlements.Record(order.Spec.ProviderID, callstats.Settlement, took, !succeeded)
	}
}

// providerMissing decides a step whose provider is not configured (the providers are
// loaded, see the start-up gate): an operator's matter, not the order's. The order keeps its
// status, says why in its conditions, and retries with backoff.
func (r *SwapOrderReconciler) providerMissing(p *orderPass) ctrl.Result {
	n, _ := p.failedOnce()
	orders.SetConditions(&p.order.Status, p.order.Generation, orders.Issue{
		Reason:  orders.ReasonProviderNotConfigured,
		Message: fmt.Sprintf("provider %s is not configured", p.order.Spec.ProviderID),
		Stalled: true,
	}, metav1.NewTime(p.now))
	p.log.Info("provider not configured; retrying", "provider", p.order.Spec.ProviderID)
	return ctrl.Result{RequeueAfter: resilience.Backoff(n, r.RetryBase, r.RetryMax, resilience.Jitter, r.Rand())}
}

// failedOnce counts one more provider failure of the order in the pass's effect and returns
// the run's length and when it began, as memory will then hold them.
func (p *orderPass) failedOnce() (n int32, since time.Time) {
	p.effect.memory.failed, p.effect.memory.recovered = true, false
	n, since = p.memory.Failures+1, p.memory.FailingSince
	if p.memory.Failures == 0 {
		since = p.now
	}
	return n, since
}

// recovered ends the order's run of provider failures in the pass's effect.
func (p *orderPass) recovered() {
	p.effect.memory.failed, p.effect.memory.recovered = false, true
}

// ask makes a step's one provider call. held says the call was not made for want of
// capacity (the pass is held back, see heldBack); otherwise pe is the provider's failure,
// nil when it answered. A failure comes with when the provider's own run of failures began
// (its breaker counts this call too).
func (r *SwapOrderReconciler) ask(ctx context.Context, p *orderPass, fn func(context.Context) error) (held bool, pe *provider.Error) {
	err := r.call(ctx, p.entry, fn)
	if r.heldBack(p, err) {
		return true, nil
	}
	if err == nil {
		return false, nil
	}
	if r.Health != nil {
		p.providerFailingSince = r.Health.State(p.order.Spec.ProviderID).FailingSince
	}
	return false, provider.AsError(err)
}

// call runs fn against the provider under its concurrency cap and a timeout. A provider at
// its cap is not waited for: errProviderSaturated (see heldBack).
func (r *SwapOrderReconciler) call(ctx context.Context, entry providerset.Entry, fn func(context.Context) error) error {
	release, ok := r.takeCall(entry.Provider.ID())
	if !ok {
		return errProviderSaturated
	}
	defer release()
	timeout := entry.Timeout
	if timeout <= 0 {
		timeout = r.CallTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return fn(ctx)
}

// providerDown decides a provider-wide failure (see provider.Class): the order keeps its
// status and retries after a jittered backoff within [base, cap] or the provider's
// Retry-After (an open breaker's included). Once its provider has failed it for
// ProviderIssueAfter its conditions say why. Nothing about the order is counted in its
// status, so an outage costs no write per call, and a shorter one none at all: its
// RoutingProvider says it, where one condition write per order on the way in and out cost
// every provider's orders and quotes kube-apiserver CPU.
func (r *SwapOrderReconciler) providerDown(p *orderPass, pe *provider.Error, base, cap time.Duration) time.Duration {
	n, since := p.failedOnce()
	// An order not polled between two outages (backed off) counts from the first; the
	// provider's own run says when this one began.
	if p.providerFailingSince.After(since) {
		since = p.providerFailingSince
	}
	if p.now.Sub(since) >= r.ProviderIssueAfter {
		orders.SetConditions(&p.order.Status, p.order.Generation,
			orders.ProviderIssue(p.order.Spec.ProviderID, health.CredentialsRejected(pe)), metav1.NewTime(p.now))
	}
	delay := max(resilience.Backoff(n, base, cap, resilience.Jitter, r.Rand()), pe.RetryAfter)
	if n == 1 || n%20 == 0 {
		p.log.Info("provider failing; the order keeps its status", "error", pe.Error(), "consecutive", n, "retryIn", delay)
	}
	return delay
}

func providerOrderRef(o *swapv1.SwapOrder) provider.OrderRef {
	return provider.OrderRef{
		OrderID:        o.Spec.OrderID,
		DepositAddress: o.Status.DepositAddress,
		DepositMemo:    o.Status.DepositMemo,
		ProviderRef:    o.Status.ProviderRef,
	}
}
