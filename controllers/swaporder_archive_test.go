package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// memArchive is an archive in memory that can be taken down.
type memArchive struct {
	mu      sync.Mutex
	down    bool
	puts    int
	entries map[string]archive.Entry
}

func (a *memArchive) Put(_ context.Context, e archive.Entry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.down {
		return fmt.Errorf("%w: connection refused", archive.ErrUnavailable)
	}
	if a.entries == nil {
		a.entries = map[string]archive.Entry{}
	}
	a.puts++
	a.entries[e.Order.Spec.OrderID] = archive.Entry{Order: e.Order.DeepCopy(), Deliveries: e.Deliveries}
	return nil
}

func (a *memArchive) get(id string) (archive.Entry, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.entries[id]
	return e, ok
}

// The order only ever leaves etcd after the archive confirmed it, whatever fails in between:
// the archive being down, a crash after the archive write but before the archived mark, the
// archive being down again when the TTL has passed.
func TestUnitArchiveBeforeDelete(t *testing.T) {
	g := newUnitRig(t)
	arch := &memArchive{down: true}
	g.r.Archive = arch
	sweeper := &OrderTTLSweeper{Client: g.c, Reader: g.c, Archive: arch, Namespace: "ns", TTL: time.Hour,
		Now: func() time.Time { return g.now }, Log: logr.Discard(), Metrics: prometheus.NewRegistry()}
	sweeper.registerMetrics()
	sweep := func() int {
		t.Helper()
		n, err := sweeper.Sweep(context.Background())
		if err != nil && !errors.Is(err, archive.ErrUnavailable) {
			t.Fatal(err)
		}
		return n
	}
	exists := func() bool {
		err := g.c.Get(context.Background(), g.key, &swapv1.SwapOrder{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}

	// The order ends while the archive is down: it stays, and says why.
	g.p.createErr = &provider.Error{Kind: provider.KindRefused}
	if res := g.settle(); res.RequeueAfter != DefaultArchiveRetry {
		t.Fatalf("archive down: comes back in %v, want %v", res.RequeueAfter, DefaultArchiveRetry)
	}
	if c := condition(g.order(), ConditionArchived); c.Status != metav1.ConditionFalse || c.Reason != "ArchiveUnavailable" {
		t.Fatalf("Archived condition while down: %+v", c)
	}
	g.now = g.now.Add(2 * time.Hour)
	if sweep(); !exists() {
		t.Fatal("an order the archive never held was deleted")
	}

	// The archive is back, but we "crash" between its write and the archived mark.
	arch.mu.Lock()
	arch.down = false
	arch.mu.Unlock()
	healthy := g.r.Client
	g.r.Client = interceptor.NewClient(noWatch{g.c}, interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return errors.New("process killed")
		},
	})
	if _, err := g.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: g.key}); err == nil {
		t.Fatal("the archived mark could not be written, yet the reconcile succeeded")
	}
	if _, ok := arch.get(g.order().Spec.OrderID); !ok {
		t.Fatal("the archive write did not happen")
	}
	if sweep(); !exists() {
		t.Fatal("deleted an order that is not marked archived")
	}

	// After the restart the step repeats: the same record again, then the mark.
	g.r.Client = healthy
	g.step()
	o := g.order()
	if o.Labels[swapv1.LabelArchived] != "true" || condition(o, ConditionArchived).Status != metav1.ConditionTrue {
		t.Fatalf("not marked archived: labels %v, conditions %+v", o.Labels, o.Status.Conditions)
	}
	if arch.puts != 2 {
		t.Fatalf("%d archive writes, want 2 (one before the crash, one after)", arch.puts)
	}

	// TTL passed but the archive is down again: the final write fails, so no delete.
	arch.mu.Lock()
	arch.down = true
	arch.mu.Unlock()
	if sweep(); !exists() {
		t.Fatal("deleted while the archive could not take the final record")
	}
	arch.mu.Lock()
	arch.down = false
	arch.mu.Unlock()
	if n := sweep(); n != 1 || exists() {
		t.Fatalf("sweep deleted %d, order exists %v; want it gone", n, exists())
	}
	if e, _ := arch.get(o.Spec.OrderID); e.Order.Status.Status != swapv1.OrderFailed || e.Order.Status.LastSeq != 1 {
		t.Fatalf("final archive record: %+v", e.Order.Status)
	}
}

func TestDeletableAfterTTL(t *testing.T) {
	ended := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	terminal := func(labels map[string]string) *swapv1.SwapOrder {
		o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Labels: labels, CreationTimestamp: metav1.NewTime(ended.Add(-time.Hour))}}
		o.Status.Status = swapv1.OrderSuccess
		o.Status.History = []swapv1.StatusTransition{{Seq: 1, Status: swapv1.OrderSuccess, At: swapv1.NewPreciseTime(ended)}}
		o.Status.LastSeq = 1
		return o
	}
	archived := map[string]string{swapv1.LabelArchived: "true"}
	live := terminal(archived)
	live.Status.Status = swapv1.OrderPending
	delivered := []archive.Delivery{{EventID: "evt_1", Phase: swapv1.DeliveryDelivered}, {EventID: "evt_2", Phase: swapv1.DeliveryFailed}}
	retrying := []archive.Delivery{{EventID: "evt_1", Phase: swapv1.DeliveryDelivered}, {EventID: "evt_2", Phase: swapv1.DeliveryPending}}
	for _, tc := range []struct {
		name       string
		order      *swapv1.SwapOrder
		deliveries []archive.Delivery
		now        time.Time
		want       bool
	}{
		{"archived, TTL passed, deliveries settled", terminal(archived), delivered, ended.Add(time.Hour), true},
		{"TTL not passed", terminal(archived), delivered, ended.Add(59 * time.Minute), false},
		{"not archived", terminal(nil), delivered, ended.Add(48 * time.Hour), false},
		{"a webhook still retrying", terminal(archived), retrying, ended.Add(48 * time.Hour), false},
		{"not terminal", live, nil, ended.Add(48 * time.Hour), false},
	} {
		if got, why := DeletableAfterTTL(tc.order, tc.deliveries, time.Hour, tc.now); got != tc.want {
			t.Errorf("%s: DeletableAfterTTL = %v (%s), want %v", tc.name, got, why, tc.want)
		}
	}
}

func TestSweepInterval(t *testing.T) {
	for _, tc := range []struct{ ttl, want time.Duration }{
		{0, time.Minute}, // DefaultOrderTTL
		{time.Hour, time.Minute},
		{10 * time.Minute, time.Minute},
		{2 * time.Minute, 30 * time.Second},
		{3 * time.Second, time.Second},
		{100 * time.Millisecond, time.Second},
	} {
		if got := SweepInterval(tc.ttl); got != tc.want {
			t.Errorf("SweepInterval(%v) = %v, want %v", tc.ttl, got, tc.want)
		}
	}
}
