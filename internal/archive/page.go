package archive

import (
	"slices"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// MergePage returns the page of q from live and archived orders and the cursor of the next
// page, nil on the last. live may hold any of the partner's live orders in any order: it is
// filtered here and only the first q.Limit+1 matches are kept (no sort of all of them);
// archived holds at most q.Limit+1 orders after q.After, as Postgres.List answers. An order
// in both (archived, not yet deleted from etcd) is taken once, as it is live.
func MergePage(live, archived []*swapv1.SwapOrder, q Query) ([]*swapv1.SwapOrder, *Position) {
	keep := q.Limit + 1
	newestLive := NewestMatches(live, q)
	newestArchived := make([]*swapv1.SwapOrder, 0, min(len(archived), keep))
	for _, o := range archived {
		newestArchived = insertNewest(newestArchived, o, keep)
	}
	page := make([]*swapv1.SwapOrder, 0, keep)
	for len(page) < keep && (len(newestLive) > 0 || len(newestArchived) > 0) {
		switch {
		case len(newestArchived) == 0:
			page, newestLive = append(page, newestLive[0]), newestLive[1:]
		case len(newestLive) == 0:
			page, newestArchived = append(page, newestArchived[0]), newestArchived[1:]
		default:
			if newestLive[0].Spec.OrderID == newestArchived[0].Spec.OrderID {
				newestArchived = newestArchived[1:] // the same order: the live copy is the newer state
				continue
			}
			if PositionOf(newestArchived[0]).Before(PositionOf(newestLive[0])) {
				page, newestArchived = append(page, newestArchived[0]), newestArchived[1:]
			} else {
				page, newestLive = append(page, newestLive[0]), newestLive[1:]
			}
		}
	}
	if len(page) <= q.Limit {
		return page, nil
	}
	page = page[:q.Limit]
	next := PositionOf(page[len(page)-1])
	return page, &next
}

// NewestMatches returns the first q.Limit+1 of live's orders matching q, in listing order
// (one more than a page tells whether another page follows).
func NewestMatches(live []*swapv1.SwapOrder, q Query) []*swapv1.SwapOrder {
	keep := q.Limit + 1
	newest := make([]*swapv1.SwapOrder, 0, min(len(live), keep))
	for _, o := range live {
		if Matches(o, q) {
			newest = insertNewest(newest, o, keep)
		}
	}
	return newest
}

// ArchiveQuery is what to ask the archive for q's page, given newest, the first q.Limit+1
// live matches (NewestMatches): one more than a page, and, when live orders alone fill that,
// only archived orders newer than the last of them, since older ones cannot make the page.
func ArchiveQuery(newest []*swapv1.SwapOrder, q Query) Query {
	aq := q
	aq.Limit++
	if len(newest) == aq.Limit {
		floor := PositionOf(newest[len(newest)-1])
		aq.Above = &floor
	}
	return aq
}

// insertNewest inserts o into sorted (listing order, at most keep long), dropping what falls
// beyond keep.
func insertNewest(sorted []*swapv1.SwapOrder, o *swapv1.SwapOrder, keep int) []*swapv1.SwapOrder {
	pos := PositionOf(o)
	if len(sorted) == keep && !pos.Before(PositionOf(sorted[keep-1])) {
		return sorted // the common case once full: older than everything kept
	}
	i, _ := slices.BinarySearchFunc(sorted, pos, func(s *swapv1.SwapOrder, p Position) int {
		if PositionOf(s).Before(p) {
			return -1
		}
		return 1
	})
	sorted = slices.Insert(sorted, i, o)
	if len(sorted) > keep {
		sorted = sorted[:keep]
	}
	return sorted
}

// Matches applies q's filters and cursor to a live order.
func Matches(o *swapv1.SwapOrder, q Query) bool {
	status := o.Status.Status
	if status == "" {
		status = swapv1.OrderPending // as partners see a new order
	}
	created := o.CreatedAt()
	return o.Spec.Partner == q.Partner &&
		(q.Status == "" || status == q.Status) &&
		(q.ProviderID == "" || o.Spec.ProviderID == q.ProviderID) &&
		(q.ClientReference == "" || o.Spec.ClientReference == q.ClientReference) &&
		(q.From.IsZero() || !created.Before(q.From)) &&
		(q.To.IsZero() || created.Before(q.To)) &&
		(q.After == nil || q.After.Before(PositionOf(o))) &&
		(q.Above == nil || PositionOf(o).Before(*q.Above))
}

// PositionOf is o's place in a listing.
func PositionOf(o *swapv1.SwapOrder) Position {
	return Position{CreatedAt: o.CreatedAt(), OrderID: o.Spec.OrderID}
}

// Refs points at each of orders: MergePage's live orders as a client lists them.
func Refs(orders []swapv1.SwapOrder) []*swapv1.SwapOrder {
	out := make([]*swapv1.SwapOrder, len(orders))
	for i := range orders {
		out[i] = &orders[i]
	}
	return out
}
