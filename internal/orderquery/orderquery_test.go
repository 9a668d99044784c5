package orderquery

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// memArchive answers like archive.Postgres from a fixed set; down makes it unavailable.
type memArchive struct {
	orders []*swapv1.SwapOrder
	down   bool
}

func (a *memArchive) Lookup(_ context.Context, id string) (*swapv1.SwapOrder, error) {
	if a.down {
		return nil, archive.ErrUnavailable
	}
	for _, o := range a.orders {
		if o.Spec.OrderID == id {
			return o, nil
		}
	}
	return nil, archive.ErrNotFound
}

func (a *memArchive) List(_ context.Context, q archive.Query) ([]*swapv1.SwapOrder, error) {
	if a.down {
		return nil, archive.ErrUnavailable
	}
	var out []*swapv1.SwapOrder
	for _, o := range a.orders {
		if archive.Matches(o, q) {
			out = append(out, o)
		}
	}
	page, _ := archive.MergePage(nil, out, archive.Query{Partner: q.Partner, Limit: len(out)})
	return page[:min(len(page), q.Limit)], nil
}

// idOf is the n-th order id (n < 26).
func idOf(n int) string { return "ord_" + strings.Repeat("a", 25) + string(rune('a'+n)) }

func order(partner string, n int, status swapv1.OrderStatus) *swapv1.SwapOrder {
	id := idOf(n)
	o := &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: orderid.ObjectName(id), Namespace: "swap",
			CreationTimestamp: metav1.NewTime(time.Unix(1_700_000_000+int64(n), 0))},
		Spec: swapv1.SwapOrderSpec{OrderID: id, Partner: partner, ProviderID: "route_A"},
	}
	o.Status.Status = status
	return o
}

// rig: acme has live orders 1, 2 and 5 (5 also archived: between the archive write and the
// delete), archived 3 and 4; globex has live 6 and archived 7.
func rig(t *testing.T) (Reader, *memArchive) {
	t.Helper()
	arch := &memArchive{orders: []*swapv1.SwapOrder{order("acme", 3, swapv1.OrderSuccess),
		order("acme", 4, swapv1.OrderRefunded), order("acme", 5, swapv1.OrderSuccess), order("globex", 7, swapv1.OrderFailed)}}
	kube := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(order("acme", 1, swapv1.OrderPending),
		order("acme", 2, swapv1.OrderProcessing), order("acme", 5, swapv1.OrderSuccess), order("globex", 6, swapv1.OrderPending)).Build()
	return Reader{Kube: kube, Namespace: "swap", Archive: arch}, arch
}

func TestGetReadsLiveThenArchived(t *testing.T) {
	r, arch := rig(t)
	ctx := context.Background()
	for _, tc := range []struct {
		n    int
		want Source
	}{{1, Live}, {5, Live}, {3, Archived}, {7, Archived}} {
		got, err := r.Get(ctx, idOf(tc.n))
		if err != nil || got.Source != tc.want || got.Order.Spec.OrderID != idOf(tc.n) {
			t.Errorf("Get(%d) = %v %v, want from %s", tc.n, got, err, tc.want)
		}
	}
	if _, err := r.Get(ctx, idOf(20)); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown order: %v, want ErrNotFound", err)
	}
	if _, err := r.Get(ctx, "not-an-id"); err == nil {
		t.Error("a malformed id was looked up")
	}
	arch.down = true
	if _, err := r.Get(ctx, idOf(3)); !errors.Is(err, archive.ErrUnavailable) {
		t.Errorf("archive down: %v, want ErrUnavailable (not a false not-found)", err)
	}
	r.Archive = nil
	if _, err := r.Get(ctx, idOf(3)); !errors.Is(err, ErrNotFound) {
		t.Errorf("without an archive: %v, want ErrNotFound", err)
	}
}

func TestListMergesOnePartnersLiveAndArchivedOrders(t *testing.T) {
	r, _ := rig(t)
	ctx := context.Background()
	var got []string
	q := archive.Query{Partner: "acme", Limit: 2}
	for pages := 0; pages < 10; pages++ {
		page, next, err := r.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range page {
			got = append(got, fmt.Sprintf("%d:%s", f.Order.Spec.OrderID[len(f.Order.Spec.OrderID)-1]-'a', f.Source))
		}
		if next == nil {
			break
		}
		q.After = next
	}
	want := []string{"5:live", "4:archived", "3:archived", "2:live", "1:live"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("acme's orders %v, want %v (newest first, each once, no globex)", got, want)
	}
	page, _, err := r.List(ctx, archive.Query{Partner: "acme", Status: swapv1.OrderSuccess, Limit: 10})
	if err != nil || len(page) != 2 {
		t.Errorf("status filter: %d orders (%v), want 2", len(page), err)
	}
}
