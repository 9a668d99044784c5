package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/metricsreg"
	"github.com/swaprouter/swaprouter/internal/orders"
)

// OrderArchiver is what the order reconciler and the TTL sweep need of the archive.
type OrderArchiver interface {
	Put(ctx context.Context, e archive.Entry) error
}

// ConditionArchived tells whether the archive holds the terminal order (False while it
// cannot be written: the order then stays in etcd).
const ConditionArchived = "Archived"

const (
	// DefaultOrderTTL is how long an archived terminal order stays in etcd.
	DefaultOrderTTL = time.Hour
	// DefaultArchiveRetry is the wait before writing to an unavailable archive again.
	DefaultArchiveRetry = 30 * time.Second
)

// archiveOrder writes the terminal order to the archive (the step's call) and, once the
// archive confirmed it, has the effect label it archived: the label is the only thing that
// ever lets the order be deleted. A crash between the two writes repeats the (idempotent)
// archive write. Without an archive terminal orders simply stay in etcd.
func (r *SwapOrderReconciler) archiveOrder(ctx context.Context, p *orderPass) ctrl.Result {
	o := p.order
	if r.Archive == nil {
		return r.wake(p)
	}
	deliveries, err := deliverySummary(ctx, r.Client, o)
	if err != nil {
		p.effect.err = err
		return ctrl.Result{}
	}
	err = r.Archive.Put(ctx, archive.Entry{Order: o, Deliveries: deliveries})
	return r.archiveOutcome(p, err)
}

// archiveOutcome decides what the archive's answer means: retry later while it cannot be
// written, else the label.
func (r *SwapOrderReconciler) archiveOutcome(p *orderPass, err error) ctrl.Result {
	o := p.order
	if err != nil {
		p.effect.count(r.metrics.archiveWrites, archiveOutcome(err))
		setArchived(&o.Status, o.Generation, false, "ArchiveUnavailable",
			"the order archive cannot be written; the order stays in etcd until it can", p.now)
		p.log.Info("archive write failed; keeping the order and retrying", "error", err.Error(), "retryIn", r.ArchiveRetry)
		return ctrl.Result{RequeueAfter: r.ArchiveRetry}
	}
	p.effect.count(r.metrics.archiveWrites, "ok")
	setArchived(&o.Status, o.Generation, true, "Archived", "the order archive holds this order", p.now)
	p.effect.labelArchived = true
	return r.wake(p)
}

// labelArchived writes the archived label (opLabelArchived), optimistically locked on the
// version read. The patch answers the stored status; the pass's (Archived, a lifted pause)
// is written after it, on the labelled version.
func (r *SwapOrderReconciler) labelArchived(ctx context.Context, p *orderPass) error {
	o := p.order
	base := o.DeepCopy()
	if o.Labels == nil {
		o.Labels = map[string]string{}
	}
	o.Labels[swapv1.LabelArchived] = "true"
	readVersion := base.ResourceVersion
	pass := o.Status.DeepCopy()
	if err := r.Patch(ctx, o, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("labelling the archived order: %w", err)
	}
	o.Status = *pass
	r.memory.wrote(client.ObjectKeyFromObject(o), readVersion, o.ResourceVersion)
	p.log.Info("order archived", "status", o.Status.Status)
	return nil
}

func archiveOutcome(err error) string {
	if errors.Is(err, archive.ErrUnavailable) {
		return "unavailable"
	}
	return "error"
}

func setArchived(st *swapv1.SwapOrderStatus, gen int64, ok bool, reason, msg string, now time.Time) {
	s := metav1.ConditionFalse
	if ok {
		s = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: ConditionArchived, Status: s, Reason: reason,
		Message: msg, ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(now)})
}

// deliverySummary lists the order's webhook deliveries (from the cache, by order id).
func deliverySummary(ctx context.Context, c client.Reader, o *swapv1.SwapOrder) ([]archive.Delivery, error) {
	items, err := index.OrderDeliveries(ctx, c, o.Namespace, o.Spec.OrderID, client.UnsafeDisableDeepCopy)
	if err != nil {
		return nil, fmt.Errorf("listing the order's deliveries: %w", err)
	}
	out := make([]archive.Delivery, 0, len(items))
	for _, d := range items {
		sum := archive.Delivery{Name: d.Name, EventID: d.Spec.EventID, Sequence: d.Spec.Sequence, Phase: d.Status.Phase,
			Attempts: d.Status.AttemptCount, LastCode: d.Status.LastCode}
		if d.Status.CompletedAt != nil {
			t := d.Status.CompletedAt.UTC()
			sum.CompletedAt = &t
		}
		out = append(out, sum)
	}
	return out, nil
}

// DeletableAfterTTL decides whether the TTL sweep may delete an order now: archived (the
// label), its TTL passed, and no webhook still being delivered (deleting the order deletes
// its deliveries, and a partner must not lose an event to the sweep).
func DeletableAfterTTL(o *swapv1.SwapOrder, deliveries []archive.Delivery, ttl time.Duration, now time.Time) (bool, string) {
	if o.Labels[swapv1.LabelArchived] != "true" {
		return false, "not archived"
	}
	until, terminal := orders.RetainUntil(&o.Status, o.CreationTimestamp.Time, ttl)
	if !terminal {
		return false, "not terminal"
	}
	if now.Before(until) {
		return false, "TTL not passed"
	}
	for _, d := range deliveries {
		if d.Phase != swapv1.DeliveryDelivered && d.Phase != swapv1.DeliveryFailed {
			return false, "webhook " + d.EventID + " still being delivered"
		}
	}
	return true, ""
}

func newTTLDeletions(reg prometheus.Registerer) prometheus.Counter {
	return metricsreg.MustRegister(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "swaprouter",
		Subsystem: "order",
		Name:      "ttl_deletions_total",
		Help:      "Archived terminal SwapOrders deleted from etcd after their TTL.",
	}))
}

// OrderTTLSweeper deletes archived terminal orders (and, through owner references, their
// WebhookDeliveries) once their TTL has passed, as Argo Workflows' TTL controller does.
// Archived orders are outside the cache, so it lists them from the API server by label,
// page by page. Before deleting it writes the order again with its final delivery summary;
// while the archive is down nothing is deleted. As the only component that sees archived
// orders, it also answers operator requests written on them (settleArchivedRequests). It
// runs on the leader only.
type OrderTTLSweeper struct {
	// Client deletes and reads deliveries (cached); Reader lists archived orders (uncached).
	Client client.Client
	Reader client.Reader
	// Recorder reports what became of operator requests on archived orders.
	Recorder events.EventRecorder
	// Archive confirms the final record before a delete.
	Archive   OrderArchiver
	Namespace string
	// TTL is how long an archived order stays; DefaultOrderTTL when zero.
	TTL time.Duration
	// Interval between sweeps; SweepInterval(TTL) when zero.
	Interval time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	Log logr.Logger
	// Metrics is where the sweeper's deletions and archive writes are counted; nil:
	// controller-runtime's registry.
	Metrics prometheus.Registerer

	deleted       prometheus.Counter
	archiveWrites *prometheus.CounterVec
}

// SetupWithManager registers the sweeper's metrics and adds it to mgr.
func (s *OrderTTLSweeper) SetupWithManager(mgr ctrl.Manager) error {
	s.registerMetrics()
	return mgr.Add(s)
}

func (s *OrderTTLSweeper) registerMetrics() {
	s.deleted = newTTLDeletions(s.Metrics)
	s.archiveWrites = metricsreg.MustRegister(s.Metrics, newArchiveWrites())
}

// Start sweeps every Interval until ctx ends.
func (s *OrderTTLSweeper) Start(ctx context.Context) error {
	if s.Interval <= 0 {
		s.Interval = SweepInterval(s.TTL)
	}
	tick := time.NewTicker(s.Interval)
	defer tick.Stop()
	for {
		if n, err := s.Sweep(ctx); err != nil {
			s.Log.Info("TTL sweep incomplete; retrying next round", "deleted", n, "error", err.Error())
		} else if n > 0 {
			s.Log.Info("TTL sweep deleted archived orders", "deleted", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// SweepInterval is how often the sweep runs for a TTL (DefaultOrderTTL when zero): a quarter
// of it, so an order leaves etcd at most a quarter TTL late, from a second (each sweep lists
// from the API server) to a minute.
func SweepInterval(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		ttl = DefaultOrderTTL
	}
	return min(max(ttl/4, time.Second), time.Minute)
}

// sweepPage bounds each list call: the sweep never holds all archived orders in memory.
const sweepPage = 500

// Sweep deletes every archived order whose TTL has passed and returns how many it deleted.
func (s *OrderTTLSweeper) Sweep(ctx context.Context) (int, error) {
	ttl, now := s.TTL, time.Now
	if ttl <= 0 {
		ttl = DefaultOrderTTL
	}
	if s.Now != nil {
		now = s.Now
	}
	deleted, cont := 0, ""
	var errs []error
	for {
		var list swapv1.SwapOrderList
		if err := s.Reader.List(ctx, &list, client.InNamespace(s.Namespace), client.MatchingLabels{swapv1.LabelArchived: "true"},
			client.Limit(sweepPage), client.Continue(cont)); err != nil {
			return deleted, errors.Join(append(errs, err)...)
		}
		for i := range list.Items {
			if o := &list.Items[i]; hasOperatorRequest(o) {
				if err := settleArchivedRequests(ctx, s.Client, s.Reader, s.Recorder, s.Log, o); err != nil {
					errs = append(errs, fmt.Errorf("order %s: operator request: %w", o.Spec.OrderID, err))
				}
			}
			ok, err := s.sweepOne(ctx, &list.Items[i], ttl, now())
			if err != nil {
				errs = append(errs, fmt.Errorf("order %s: %w", list.Items[i].Spec.OrderID, err))
				if errors.Is(err, archive.ErrUnavailable) {
					// The archive is down: nothing else can be deleted this round either.
					return deleted, errors.Join(errs...)
				}
			}
			if ok {
				deleted++
			}
		}
		if cont = list.Continue; cont == "" {
			return deleted, errors.Join(errs...)
		}
	}
}

func (s *OrderTTLSweeper) sweepOne(ctx context.Context, o *swapv1.SwapOrder, ttl time.Duration, now time.Time) (bool, error) {
	deliveries, err := deliverySummary(ctx, s.Client, o)
	if err != nil {
		return false, err
	}
	if ok, _ := DeletableAfterTTL(o, deliveries, ttl, now); !ok {
		return false, nil
	}
	if err := s.Archive.Put(ctx, archive.Entry{Order: o, Deliveries: deliveries}); err != nil {
		s.archiveWrites.WithLabelValues(archiveOutcome(err)).Inc()
		return false, err
	}
	s.archiveWrites.WithLabelValues("ok").Inc()
	// The preconditions make a delete of anything but the version just archived fail.
	err = s.Client.Delete(ctx, o, client.Preconditions{UID: &o.UID, ResourceVersion: &o.ResourceVersion},
		client.PropagationPolicy(metav1.DeletePropagationBackground))
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.deleted.Inc()
	s.Log.Info("deleted archived order after its TTL", "orderId", o.Spec.OrderID, "status", o.Status.Status)
	// The garbage collector removes them through their owner reference in a cluster; a bare
	// control plane (make run, envtest) has none. A crash here leaves them to the delivery
	// reconciler's own retention.
	for _, d := range deliveries {
		wd := &swapv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: d.Name}}
		if err := s.Client.Delete(ctx, wd); client.IgnoreNotFound(err) != nil {
			return true, fmt.Errorf("deleting delivery %s: %w", d.Name, err)
		}
	}
	return true, nil
}
