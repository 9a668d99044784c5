package topology

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// verdict is what a partner would notice after the faults.
type verdict struct {
	orders, transitions, events int
	// lostTransitions: orders the partner created that are gone, seq gaps, or entries that
	// do not continue the previous status.
	lostTransitions int
	// undelivered: transitions whose webhook event never reached the receiver.
	undelivered int
	// shownTwice: orders for which the partner saw more than one deposit address, or an
	// address other than the one stored.
	shownTwice int
	// unshown: addresses a provider created beyond one per order that nobody was shown (a
	// creation whose status write lost a conflict; counted by
	// swaprouter_order_unshown_deposit_addresses_total). Reported, not a failure: users only
	// ever see status.depositAddress.
	unshown int
	// unsettled: funded orders not SUCCESS.
	unsettled int
	problems  []string
}

func (v *verdict) problem(format string, args ...any) {
	if len(v.problems) < 20 {
		v.problems = append(v.problems, fmt.Sprintf(format, args...))
	}
}

// check compares the partner's view, the cluster's orders, the receiver's events and the
// simulator's counters; only orders in scope (nil: all) count for unsettled and undelivered.
func (r *rig) check(ctx context.Context, l *load, scope func(order) bool) verdict {
	partnerOrders, _ := l.snapshot()
	var list swapv1.SwapOrderList
	var v verdict
	if err := r.admin.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		v.problem("listing orders: %v", err)
		v.lostTransitions = -1
		return v
	}
	stored := map[string]*swapv1.SwapOrder{}
	for i := range list.Items {
		stored[list.Items[i].Spec.OrderID] = &list.Items[i]
	}
	delivered := map[string]bool{}
	for _, ev := range r.receiver.Events() {
		delivered[fmt.Sprintf("%s/%d", ev.OrderID, ev.Sequence)] = true
	}
	for id, po := range partnerOrders {
		v.orders++
		o := stored[id]
		if o == nil {
			v.lostTransitions++
			v.problem("order %s the partner was shown is not stored", id)
			continue
		}
		if len(po.addresses) > 1 || (o.Status.DepositAddress != "" && len(po.addresses) == 1 && !po.addresses[o.Status.DepositAddress]) {
			v.shownTwice++
			v.problem("order %s shown addresses %v, stored %s", id, po.addresses, o.Status.DepositAddress)
		}
		prev := swapv1.OrderStatus("")
		for i, h := range o.Status.History {
			v.transitions++
			if h.Seq != int64(i+1) || (i > 0 && h.PreviousStatus != prev) {
				v.lostTransitions++
				v.problem("order %s history entry %d: seq %d, previous %s after %s", id, i, h.Seq, h.PreviousStatus, prev)
			}
			prev = h.Status
			if !delivered[fmt.Sprintf("%s/%d", id, h.Seq)] {
				if scope != nil && !scope(po) {
					continue // on its way: a steady load always has some events in flight
				}
				v.undelivered++
				v.problem("order %s seq %d (%s) never delivered", id, h.Seq, h.Status)
			} else {
				v.events++
			}
		}
		if o.Status.LastSeq != int64(len(o.Status.History)) {
			v.lostTransitions++
			v.problem("order %s lastSeq %d with %d history entries", id, o.Status.LastSeq, len(o.Status.History))
		}
		if (scope == nil || scope(po)) && !po.funded.IsZero() && o.Status.Status != swapv1.OrderSuccess {
			v.unsettled++
			v.problem("funded order %s is %s", id, o.Status.Status)
		}
	}
	for _, byRecipient := range r.simStats(ctx) {
		for _, n := range byRecipient {
			if n > 1 {
				v.unshown += n - 1
			}
		}
	}
	return v
}

func (v verdict) clean() bool {
	return v.lostTransitions == 0 && v.undelivered == 0 && v.shownTwice == 0 && v.unsettled == 0
}

func (v verdict) String() string {
	return fmt.Sprintf("%d orders, %d transitions: lost %d, undelivered %d, shown twice %d, funded not settled %d (unshown provider addresses %d)\n%s",
		v.orders, v.transitions, v.lostTransitions, v.undelivered, v.shownTwice, v.unsettled, v.unshown, strings.Join(v.problems, "\n"))
}

// simStats is the simulator's count of deposit addresses per provider per recipient.
func (r *rig) simStats(ctx context.Context) map[string]map[string]int {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.simURL+"/control/stats", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer func() { _ = resp.Body.Close() }()
	var stats struct {
		DepositAddressesCreated map[string]map[string]int `json:"depositAddressesCreated"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&stats)
	return stats.DepositAddressesCreated
}
