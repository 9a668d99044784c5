package controllers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
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
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/budget"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
	"github.com/swaprouter/swaprouter/internal/provider/registry"
	"github.com/swaprouter/swaprouter/internal/providerset"
)

// Defaults for RoutingProvider spec fields left at zero (the CRD defaults them too).
const (
	DefaultProviderTimeout      = 5 * time.Second
	DefaultProviderAssetRefresh = 5 * time.Minute
	DefaultProviderPollMin      = 10 * time.Second
	DefaultProviderPollMax      = 15 * time.Second
)

const (
	// minProviderProbeRetry is the first retry after a failed probe; retries then wait as long as the
	// provider has been failing (doubling), up to the refresh interval.
	minProviderProbeRetry = 5 * time.Second
	// duplicateProviderRecheck is how often a RoutingProvider that lost the claim on its providerId
	// looks again, in case no event tells it that the claimant went away.
	duplicateProviderRecheck = time.Minute
	// deletionRecheck is how often a deleted RoutingProvider looks again whether its live
	// orders have ended.
	deletionRecheck = 15 * time.Second
)

// Ready condition reasons of RoutingProvider. They are stable, and the messages that go with
// them carry no timestamps or request ids, so an unchanged outcome never rewrites status.
// FinalizerLiveOrders holds a deleted RoutingProvider until its live orders have ended.
const FinalizerLiveOrders = "swap.swaprouter.dev/live-orders"

const (
	ReasonProviderAssetsListed = "AssetsListed"
	ReasonProviderNoAssets     = "NoAssets"
	ReasonProviderDisabled     = "Disabled"
	ReasonProviderDuplicateID  = "DuplicateProviderID"
	// ReasonProviderDeletionWaits: the RoutingProvider is deleted, and its finalizer holds it
	// until its providerId's live orders have ended.
	ReasonProviderDeletionWaits         = "DeletionWaitsForOrders"
	ReasonProviderCredentialsNotFound   = "CredentialsNotFound"
	ReasonProviderCredentialsKeyMissing = "CredentialsKeyMissing"
	ReasonProviderInvalidConfiguration  = "InvalidConfiguration"
	ReasonProviderTimeout               = "ProviderTimeout"
	ReasonProviderUnavailable           = "ProviderUnavailable"
	ReasonProviderRefused               = "ProviderRefused"
)

// ProviderFactory builds the adapter for a protocol; registry.New is the production one.
type ProviderFactory func(protocol swapv1.ProviderProtocol, cfg provider.Config) (provider.Provider, error)

// RoutingProviderReconciler turns RoutingProvider objects into live adapters in Providers and
// their asset lists in Catalog, probing each provider by fetching its assets every
// assetRefreshInterval.
//
// A provider's assets are in Catalog while it is enabled and has listed them once; while its
// probe fails they stay as its last known list, marked stale (the quote router's per-provider
// errors tell partners it is down, never `unknown originAsset/destinationAsset`). The
// Providers entry stays for as long as the object exists (disabled or failing too), because
// existing orders are tracked through it.
//
// A RoutingProvider never vanishes under its orders: the controllers' finalizer
// (FinalizerLiveOrders) holds its deletion while orders of its providerId are not terminal.
// Meanwhile it takes no quotes and no new orders but keeps tracking those (Ready=False
// DeletionWaitsForOrders names them); Providers and Catalog are memory of this process,
// rebuilt from the objects at a restart.
//
// Two objects naming the same providerId: the one already serving it keeps it, else the oldest
// (then by namespace/name); the others report Ready=False DuplicateProviderID and leave
// Providers and Catalog alone until the claimant goes.
type RoutingProviderReconciler struct {
	Client client.Client
	// APIReader reads credentials Secrets directly, so Secret data is never cached
	// cluster-wide (only Secret metadata is watched). Defaults to the manager's API reader.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Providers *providerset.Set
	Catalog   *catalog.Catalog
	// NewProvider builds adapters; defaults to registry.New.
	NewProvider ProviderFactory
	// HTTPClient is handed to every adapter when set (shared transport, tests).
	HTTPClient *http.Client
	// Recorder emits an event whenever Ready changes; defaults to the manager's.
	Recorder events.EventRecorder
	// ReadOnly fills Providers and Catalog without writing status or events and without
	// leader election: for frontend replicas, which need the same in-memory providers for
	// quotes while the leader-elected controller process owns the status.
	ReadOnly bool
	// Now is the clock; defaults to time.Now.
	Now func() time.Time
	// Wake, when set, is a test's source of extra reconcile requests (withWake).
	Wake source.Source
	// Health judges each provider from every call made through its adapter (a circuit
	// breaker); the adapters are wrapped with it and the Available condition reports it.
	// nil leaves adapters unguarded.
	Health *health.Tracker
	// Calls counts every call made through the adapters (GET /v1/providers, status.calls);
	// nil counts nothing.
	Calls *callstats.Window
	// Budgets enforces each provider's spec.callBudget on every call made through its
	// adapter (orders and quotes of this process alike); nil leaves calls unbudgeted.
	Budgets *budget.Budgets
	// Metrics is where the adapters' call metrics are registered; nil: controller-runtime's
	// registry.
	Metrics prometheus.Registerer

	callMetrics *providermetrics.Metrics

	mu sync.Mutex
	// seen records the objects reconciled at least once; Providers counts as loaded once
	// every RoutingProvider is in it.
	seen map[types.NamespacedName]bool
	// held records which object's adapter and assets are in Providers and Catalog per id, so
	// a deleted or renamed object removes only what it put there.
	held map[swapv1.ProviderID]types.NamespacedName
}

// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=routingproviders,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=routingproviders/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// RoutingProviderEventSource is the reporting controller of the Events this reconciler records.
const RoutingProviderEventSource = "routingprovider-controller"

// SetupWithManager fills defaults and registers the controller.
func (r *RoutingProviderReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Providers == nil || r.Catalog == nil {
		return errors.New("RoutingProviderReconciler needs Providers and Catalog")
	}
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Scheme == nil {
		r.Scheme = mgr.GetScheme()
	}
	if r.Recorder == nil && !r.ReadOnly {
		r.Recorder = mgr.GetEventRecorder(RoutingProviderEventSource)
	}
	if r.NewProvider == nil {
		r.NewProvider = registry.New
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	r.callMetrics = providermetrics.New(r.Metrics)
	opts := controller.Options{MaxConcurrentReconciles: 1}
	if r.ReadOnly {
		opts.NeedLeaderElection = ptr.To(false)
	}
	// Order workers wait until every RoutingProvider is loaded: before, an absent adapter
	// means "not loaded yet", not "not configured".
	r.Providers.ExpectLoad()
	if err := mgr.Add(providersLoadedGate{r}); err != nil {
		return err
	}
	b := withWake(ctrl.NewControllerManagedBy(mgr), r.Wake)
	if src := r.healthSource(); src != nil {
		b = b.WatchesRawSource(src)
	}
	return b.
		Named("routingprovider").
		// Our own status writes (lastRefresh moves every refresh) must not trigger probes.
		For(&swapv1.RoutingProvider{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// When the claimant of a providerId goes away or changes, a duplicate takes over.
		Watches(&swapv1.RoutingProvider{}, handler.EnqueueRequestsFromMapFunc(r.sameProviderID),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.usingSecret)).
		WithOptions(opts).
		Complete(r)
}

// Reconcile builds the adapter from spec and credentials, probes the provider and records the
// outcome; it requeues itself for the next asset refresh.
func (r *RoutingProviderReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	var rp swapv1.RoutingProvider
	if err := r.Client.Get(ctx, req.NamespacedName, &rp); err != nil {
		if apierrors.IsNotFound(err) {
			r.release(ctx, req.NamespacedName, "")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	id := rp.Spec.ProviderID
	logger := log.FromContext(ctx).WithValues("providerId", id)
	ctx = log.IntoContext(ctx, logger)
	retiring := ""
	switch {
	case !rp.DeletionTimestamp.IsZero() && (r.ReadOnly || !controllerutil.ContainsFinalizer(&rp, FinalizerLiveOrders)):
		r.release(ctx, req.NamespacedName, "")
		return ctrl.Result{}, nil
	case !rp.DeletionTimestamp.IsZero():
		if retiring, err = r.liveOrdersNote(ctx, req.NamespacedName, &rp); err != nil || retiring == "" {
			if err == nil {
				r.release(ctx, req.NamespacedName, "")
				err = r.dropFinalizer(ctx, &rp)
			}
			return ctrl.Result{}, err
		}
	case !r.ReadOnly && !controllerutil.ContainsFinalizer(&rp, FinalizerLiveOrders):
		patch := client.MergeFrom(rp.DeepCopy())
		controllerutil.AddFinalizer(&rp, FinalizerLiveOrders)
		if err := r.Client.Patch(ctx, &rp, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	// providerId was edited: give up the old one.
	r.release(ctx, req.NamespacedName, id)

	orig := rp.DeepCopy()
	defer func() {
		r.judgeHealth(&rp)
		err = errors.Join(err, r.writeStatus(ctx, orig, &rp))
		r.markSeen(ctx, req.NamespacedName)
	}()
	return r.sync(ctx, req.NamespacedName, &rp, retiring)
}

// liveOrdersNote says why rp's deletion waits: the orders of its providerId that are not
// terminal, when rp serves that id; "" when nothing holds it.
func (r *RoutingProviderReconciler) liveOrdersNote(ctx context.Context, key types.NamespacedName, rp *swapv1.RoutingProvider) (string, error) {
	// Another RoutingProvider of the id takes its orders over; only the last one waits.
	claimant, err := r.claimant(ctx, rp.Spec.ProviderID)
	if err != nil || (claimant != types.NamespacedName{} && claimant != key) {
		return "", err
	}
	var list swapv1.SwapOrderList
	if err := r.Client.List(ctx, &list, client.InNamespace(rp.Namespace)); err != nil {
		return "", err
	}
	var live []string
	for _, o := range list.Items {
		if o.Spec.ProviderID == rp.Spec.ProviderID && !o.Status.Status.IsTerminal() {
			live = append(live, o.Spec.OrderID)
		}
	}
	if len(live) == 0 {
		return "", nil
	}
	slices.Sort(live)
	shown := live[:min(len(live), 3)]
	more := ""
	if len(live) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(live)-len(shown))
	}
	return fmt.Sprintf("deletion waits for %d live orders (%s%s) to end: no quotes, no new orders, existing ones tracked",
		len(live), strings.Join(shown, ", "), more), nil
}

// dropFinalizer lets a deleted RoutingProvider go.
func (r *RoutingProviderReconciler) dropFinalizer(ctx context.Context, rp *swapv1.RoutingProvider) error {
	patch := client.MergeFrom(rp.DeepCopy())
	controllerutil.RemoveFinalizer(rp, FinalizerLiveOrders)
	if err := r.Client.Patch(ctx, rp, patch); err != nil {
		return client.IgnoreNotFound(err)
	}
	log.FromContext(ctx).Info("provider deleted: no live orders left")
	return nil
}

// sync does the work of one reconcile on rp (a copy whose status it sets). retiring, when
// set, says why a deleted rp still tracks orders: it is served as if disabled.
func (r *RoutingProviderReconciler) sync(ctx context.Context, key types.NamespacedName, rp *swapv1.RoutingProvider, retiring string) (ctrl.Result, error) {
	id := rp.Spec.ProviderID
	rp.Status.ObservedGeneration = rp.Generation

	claimant, err := r.claimant(ctx, id)
	if err != nil {
		return ctrl.Result{}, err
	}
	if retiring != "" {
		claimant = key // a deleted object claims nothing, but it is the last of its id
	}
	if claimant != key {
		setProviderReady(rp, metav1.ConditionFalse, ReasonProviderDuplicateID,
			fmt.Sprintf("providerId %s is served by RoutingProvider %s", id, claimant))
		return ctrl.Result{RequeueAfter: duplicateProviderRecheck}, nil
	}
	refresh := durationOr(rp.Spec.AssetRefreshInterval.Duration, DefaultProviderAssetRefresh)

	token, reason, msg, err := r.credentials(ctx, rp)
	if err != nil {
		return ctrl.Result{}, err
	}
	if reason != "" {
		// Keep the last adapter that could be built (orders in flight are still tracked with
		// it) but stop quoting through it. The Secret watch retries once the Secret is fixed.
		r.unavailable(id, key, nil, errors.New(msg))
		setProviderReady(rp, metav1.ConditionFalse, reason, msg)
		return ctrl.Result{RequeueAfter: r.retryDelay(rp, refresh)}, nil
	}

	timeout := durationOr(rp.Spec.Timeout.Duration, DefaultProviderTimeout)
	adapter, err := r.NewProvider(rp.Spec.Protocol, provider.Config{
		ID: id, Endpoint: rp.Spec.Endpoint, Token: token, Timeout: timeout, HTTPClient: r.HTTPClient,
		QuoteSigningKey: rp.Spec.QuoteSigningKey,
	})
	if err != nil {
		r.unavailable(id, key, nil, err)
		setProviderReady(rp, metav1.ConditionFalse, ReasonProviderInvalidConfiguration, err.Error())
		// Only a spec change (a new generation) can fix this.
		return ctrl.Result{}, nil
	}
	guarded := r.callMetrics.Instrument(adapter, r.Calls)
	if r.Health != nil {
		guarded = health.Guard(guarded, r.Health)
	}
	if r.Budgets != nil {
		// Outermost: a call over budget is never made, so the breaker and the call metrics
		// see only calls that reached the provider.
		r.Budgets.Set(id, budget.LimitOf(rp.Spec.CallBudget))
		guarded = budget.Guard(guarded, r.Budgets)
	}
	enabled := rp.Spec.Enabled && retiring == ""
	entry := providerset.Entry{
		Provider: guarded,
		Enabled:  enabled,
		PollMin:  durationOr(rp.Spec.PollInterval.Min.Duration, DefaultProviderPollMin),
		PollMax:  durationOr(rp.Spec.PollInterval.Max.Duration, DefaultProviderPollMax),
		Timeout:  timeout,
	}
	if retiring != "" {
		r.hold(id, key, &entry, nil)
		setProviderReady(rp, metav1.ConditionFalse, ReasonProviderDeletionWaits, retiring)
		return ctrl.Result{RequeueAfter: deletionRecheck}, nil
	}
	if !enabled {
		r.hold(id, key, &entry, nil)
		setProviderReady(rp, metav1.ConditionFalse, ReasonProviderDisabled, "the provider is disabled: no quotes, no new orders")
		return ctrl.Result{}, nil
	}

	probeCtx, cancel := context.WithTimeout(ctx, timeout)
	assets, probeErr := entry.Provider.Assets(probeCtx)
	cancel()
	if probeErr != nil {
		r.unavailable(id, key, &entry, probeErr)
		reason, msg := providerProbeFailure(probeErr)
		setProviderReady(rp, metav1.ConditionFalse, reason, msg)
		log.FromContext(ctx).Info("provider probe failed", "reason", reason, "error", probeErr.Error())
		return ctrl.Result{RequeueAfter: r.retryDelay(rp, refresh)}, nil
	}
	listed := r.hold(id, key, &entry, assets)
	if listed < len(assets) {
		log.FromContext(ctx).Info("provider lists assets the catalog cannot use (invalid or repeated CAIP-19 ids)",
			"ignored", len(assets)-listed)
	}
	if listed == 0 {
		r.hold(id, key, &entry, nil)
		setProviderReady(rp, metav1.ConditionFalse, ReasonProviderNoAssets, "the provider lists no usable assets")
		return ctrl.Result{RequeueAfter: r.retryDelay(rp, refresh)}, nil
	}
	rp.Status.AssetCount = int32(listed)
	rp.Status.LastRefresh = ptr.To(metav1.NewTime(r.Now()))
	setProviderReady(rp, metav1.ConditionTrue, ReasonProviderAssetsListed, fmt.Sprintf("%d assets listed", listed))
	log.FromContext(ctx).V(1).Info("provider assets refreshed", "assets", listed)
	return ctrl.Result{RequeueAfter: refresh}, nil
}

// credentials returns the bearer token, or a Ready reason and message when the Secret is not
// usable. err is set only for failures worth a retry with the controller's backoff.
func (r *RoutingProviderReconciler) credentials(ctx context.Context, rp *swapv1.RoutingProvider) (token, reason, msg string, err error) {
	ref := rp.Spec.CredentialsSecretRef
	if ref == nil {
		return "", "", "", nil
	}
	var secret corev1.Secret
	if err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: rp.Namespace, Name: ref.Name}, &secret); err != nil {
		if apierrors.IsNotFound(err) {
			return "", ReasonProviderCredentialsNotFound, fmt.Sprintf("Secret %s not found", ref.Name), nil
		}
		return "", "", "", fmt.Errorf("reading credentials Secret %s: %w", ref.Name, err)
	}
	value, ok := secret.Data[ref.Key]
	if !ok || len(value) == 0 {
		return "", ReasonProviderCredentialsKeyMissing, fmt.Sprintf("Secret %s has no key %q", ref.Name, ref.Key), nil
	}
	return strings.TrimSpace(string(value)), "", "", nil
}

// providerProbeFailure turns a failed asset fetch into a Ready reason and a message that stays the
// same while the failure does (the provider's detail only, never the wrapped transport error
// with its ephemeral ports).
func providerProbeFailure(err error) (reason, msg string) {
	pe := provider.AsError(err)
	switch pe.Kind {
	case provider.KindTimeout:
		reason = ReasonProviderTimeout
	case provider.KindUpstream, provider.KindUnavailable:
		reason = ReasonProviderUnavailable
	default:
		reason = ReasonProviderRefused
	}
	msg = "listing assets failed: " + pe.Kind.String()
	switch {
	case pe.Upstream != nil && pe.Upstream.Status != 0:
		msg += fmt.Sprintf(" (%s answered %d)", pe.Upstream.Path, pe.Upstream.Status)
	case pe.Upstream != nil:
		msg += fmt.Sprintf(" (%s)", pe.Upstream.Path)
	}
	// Adapters keep Detail free of request ids and timestamps; a foreign error's text (which
	// AsError copies into Detail) may not be, so it stays in the logs only.
	if pe.Detail != "" && (pe.Err == nil || pe.Detail != pe.Err.Error()) {
		msg += ": " + pe.Detail
	}
	return reason, msg
}

// retryDelay is how long to wait after a failure: as long as Ready has been False (so retries
// double), at least minProviderProbeRetry and at most the refresh interval.
func (r *RoutingProviderReconciler) retryDelay(rp *swapv1.RoutingProvider, refresh time.Duration) time.Duration {
	var failingFor time.Duration
	if c := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady); c != nil && c.Status == metav1.ConditionFalse {
		failingFor = r.Now().Sub(c.LastTransitionTime.Time)
	}
	return providerProbeRetryDelay(failingFor, refresh)
}

// providerProbeRetryDelay clamps failingFor to [minProviderProbeRetry, refresh].
func providerProbeRetryDelay(failingFor, refresh time.Duration) time.Duration {
	return min(max(failingFor, minProviderProbeRetry), max(refresh, minProviderProbeRetry))
}

// claimant is the RoutingProvider that serves id (see oldestProviderClaimant).
func (r *RoutingProviderReconciler) claimant(ctx context.Context, id swapv1.ProviderID) (types.NamespacedName, error) {
	var list swapv1.RoutingProviderList
	if err := r.Client.List(ctx, &list); err != nil {
		return types.NamespacedName{}, err
	}
	return oldestProviderClaimant(list.Items, id), nil
}

// oldestProviderClaimant picks, among the live items naming id, the one that serves it. An
// object already serving (its status does not say DuplicateProviderID) keeps the claim, so a
// newcomer never takes over a working provider; otherwise the oldest wins, then by
// namespace/name (creation times have one-second resolution). Status is the tie-breaker's
// memory because it is shared: every process running this reconciler picks the same one.
func oldestProviderClaimant(items []swapv1.RoutingProvider, id swapv1.ProviderID) types.NamespacedName {
	var best *swapv1.RoutingProvider
	for i := range items {
		it := &items[i]
		if it.Spec.ProviderID != id || !it.DeletionTimestamp.IsZero() {
			continue
		}
		if best == nil || providerClaimsBefore(it, best) {
			best = it
		}
	}
	if best == nil {
		return types.NamespacedName{}
	}
	return client.ObjectKeyFromObject(best)
}

func providerClaimsBefore(a, b *swapv1.RoutingProvider) bool {
	if sa, sb := servesProviderID(a), servesProviderID(b); sa != sb {
		return sa
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// servesProviderID reports whether rp's status shows it serving its providerId: it has been
// reconciled and was not found to be a duplicate.
func servesProviderID(rp *swapv1.RoutingProvider) bool {
	c := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady)
	return c != nil && c.Reason != ReasonProviderDuplicateID
}

// hold records that key serves id and updates Providers and Catalog: entry replaces the
// adapter when not nil; assets replace the catalog's list when not nil, otherwise the
// provider's assets leave the catalog (it is not Ready). It returns how many assets the
// catalog accepted.
func (r *RoutingProviderReconciler) hold(id swapv1.ProviderID, key types.NamespacedName, entry *providerset.Entry, assets []provider.Asset) (listed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holdEntry(id, key, entry)
	if assets != nil {
		return r.Catalog.SetProviderAssets(id, assets)
	}
	r.Catalog.RemoveProvider(id)
	return 0
}

// holdEntry records that key serves id and puts entry (when not nil) in Providers; r.mu is held.
func (r *RoutingProviderReconciler) holdEntry(id swapv1.ProviderID, key types.NamespacedName, entry *providerset.Entry) {
	if r.held == nil {
		r.held = map[swapv1.ProviderID]types.NamespacedName{}
	}
	r.held[id] = key
	if entry != nil {
		r.Providers.Put(id, *entry)
	}
}

// unavailable is hold for a provider whose asset list cannot be had now (err): the catalog
// keeps its last known assets, marked stale, so nothing it listed before turns unknown.
func (r *RoutingProviderReconciler) unavailable(id swapv1.ProviderID, key types.NamespacedName, entry *providerset.Entry, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holdEntry(id, key, entry)
	r.Catalog.ProviderFailed(id, err)
}

// release removes from Providers and Catalog every id key holds, except keep.
func (r *RoutingProviderReconciler) release(ctx context.Context, key types.NamespacedName, keep swapv1.ProviderID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, holder := range r.held {
		if holder != key || id == keep {
			continue
		}
		delete(r.held, id)
		r.Providers.Delete(id)
		r.Catalog.RemoveProvider(id)
		log.FromContext(ctx).Info("provider removed", "providerId", id)
	}
}

// writeStatus patches status once, only when it changed, and emits an event when Ready did.
func (r *RoutingProviderReconciler) writeStatus(ctx context.Context, orig, rp *swapv1.RoutingProvider) error {
	if r.ReadOnly || equality.Semantic.DeepEqual(orig.Status, rp.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, rp, client.MergeFrom(orig)); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("recording RoutingProvider status: %w", err))
	}
	before := meta.FindStatusCondition(orig.Status.Conditions, swapv1.ConditionReady)
	after := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady)
	if after != nil && r.Recorder != nil && (before == nil || before.Status != after.Status || before.Reason != after.Reason) {
		eventType := corev1.EventTypeNormal
		if after.Status != metav1.ConditionTrue {
			eventType = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(rp, nil, eventType, after.Reason, "Probe", "%s", after.Message)
	}
	return nil
}

func setProviderReady(rp *swapv1.RoutingProvider, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&rp.Status.Conditions, metav1.Condition{
		Type:               swapv1.ConditionReady,
		Status:             status,
		Reason:             reason,
		Message:            msg,
		ObservedGeneration: rp.Generation,
	})
}

// sameProviderID maps a RoutingProvider event to the other RoutingProviders naming the same
// providerId, so a duplicate takes over when the claimant is deleted.
func (r *RoutingProviderReconciler) sameProviderID(ctx context.Context, obj client.Object) []reconcile.Request {
	changed, ok := obj.(*swapv1.RoutingProvider)
	if !ok {
		return nil
	}
	var list swapv1.RoutingProviderList
	if err := r.Client.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "listing RoutingProviders")
		return nil
	}
	var out []reconcile.Request
	for _, it := range list.Items {
		if it.Spec.ProviderID == changed.Spec.ProviderID && client.ObjectKeyFromObject(&it) != client.ObjectKeyFromObject(changed) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&it)})
		}
	}
	return out
}

// usingSecret maps a Secret to the RoutingProviders in its namespace whose credentials it holds.
func (r *RoutingProviderReconciler) usingSecret(ctx context.Context, secret client.Object) []reconcile.Request {
	var list swapv1.RoutingProviderList
	if err := r.Client.List(ctx, &list, client.InNamespace(secret.GetNamespace())); err != nil {
		log.FromContext(ctx).Error(err, "listing RoutingProviders")
		return nil
	}
	var out []reconcile.Request
	for _, it := range list.Items {
		if ref := it.Spec.CredentialsSecretRef; ref != nil && ref.Name == secret.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&it)})
		}
	}
	return out
}

func durationOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
