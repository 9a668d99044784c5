package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/orders"
)

// memArchive answers like archive.Postgres from memory and can be taken down.
type memArchive struct {
	mu       sync.Mutex
	down     bool
	orders   map[string]*swapv1.SwapOrder
	reserved map[string]archive.Reservation
	// pending are the reservations Reserve made whose orders were not archived since; aged
	// those made longer than archive.StaleAfter ago.
	pending, aged map[string]bool
}

func newMemArchive() *memArchive {
	return &memArchive{orders: map[string]*swapv1.SwapOrder{}, reserved: map[string]archive.Reservation{},
		pending: map[string]bool{}, aged: map[string]bool{}}
}

// age plays archive.StaleAfter passing since the reservation of id was made.
func (a *memArchive) age(id string) {
	a.mu.Lock()
	a.aged[id] = true
	a.mu.Unlock()
}

// holding is the reservation of partner's clientReference ref (zero when none).
func (a *memArchive) holding(partner, ref string) archive.Reservation {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.reserved {
		if r.Partner == partner && r.ClientReference == ref {
			r.Stale = a.pending[r.OrderID] && a.aged[r.OrderID]
			return r
		}
	}
	return archive.Reservation{}
}

func (a *memArchive) setDown(down bool) {
	a.mu.Lock()
	a.down = down
	a.mu.Unlock()
}

func (a *memArchive) unavailable() error {
	if a.down {
		return fmt.Errorf("%w: connection refused", archive.ErrUnavailable)
	}
	return nil
}

// put archives o as the reconciler does when it ends.
func (a *memArchive) put(o *swapv1.SwapOrder) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.orders[o.Spec.OrderID] = o.DeepCopy()
	delete(a.pending, o.Spec.OrderID)
	if _, ok := a.reserved[o.Spec.OrderID]; !ok {
		a.reserved[o.Spec.OrderID] = archive.Reservation{OrderID: o.Spec.OrderID, Partner: o.Spec.Partner,
			IdempotencyKeyHash: o.Spec.IdempotencyKeyHash, ClientReference: o.Spec.ClientReference}
	}
}

func (a *memArchive) Get(_ context.Context, partner, id string) (*swapv1.SwapOrder, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	o, ok := a.orders[id]
	if !ok || o.Spec.Partner != partner {
		return nil, archive.ErrNotFound
	}
	return o.DeepCopy(), nil
}

func (a *memArchive) List(_ context.Context, q archive.Query) ([]*swapv1.SwapOrder, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.unavailable(); err != nil {
		return nil, err
	}
	var all []*swapv1.SwapOrder
	for _, o := range a.orders {
		all = append(all, o.DeepCopy())
	}
	return archiveStub(all, q), nil
}

// EachEndedSince gives the partner's orders that ended at or after since, in no set order.
func (a *memArchive) EachEndedSince(_ context.Context, partner, orderID string, since time.Time, fn func(*swapv1.SwapOrder) error) error {
	a.mu.Lock()
	var match []*swapv1.SwapOrder
	for _, o := range a.orders {
		ended, ok := orders.TerminalAt(&o.Status)
		if o.Spec.Partner == partner && (orderID == "" || o.Spec.OrderID == orderID) && (!ok || !ended.Before(&metav1.Time{Time: since})) {
			match = append(match, o.DeepCopy())
		}
	}
	err := a.unavailable()
	a.mu.Unlock()
	if err != nil {
		return err
	}
	for _, o := range match {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

func (a *memArchive) Reserve(_ context.Context, r archive.Reservation) (archive.Reservation, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.unavailable(); err != nil {
		return archive.Reservation{}, err
	}
	if got, ok := a.reserved[r.OrderID]; ok {
		got.Stale = a.pending[r.OrderID] && a.aged[r.OrderID]
		return got, nil
	}
	for _, other := range a.reserved {
		if r.ClientReference != "" && other.Partner == r.Partner && other.ClientReference == r.ClientReference {
			return archive.Reservation{}, &archive.ReferenceTakenError{ClientReference: r.ClientReference, OrderID: other.OrderID,
				Stale: a.pending[other.OrderID] && a.aged[other.OrderID]}
		}
	}
	a.reserved[r.OrderID] = r
	a.pending[r.OrderID] = true
	return r, nil
}

func (a *memArchive) Holder(_ context.Context, partner, ref string) (archive.Reservation, error) {
	a.mu.Lock()
	err := a.unavailable()
	a.mu.Unlock()
	if err != nil {
		return archive.Reservation{}, err
	}
	if r := a.holding(partner, ref); r.OrderID != "" {
		return r, nil
	}
	return archive.Reservation{}, archive.ErrNotFound
}

func (a *memArchive) Release(_ context.Context, orderID string, olderThan time.Duration) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.unavailable(); err != nil {
		return false, err
	}
	if !a.pending[orderID] || (olderThan > 0 && !a.aged[orderID]) {
		return false, nil
	}
	delete(a.reserved, orderID)
	delete(a.pending, orderID)
	delete(a.aged, orderID)
	return true, nil
}

// archiveHarness is the handler harness with arch as its archive.
func archiveHarness(t *testing.T) (*harness, *memArchive) {
	h := newHarness(t)
	arch := newMemArchive()
	h.srv.opts.Archive = arch
	return h, arch
}

// leaveEtcd plays the order's whole end: archived, then deleted by the TTL sweep.
func (h *harness) leaveEtcd(arch *memArchive, id string, status swapv1.OrderStatus) {
	h.t.Helper()
	h.writeStatus(orderid.ObjectName(id), func(o *swapv1.SwapOrder) { o.Status.Status = status })
	o := h.order(id)
	arch.put(o)
	if err := h.client.Delete(context.Background(), o); err != nil {
		h.t.Fatal(err)
	}
}

// An Idempotency-Key reused after its order left etcd gets the archived order (the same
// id and deposit address, now with its end), never a new order; another body with that key
// is still refused; while the archive is down nothing is created.
func TestKeyReusedAfterArchive(t *testing.T) {
	h, arch := archiveHarness(t)
	keyed := func(body map[string]any) req {
		return req{method: "POST", path: "/v1/order", body: body, headers: map[string]string{"Idempotency-Key": "checkout-7"}}
	}
	first := decode[wire.Order](t, h.do(keyed(orderBody())), http.StatusCreated)
	h.leaveEtcd(arch, first.ID, swapv1.OrderSuccess)

	again := decode[wire.Order](t, h.do(keyed(orderBody())), http.StatusCreated)
	if again.ID != first.ID || *again.DepositAddress != *first.DepositAddress || again.Status != wire.OrderStatusSUCCESS {
		t.Errorf("reused key answered %+v, want the archived order %s", again, first.ID)
	}
	if n := h.orderCount(); n != 0 {
		t.Errorf("%d SwapOrders after the reuse, want none (the order is archived)", n)
	}
	expectError(t, h.do(keyed(with(orderBody(), "amount", "7000"))), apierror.IdempotencyKeyReused)

	arch.setDown(true)
	expectError(t, h.do(keyed(orderBody())), apierror.ArchiveUnavailable)
	if n := h.orderCount(); n != 0 {
		t.Errorf("%d SwapOrders created while the archive was down, want none", n)
	}
	// An order with neither key nor reference needs no history: unaffected.
	decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
}

// Archived orders read as live ones did; another partner's archived order is a 404; while
// the archive is down its orders answer 503 and live ones are unaffected.
func TestArchivedOrderReads(t *testing.T) {
	h, arch := archiveHarness(t)
	ended := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
	live := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
	h.leaveEtcd(arch, ended.ID, swapv1.OrderRefunded)

	got := decode[wire.Order](t, h.do(req{method: "GET", path: "/v1/order/" + ended.ID}), http.StatusOK)
	if got.ID != ended.ID || got.Status != wire.OrderStatusREFUNDED || *got.DepositAddress != *ended.DepositAddress {
		t.Errorf("archived order read as %+v", got)
	}
	expectError(t, h.do(req{method: "GET", path: "/v1/order/" + ended.ID, keyID: globexKey, secret: globexSec}), apierror.OrderNotFound)
	expectError(t, h.do(req{method: "GET", path: "/v1/order/" + orderid.New()}), apierror.OrderNotFound)
	page := decode[wire.OrderPage](t, h.do(req{method: "GET", path: "/v1/orders"}), http.StatusOK)
	if len(page.Orders) != 2 {
		t.Errorf("listing has %d orders, want the live and the archived one", len(page.Orders))
	}

	arch.setDown(true)
	body := expectError(t, h.do(req{method: "GET", path: "/v1/order/" + ended.ID}), apierror.ArchiveUnavailable)
	if body["detail"] == "" {
		t.Error("503 without a detail")
	}
	expectError(t, h.do(req{method: "GET", path: "/v1/orders"}), apierror.ArchiveUnavailable)
	decode[wire.Order](t, h.do(req{method: "GET", path: "/v1/order/" + live.ID}), http.StatusOK)

	arch.setDown(false)
	decode[wire.Order](t, h.do(req{method: "GET", path: "/v1/order/" + ended.ID}), http.StatusOK)
}

// A clientReference belongs to one order of the partner, live or archived: a second order
// with it is a 409 naming the first; another partner may use the same reference.
func TestClientReferenceTaken(t *testing.T) {
	h, arch := archiveHarness(t)
	withRef := with(orderBody(), "clientReference", "invoice-9")
	first := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: withRef}), http.StatusCreated)
	if first.ClientReference == nil || *first.ClientReference != "invoice-9" {
		t.Fatalf("clientReference not returned: %+v", first)
	}
	conflict := func() {
		t.Helper()
		rec := h.do(req{method: "POST", path: "/v1/order", body: withRef})
		body := decode[map[string]any](t, rec, http.StatusConflict)
		if body["error"] != string(apierror.ClientReferenceInUse) || body["orderId"] != first.ID {
			t.Errorf("duplicate reference answered %s, want %q naming %s", rec.Body, apierror.ClientReferenceInUse, first.ID)
		}
	}
	conflict() // live
	h.leaveEtcd(arch, first.ID, swapv1.OrderSuccess)
	conflict() // archived
	if n := h.orderCount(); n != 0 {
		t.Errorf("%d SwapOrders after the refused duplicates, want none", n)
	}
	decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: withRef, keyID: globexKey, secret: globexSec}), http.StatusCreated)
}
