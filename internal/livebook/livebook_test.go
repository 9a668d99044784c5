package livebook

import (
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
)

func order(partner string, n int, status swapv1.OrderStatus) *swapv1.SwapOrder {
	return &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Namespace: "swap", CreationTimestamp: metav1.NewTime(time.Unix(1_700_000_000+int64(n/2), 0))},
		Spec:       swapv1.SwapOrderSpec{OrderID: fmt.Sprintf("ord_%026d", n), Partner: partner},
		Status:     swapv1.SwapOrderStatus{Status: status},
	}
}

func ids(orders []*swapv1.SwapOrder) []string {
	out := make([]string, len(orders))
	for i, o := range orders {
		out[i] = o.Spec.OrderID[len(o.Spec.OrderID)-2:]
	}
	return out
}

// The book follows the informer's adds, updates and deletes (also tombstones) and answers a
// page's newest live orders in listing order, after a cursor and through filters, never
// another partner's or another namespace's.
func TestBookFollowsEventsAndPages(t *testing.T) {
	b := New("swap")
	woken := 0
	h := b.Handler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { woken++ },
		UpdateFunc: func(_, _ any) { woken++ },
		DeleteFunc: func(any) { woken++ },
	})
	for _, n := range []int{5, 1, 9, 3, 7, 2, 8, 4, 6} { // any arrival order
		h.OnAdd(order("acme", n, swapv1.OrderPending), true)
	}
	h.OnAdd(order("globex", 10, swapv1.OrderPending), false)
	other := order("acme", 11, swapv1.OrderPending)
	other.Namespace = "elsewhere"
	h.OnAdd(other, false)

	processing := order("acme", 4, swapv1.OrderProcessing)
	h.OnUpdate(order("acme", 4, swapv1.OrderPending), processing)
	h.OnDelete(order("acme", 9, swapv1.OrderPending))
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "swap/x", Obj: order("acme", 1, swapv1.OrderPending)})
	if woken != 14 {
		t.Errorf("the next handler saw %d events, want 14", woken)
	}

	after := archive.PositionOf(order("acme", 6, ""))
	for _, tc := range []struct {
		name string
		q    archive.Query
		want []string
	}{
		{"newest limit+1", archive.Query{Partner: "acme", Limit: 3}, []string{"08", "07", "06", "05"}},
		{"after a cursor", archive.Query{Partner: "acme", Limit: 10, After: &after}, []string{"05", "04", "03", "02"}},
		{"filtered", archive.Query{Partner: "acme", Limit: 10, Status: swapv1.OrderProcessing}, []string{"04"}},
		{"another partner", archive.Query{Partner: "globex", Limit: 10}, []string{"10"}},
		{"no such partner", archive.Query{Partner: "initech", Limit: 10}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.Newest(tc.q)
			if !slices.Equal(ids(got), tc.want) {
				t.Fatalf("Newest = %v, want %v", ids(got), tc.want)
			}
			for _, o := range got {
				if o.Spec.OrderID == processing.Spec.OrderID && o != processing {
					t.Fatal("an updated order is listed in its old version")
				}
			}
		})
	}
}

// A create answered from the cache before the informer's handlers ran: Ensure adds the order
// so the partner's next listing shows it, and never puts back an older version over the
// handlers' newer one.
func TestEnsureAddsOnlyWhatIsMissing(t *testing.T) {
	b := New("swap")
	q := archive.Query{Partner: "acme", Limit: 10}
	b.Ensure(order("acme", 1, swapv1.OrderPending))
	if got := b.Newest(q); len(got) != 1 || got[0].Status.Status != swapv1.OrderPending {
		t.Fatalf("after Ensure: %v", got)
	}
	b.Put(order("acme", 1, swapv1.OrderProcessing))
	b.Ensure(order("acme", 1, swapv1.OrderPending))
	if got := b.Newest(q); len(got) != 1 || got[0].Status.Status != swapv1.OrderProcessing {
		t.Fatalf("Ensure replaced the newer version: %v", got[0].Status.Status)
	}
	b.Ensure(&swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Namespace: "other"}, Spec: swapv1.SwapOrderSpec{OrderID: "ord_x", Partner: "acme"}})
	if got := b.Newest(q); len(got) != 1 {
		t.Fatalf("another namespace's order entered the book: %d orders", len(got))
	}
}
