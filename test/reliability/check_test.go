package reliability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// receiver is the partner's webhook endpoint on 127.0.0.1: it verifies every POST and counts
// each webhook-id, keeping every body it got for it.
type receiver struct {
	secret string

	mu       sync.Mutex
	bodies   map[string][]string
	rejected int
}

func newReceiver(secret string) *receiver {
	return &receiver{secret: secret, bodies: map[string][]string{}}
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := webhooks.Verify(r.secret, req.Header, body, time.Now()); err != nil {
		r.rejected++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	id := req.Header.Get(webhooks.HeaderID)
	r.bodies[id] = append(r.bodies[id], string(body))
	w.WriteHeader(http.StatusNoContent)
}

// received returns a copy of what arrived per webhook-id.
func (r *receiver) received() (map[string][]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]string, len(r.bodies))
	for k, v := range r.bodies {
		out[k] = slices.Clone(v)
	}
	return out, r.rejected
}

func (g *rig) order(id string) *swapv1.SwapOrder {
	GinkgoHelper()
	o := &swapv1.SwapOrder{}
	Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: g.ns, Name: orderid.ObjectName(id)}, o)).To(Succeed())
	return o
}

func (g *rig) deliveries(orderID string) []swapv1.WebhookDelivery {
	GinkgoHelper()
	var list swapv1.WebhookDeliveryList
	Expect(k8sClient.List(context.Background(), &list, client.InNamespace(g.ns))).To(Succeed())
	return slices.DeleteFunc(list.Items, func(d swapv1.WebhookDelivery) bool { return d.Spec.OrderID != orderID })
}

// settled reports whether the system is done with an order: its status is want, every
// transition has its delivery, every delivery is Delivered and the receiver has every event.
func (g *rig) settled(id string, want swapv1.OrderStatus) error {
	o := &swapv1.SwapOrder{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: g.ns, Name: orderid.ObjectName(id)}, o); err != nil {
		return err
	}
	st := o.Status
	if st.Status != want {
		return fmt.Errorf("order %s is %q (%s), want %s", id, st.Status, st.StatusReason, want)
	}
	var list swapv1.WebhookDeliveryList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(g.ns)); err != nil {
		return err
	}
	for _, d := range list.Items {
		if d.Spec.OrderID == id && d.Status.Phase != swapv1.DeliveryDelivered {
			return fmt.Errorf("delivery %s is %q", d.Name, d.Status.Phase)
		}
	}
	got, _ := g.receiver.received()
	for seq := int64(1); seq <= st.LastSeq; seq++ {
		if len(got[webhooks.EventID(id, string(o.UID), seq)]) == 0 {
			return fmt.Errorf("order %s: event seq %d not received yet", id, seq)
		}
	}
	return nil
}

// awaitSettled waits until every order is settled in its expected status and returns how long
// that took.
func (g *rig) awaitSettled(want map[string]swapv1.OrderStatus, timeout time.Duration) time.Duration {
	GinkgoHelper()
	start := time.Now()
	Eventually(func() error {
		var errs []error
		for _, id := range slices.Sorted(maps.Keys(want)) {
			errs = append(errs, g.settled(id, want[id]))
		}
		return errors.Join(errs...)
	}, timeout, 200*time.Millisecond).Should(Succeed())
	return time.Since(start)
}

// tally is what the invariants found over a set of orders.
type tally struct {
	orders, transitions, events int
	// lost counts transitions missing from the history and events never received.
	lost int
	// duplicates counts webhook POSTs beyond the first per event (at-least-once).
	duplicates int
	// addresses counts deposit addresses the providers created beyond one per order.
	extraAddresses int
}

// verify checks every invariant of the issue on the settled orders and returns the figures.
// want maps each order to the status the provider's truth should give it.
func (g *rig) verify(want map[string]swapv1.OrderStatus) tally {
	GinkgoHelper()
	var t tally
	got, rejected := g.receiver.received()
	Expect(rejected).To(BeZero(), "deliveries whose signature did not verify")
	stats := g.sim.Stats()
	for _, id := range slices.Sorted(maps.Keys(want)) {
		o := g.order(id)
		st := o.Status
		t.orders++

		// Converged to the provider's truth.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		truth, err := g.truth[o.Spec.ProviderID].Status(ctx, provider.OrderRef{
			OrderID: id, DepositAddress: st.DepositAddress, DepositMemo: st.DepositMemo, ProviderRef: st.ProviderRef})
		cancel()
		var pe *provider.Error
		if errors.As(err, &pe) && pe.Kind == provider.KindNotFound {
			Expect(st.Status).To(Equal(swapv1.OrderUnknown), "%s: the provider does not know it", id)
		} else {
			Expect(err).NotTo(HaveOccurred(), id)
			Expect(st.Status).To(Equal(truth.Status), "%s: ours %s, provider's %s", id, st.Status, truth.Status)
		}
		Expect(st.Status).To(Equal(want[id]), id)

		// One address shown per order (status.depositAddress is written once). Neither real
		// provider is idempotent, so a create whose answer was lost in a crash leaves an
		// address nobody was shown: reported, not hidden.
		created := stats.DepositAddressesCreated[o.Spec.ProviderID][o.Spec.Recipient]
		Expect(created).To(BeNumerically(">=", 1), "%s: deposit addresses created at %s", id, o.Spec.ProviderID)
		t.extraAddresses += created - 1

		// No transition lost: seq contiguous from 1, each entry continuing the previous one.
		h := st.History
		Expect(h).NotTo(BeEmpty(), id)
		Expect(h[len(h)-1].Seq).To(Equal(st.LastSeq), id)
		if st.LastSeq <= swapv1.MaxHistory {
			Expect(h[0].Seq).To(Equal(int64(1)), id)
		}
		for i := range h {
			if i == 0 {
				continue
			}
			if h[i].Seq != h[i-1].Seq+1 || h[i].PreviousStatus != h[i-1].Status {
				t.lost++
			}
			Expect(h[i].Seq).To(Equal(h[i-1].Seq+1), "%s: history %v", id, h)
			Expect(h[i].PreviousStatus).To(Equal(h[i-1].Status), "%s: history %v", id, h)
		}
		Expect(h[len(h)-1].Status).To(Equal(st.Status), id)
		t.transitions += int(st.LastSeq)

		// Every event delivered at least once, always the same bytes, matching the history.
		deliveries := g.deliveries(id)
		Expect(deliveries).To(HaveLen(int(st.LastSeq)), "%s: one WebhookDelivery per transition", id)
		for _, tr := range h {
			evID := webhooks.EventID(id, string(o.UID), tr.Seq)
			bodies := got[evID]
			if len(bodies) == 0 {
				t.lost++
			}
			Expect(bodies).NotTo(BeEmpty(), "%s seq %d: event %s never received", id, tr.Seq, evID)
			for _, b := range bodies[1:] {
				Expect(b).To(Equal(bodies[0]), "%s: a re-sent event changed", evID)
			}
			var ev webhooks.Event
			Expect(json.Unmarshal([]byte(bodies[0]), &ev)).To(Succeed())
			Expect(ev.Status).To(Equal(string(tr.Status)), evID)
			Expect(ev.PreviousStatus).To(Equal(string(tr.PreviousStatus)), evID)
			Expect(ev.Sequence).To(Equal(tr.Seq), evID)
			t.events++
			t.duplicates += len(bodies) - 1
		}
	}
	return t
}
