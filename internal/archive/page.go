package archive

import (
	"slices"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// MergePage returns the page of q from live and archived orders (each newest first or not;
// an order in both is taken once, as it is live) and the cursor of the next page, nil on the
// last. archived holds at most q.Limit+1 orders after q.After; live is filtered here.
func MergePage(live []swapv1.SwapOrder, archived []*swapv1.SwapOrder, q Query) ([]*swapv1.SwapOrder, *Position) {
	byID := map[string]*swapv1.SwapOrder{}
	for _, o := range archived {
		byID[o.Spec.OrderID] = o
	}
	for i := range live {
		if o := &live[i]; Matches(o, q) {
			byID[o.Spec.OrderID] = o
		}
	}
	all := make([]*swapv1.SwapOrder, 0, len(byID))
	for _, o := range byID {
		all = append(all, o)
	}
	slices.SortFunc(all, func(a, b *swapv1.SwapOrder) int {
		pa, pb := PositionOf(a), PositionOf(b)
		switch {
		case pa.Before(pb):
			return -1
		case pb.Before(pa):
			return 1
		}
		return 0
	})
	if len(all) <= q.Limit {
		return all, nil
	}
	page := all[:q.Limit]
	next := PositionOf(page[len(page)-1])
	return page, &next
}

// Matches applies q's filters and cursor to a live order.
func Matches(o *swapv1.SwapOrder, q Query) bool {
	status := o.Status.Status
	if status == "" {
		status = swapv1.OrderPending // as partners see a new order
	}
	created := o.CreationTimestamp.Time
	return o.Spec.Partner == q.Partner &&
		(q.Status == "" || status == q.Status) &&
		(q.ProviderID == "" || o.Spec.ProviderID == q.ProviderID) &&
		(q.ClientReference == "" || o.Spec.ClientReference == q.ClientReference) &&
		(q.From.IsZero() || !created.Before(q.From)) &&
		(q.To.IsZero() || created.Before(q.To)) &&
		(q.After == nil || q.After.Before(PositionOf(o)))
}

// PositionOf is o's place in a listing.
func PositionOf(o *swapv1.SwapOrder) Position {
	return Position{CreatedAt: o.CreationTimestamp.UTC(), OrderID: o.Spec.OrderID}
}
