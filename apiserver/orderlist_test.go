package apiserver

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/livebook"
)

func listedOrder(partner string, n int, status swapv1.OrderStatus) *swapv1.SwapOrder {
	o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Unix(1_700_000_000+int64(n/3), 0))},
		Spec: swapv1.SwapOrderSpec{OrderID: fmt.Sprintf("ord_%026d", n), Partner: partner, ProviderID: "route_A"}}
	o.Status.Status = status
	return o
}

// archiveStub answers like archive.Postgres.List over a fixed set.
func archiveStub(all []*swapv1.SwapOrder, q archive.Query) []*swapv1.SwapOrder {
	var out []*swapv1.SwapOrder
	for _, o := range all {
		if archive.Matches(o, q) {
			out = append(out, o)
		}
	}
	page, _ := archive.MergePage(nil, out, archive.Query{Partner: q.Partner, Limit: len(out)})
	if len(page) > q.Limit {
		page = page[:q.Limit]
	}
	return page
}

// Paging through live and archived orders (some in both, as between the archive write and
// the archived mark) lists each of the partner's orders exactly once, newest first, and never
// another partner's.
func TestMergePagePagesWithoutGapsOrDuplicates(t *testing.T) {
	var live []*swapv1.SwapOrder
	var archived []*swapv1.SwapOrder
	for n := range 1000 {
		switch {
		case n%7 == 0:
			live = append(live, listedOrder("globex", n, swapv1.OrderPending))
		case n%5 == 0: // archived, not yet deleted from etcd
			live = append(live, listedOrder("acme", n, swapv1.OrderSuccess))
			archived = append(archived, listedOrder("acme", n, swapv1.OrderSuccess))
		case n%2 == 0:
			live = append(live, listedOrder("acme", n, swapv1.OrderPending))
		default:
			archived = append(archived, listedOrder("acme", n, swapv1.OrderRefunded))
		}
	}
	want := 0
	for n := range 1000 {
		if n%7 != 0 {
			want++
		}
	}
	// The live orders as the frontend reads them: all of the partner's from the cache (no
	// informer), or the newest few from the book the informer feeds.
	book := livebook.New("")
	for _, o := range live {
		book.Put(o)
	}
	for name, liveOf := range map[string]func(archive.Query) []*swapv1.SwapOrder{
		"cache": func(archive.Query) []*swapv1.SwapOrder { return live },
		"book":  book.Newest,
	} {
		t.Run(name, func(t *testing.T) {
			seen := map[string]bool{}
			var cursor string
			var last *archive.Position
			for {
				v := url.Values{"limit": {"37"}}
				if cursor != "" {
					v.Set("cursor", cursor)
				}
				q, err := parseListQuery(v, "acme", testCursors)
				if err != nil {
					t.Fatal(err)
				}
				newest := archive.NewestMatches(liveOf(q), q)
				page, next := archive.MergePage(newest, archiveStub(archived, archive.ArchiveQuery(newest, q)), q)
				for _, o := range page {
					pos := archive.PositionOf(o)
					if o.Spec.Partner != "acme" || seen[o.Spec.OrderID] || (last != nil && !last.Before(pos)) {
						t.Fatalf("%s (%s) out of place: partner, repeat or order", o.Spec.OrderID, o.Spec.Partner)
					}
					seen[o.Spec.OrderID], last = true, &pos
				}
				if next == nil {
					break
				}
				cursor = encodeCursor(testCursors, orderCursorAt(*next))
			}
			if len(seen) != want {
				t.Fatalf("listed %d orders, want %d", len(seen), want)
			}
		})
	}
}

func TestParseListQuery(t *testing.T) {
	for _, tc := range []struct {
		query string
		ok    bool
	}{
		{"", true},
		{"limit=100&status=SUCCESS&providerId=route_A&clientReference=inv-1&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z", true},
		{"limit=0", false},
		{"limit=101", false},
		{"limit=ten", false},
		{"status=DONE", false},
		{"from=yesterday", false},
		{"cursor=***", false},
		{"cursor=bm90LWpzb24", false},
		{"clientReference=" + url.QueryEscape("has space"), false},
	} {
		v, _ := url.ParseQuery(tc.query)
		if _, err := parseListQuery(v, "acme", testCursors); (err == nil) != tc.ok {
			t.Errorf("parseListQuery(%q): err %v, want ok=%v", tc.query, err, tc.ok)
		}
	}
	pos := archive.Position{CreatedAt: time.Unix(1_700_000_000, 0).UTC(), OrderID: "ord_x"}
	if got, ok := decodeCursor[orderCursor](testCursors, encodeCursor(testCursors, orderCursorAt(pos))); !ok || got.position() != pos {
		t.Fatalf("cursor round trip: %v, %v", got, ok)
	}
}
