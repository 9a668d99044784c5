package controllers

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/partners"
	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
	"github.com/swaprouter/swaprouter/internal/tiers"
)

// partnerRecheck is how often a Partner's Secrets are looked at again: Secrets are not
// watched here (their data is never cached), so a fixed Secret shows within this time.
const partnerRecheck = 5 * time.Minute

// PartnerReconciler keeps Partner status honest for `kubectl get partners`: the limits in
// effect, how many API keys are live, whether the keys and the webhook secret resolve
// (Ready), and the sanctions list the partner's orders are screened with (SanctionsList).
// Quota usage in the same status belongs to the frontend; this reconciler patches only its
// own fields.
type PartnerReconciler struct {
	Client client.Client
	// APIReader reads the referenced Secrets directly, so their data is never cached.
	APIReader client.Reader
	Now       func() time.Time
	// Wake, when set, is a test's source of extra reconcile requests (withWake).
	Wake source.Source
	// Tiers gives the limits in effect (status.limits); the built-in table when nil.
	Tiers tiers.Table

	lists listMemo
}

// listMemo is the sanctions list's assessment for the version of its ConfigMap last read: a
// change is read once, not once per partner.
type listMemo struct {
	mu sync.Mutex
	// version is namespace/resourceVersion ("namespace/" for no ConfigMap).
	version string
	a       screening.Assessment
}

// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=partners,verbs=get;list;watch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=partners/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,resourceNames=swaprouter-sanctions,verbs=get;list;watch

// SetupWithManager registers the controller.
func (r *PartnerReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Tiers == nil {
		r.Tiers = tiers.Default()
	}
	return withWake(ctrl.NewControllerManagedBy(mgr), r.Wake).
		Named("partner").
		// Quota flushes change status often; only spec changes need a new look.
		For(&swapv1.Partner{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// The list's ConfigMap concerns every partner of its namespace.
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.partnersOf),
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == sdnwatch.ConfigMapName }))).
		Complete(r)
}

// partnersOf are the Partners of the sanctions list ConfigMap's namespace.
func (r *PartnerReconciler) partnersOf(ctx context.Context, cm client.Object) []reconcile.Request {
	var list swapv1.PartnerList
	if err := r.Client.List(ctx, &list, client.InNamespace(cm.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing partners for the sanctions list's condition")
		return nil
	}
	out := make([]reconcile.Request, len(list.Items))
	for i, p := range list.Items {
		out[i] = reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&p)}
	}
	return out
}

// sanctionsList is what the namespace's sanctions list ConfigMap is worth, read as every
// frontend replica reads it.
func (r *PartnerReconciler) sanctionsList(ctx context.Context, namespace string) (screening.Assessment, error) {
	var cm corev1.ConfigMap
	found := &cm
	switch err := r.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sdnwatch.ConfigMapName}, &cm); {
	case apierrors.IsNotFound(err):
		found = nil
	case err != nil:
		return screening.Assessment{}, err
	}
	r.lists.mu.Lock()
	defer r.lists.mu.Unlock()
	if version := namespace + "/" + cm.ResourceVersion; version != r.lists.version {
		a := screening.Assess(sdnwatch.Published(found))
		// The condition needs the verdict, not the table.
		a.List = nil
		r.lists.version, r.lists.a = version, a
	}
	return r.lists.a, nil
}

// Reconcile assesses one Partner and writes its status when the assessment changed.
func (r *PartnerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var p swapv1.Partner
	if err := r.Client.Get(ctx, req.NamespacedName, &p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	secrets, err := r.secretKeys(ctx, p.Namespace, partners.SecretNames(p.Spec))
	if err != nil {
		return ctrl.Result{}, err
	}
	list, err := r.sanctionsList(ctx, p.Namespace)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.Now()
	health := partners.Assess(p.Spec, secrets, now)

	orig := p.DeepCopy()
	p.Status.ActiveKeys = health.ActiveKeys
	limits := r.Tiers.InEffect(&p)
	p.Status.Limits = &limits
	p.Status.ObservedGeneration = p.Generation
	status := metav1.ConditionFalse
	if health.Ready {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{
		Type: swapv1.ConditionReady, Status: status, Reason: health.Reason, Message: health.Message,
		ObservedGeneration: p.Generation,
	})
	sanctions := screening.ListCondition(list, p.Spec.Screening)
	sanctions.ObservedGeneration = p.Generation
	meta.SetStatusCondition(&p.Status.Conditions, sanctions)
	if !equality.Semantic.DeepEqual(orig.Status, p.Status) {
		// A merge patch without a resourceVersion touches only these fields, so it never
		// conflicts with the frontend's quota flushes.
		if err := r.Client.Status().Patch(ctx, &p, client.MergeFrom(orig)); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	next := partnerRecheck
	if !health.NextExpiry.IsZero() && health.NextExpiry.Sub(now) < next {
		next = health.NextExpiry.Sub(now) + time.Second
	}
	return ctrl.Result{RequeueAfter: next}, nil
}

func (r *PartnerReconciler) secretKeys(ctx context.Context, namespace string, names []string) (partners.SecretKeys, error) {
	out := partners.SecretKeys{}
	for _, name := range names {
		if _, done := out[name]; done {
			continue
		}
		var s corev1.Secret
		switch err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &s); {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, err
		}
		keys := map[string]bool{}
		for k := range s.Data {
			keys[k] = true
		}
		out[name] = keys
	}
	return out, nil
}
