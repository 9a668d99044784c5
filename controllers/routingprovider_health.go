package controllers

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider/health"
)

// ConditionAvailable is the RoutingProvider condition judged from every call made to the
// provider (its circuit breaker): True (Available) while calls go through; False with
// Degraded (timeouts, 5xx, throttling) or CredentialsRejected (401/403) while calls are held
// back. Orders of an unavailable provider keep their status.
const ConditionAvailable = swapv1.ConditionAvailable

// providersLoadedPoll is how often the start-up gate looks whether every RoutingProvider
// has been loaded.
const providersLoadedPoll = 100 * time.Millisecond

// judgeHealth sets the Available condition from the provider's breaker.
func (r *RoutingProviderReconciler) judgeHealth(rp *swapv1.RoutingProvider) {
	if r.Health == nil || rp.Spec.ProviderID == "" {
		return
	}
	j := health.Judge(r.Health.State(rp.Spec.ProviderID))
	status := metav1.ConditionFalse
	if j.Available {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&rp.Status.Conditions, metav1.Condition{
		Type: ConditionAvailable, Status: status, Reason: j.Reason, Message: j.Message, ObservedGeneration: rp.Generation,
	})
}

// healthSource triggers a reconcile of a provider whose breaker opened or closed: it
// re-probes the provider and rewrites its conditions. nil without a Health tracker.
func (r *RoutingProviderReconciler) healthSource() source.Source {
	if r.Health == nil {
		return nil
	}
	return source.Channel(healthEvents(r.Health.Changes()), handler.EnqueueRequestsFromMapFunc(r.withProviderID))
}

// healthEvents turns the tracker's provider ids into events for a channel source.
func healthEvents(ids <-chan swapv1.ProviderID) <-chan event.TypedGenericEvent[client.Object] {
	out := make(chan event.TypedGenericEvent[client.Object])
	go func() {
		defer close(out)
		for id := range ids {
			out <- event.TypedGenericEvent[client.Object]{Object: &swapv1.RoutingProvider{Spec: swapv1.RoutingProviderSpec{ProviderID: id}}}
		}
	}()
	return out
}

// withProviderID maps a health event to the RoutingProviders naming its provider id.
func (r *RoutingProviderReconciler) withProviderID(ctx context.Context, obj client.Object) []reconcile.Request {
	id := obj.(*swapv1.RoutingProvider).Spec.ProviderID
	var list swapv1.RoutingProviderList
	if err := r.Client.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "listing RoutingProviders")
		return nil
	}
	var out []reconcile.Request
	for _, it := range list.Items {
		if it.Spec.ProviderID == id {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&it)})
		}
	}
	return out
}

// markSeen records that key was reconciled and marks Providers loaded once every
// RoutingProvider was.
func (r *RoutingProviderReconciler) markSeen(ctx context.Context, key types.NamespacedName) {
	r.mu.Lock()
	if r.seen == nil {
		r.seen = map[types.NamespacedName]bool{}
	}
	r.seen[key] = true
	r.mu.Unlock()
	r.checkLoaded(ctx)
}

// checkLoaded marks Providers loaded when every RoutingProvider has been reconciled once.
func (r *RoutingProviderReconciler) checkLoaded(ctx context.Context) bool {
	if r.Providers.Loaded() {
		return true
	}
	var list swapv1.RoutingProviderList
	if err := r.Client.List(ctx, &list); err != nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range list.Items {
		if !r.seen[client.ObjectKeyFromObject(&list.Items[i])] {
			return false
		}
	}
	r.Providers.MarkLoaded()
	log.FromContext(ctx).Info("providers loaded", "routingProviders", len(list.Items))
	return true
}

// providersLoadedGate marks Providers loaded when there is no RoutingProvider at all (no
// reconcile would ever do it) and otherwise waits for the reconciles to do so.
type providersLoadedGate struct{ r *RoutingProviderReconciler }

func (g providersLoadedGate) Start(ctx context.Context) error {
	t := time.NewTicker(providersLoadedPoll)
	defer t.Stop()
	for !g.r.checkLoaded(ctx) {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
	return nil
}

// NeedLeaderElection: the gate runs wherever the reconciler does.
func (g providersLoadedGate) NeedLeaderElection() bool { return !g.r.ReadOnly }
