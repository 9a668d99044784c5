package archive

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func pageOrder(n int, status swapv1.OrderStatus) swapv1.SwapOrder {
	return swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Unix(1_700_000_000+int64(n/4), 0))},
		Spec:       swapv1.SwapOrderSpec{OrderID: fmt.Sprintf("ord_%026d", n), Partner: "acme"},
		Status:     swapv1.SwapOrderStatus{Status: status},
	}
}

func ids(page []*swapv1.SwapOrder) []string {
	out := make([]string, len(page))
	for i, o := range page {
		out[i] = o.Spec.OrderID
	}
	return out
}

// A page keeps only the newest limit+1 of many live orders, whatever their order in the
// cache, merges them with the archive's page, takes an order in both once (as live), and
// ends with a cursor exactly when more orders follow.
func TestMergePage(t *testing.T) {
	archivedOnly := func(n int) bool { return n%3 == 0 }
	inBoth := func(n int) bool { return n%5 == 0 }
	var live []*swapv1.SwapOrder
	var archived []*swapv1.SwapOrder
	for n := range 500 {
		if !archivedOnly(n) || inBoth(n) {
			o := pageOrder(n, swapv1.OrderProcessing)
			live = append(live, &o)
		}
		if archivedOnly(n) || inBoth(n) {
			o := pageOrder(n, swapv1.OrderSuccess)
			archived = append(archived, &o)
		}
	}
	rand.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	newestFirst := func(page []*swapv1.SwapOrder) []*swapv1.SwapOrder {
		slices.SortFunc(page, func(a, b *swapv1.SwapOrder) int {
			if PositionOf(a).Before(PositionOf(b)) {
				return -1
			}
			return 1
		})
		return page
	}
	archived = newestFirst(archived)
	archivedAfter := func(q Query) []*swapv1.SwapOrder { // as Postgres.List answers: limit+1 after the cursor
		var out []*swapv1.SwapOrder
		for _, o := range archived {
			if Matches(o, q) && len(out) <= q.Limit {
				out = append(out, o)
			}
		}
		return out
	}

	for _, tc := range []struct {
		name     string
		q        Query
		wantLen  int
		wantNext bool
	}{
		{"first page", Query{Partner: "acme", Limit: 20}, 20, true},
		{"processing only", Query{Partner: "acme", Status: swapv1.OrderProcessing, Limit: 100}, 100, true},
		{"another partner", Query{Partner: "globex", Limit: 20}, 0, false},
		{"everything in one page", Query{Partner: "acme", Limit: 500}, 500, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, next := MergePage(live, archivedAfter(tc.q), tc.q)
			// The expected page: every order once, the live copy when in both, newest first.
			var all []*swapv1.SwapOrder
			for n := range 500 {
				o := pageOrder(n, swapv1.OrderProcessing)
				if archivedOnly(n) && !inBoth(n) {
					o.Status.Status = swapv1.OrderSuccess
				}
				if Matches(&o, tc.q) {
					all = append(all, &o)
				}
			}
			want := newestFirst(all)[:min(len(all), tc.q.Limit)]
			if !slices.Equal(ids(page), ids(want)) || len(page) != tc.wantLen {
				t.Fatalf("page %v, want %v", ids(page), ids(want))
			}
			for i, o := range page {
				if o.Status.Status != want[i].Status.Status {
					t.Fatalf("%s listed as %s, want %s (the live copy)", o.Spec.OrderID, o.Status.Status, want[i].Status.Status)
				}
			}
			if (next != nil) != tc.wantNext || (next != nil && *next != PositionOf(page[len(page)-1])) {
				t.Fatalf("next cursor %v, want one: %v", next, tc.wantNext)
			}
		})
	}
}

// The archive is asked for one more than a page, and only for orders newer than the last of
// the live orders when those alone fill it: older archived orders cannot make the page.
func TestArchiveQuery(t *testing.T) {
	live := func(ns ...int) []*swapv1.SwapOrder {
		var out []*swapv1.SwapOrder
		for _, n := range ns {
			o := pageOrder(n, swapv1.OrderPending)
			out = append(out, &o)
		}
		return out
	}
	q := Query{Partner: "acme", Limit: 2}
	for _, tc := range []struct {
		name   string
		newest []*swapv1.SwapOrder
		above  *Position
	}{
		{"no live orders", nil, nil},
		{"fewer live orders than a page and one", live(9, 8), nil},
		{"live orders fill a page and one", live(9, 8, 7), &Position{CreatedAt: time.Unix(1_700_000_001, 0), OrderID: fmt.Sprintf("ord_%026d", 7)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			aq := ArchiveQuery(tc.newest, q)
			if aq.Limit != q.Limit+1 {
				t.Errorf("limit %d, want %d", aq.Limit, q.Limit+1)
			}
			if (aq.Above == nil) != (tc.above == nil) || aq.Above != nil && (!aq.Above.CreatedAt.Equal(tc.above.CreatedAt) || aq.Above.OrderID != tc.above.OrderID) {
				t.Errorf("above %v, want %v", aq.Above, tc.above)
			}
		})
	}
}
