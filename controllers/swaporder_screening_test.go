package controllers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// createHeld creates an order as the frontend does when screening holds it: a listed
// refundTo under the review policy.
func (g *orderRig) createHeld() *swapv1.SwapOrder {
	GinkgoHelper()
	o := g.createOrderWithScreening(&swapv1.ScreeningRecord{Outcome: swapv1.ScreeningHeld, At: metav1.Now(),
		Sources: []swapv1.ScreeningSource{{Name: "ofac-sdn", Version: "2026-01-02 sha256:0123456789ab"}},
		Matches: []swapv1.ScreeningMatch{{Field: "refundTo", Chain: "eth", Address: "0x8589427373d6d84e98730d7795d8f6f8731fda16",
			Source: "ofac-sdn", Entry: "SDN 25308 LAZARUS GROUP [DPRK3]: ETH 0x8589427373D6D84E98730D7795D8f6f8731FDA16"}}})
	Eventually(func() swapv1.OrderSubstatus { return g.get(o).Status.Substatus }).Should(Equal(swapv1.SubstatusHeldForReview))
	return o
}

func (g *orderRig) createOrderWithScreening(rec *swapv1.ScreeningRecord) *swapv1.SwapOrder {
	GinkgoHelper()
	id := newOrderID()
	o := &swapv1.SwapOrder{}
	o.Name, o.Namespace = strings.ReplaceAll(id, "_", "-"), g.ns
	o.Spec = swapv1.SwapOrderSpec{OrderID: id, Partner: "acme", ProviderID: swapv1.ProviderRouteA,
		OriginAsset: usdcEth, DestinationAsset: usdcArb, Amount: "100000000", SwapType: swapv1.ExactInput,
		Sender: "0x1111111111111111111111111111111111111111", Recipient: "0x2222222222222222222222222222222222222222",
		RefundTo: "0x8589427373d6d84e98730d7795d8f6f8731fda16", Screening: rec}
	Expect(k8sClient.Create(context.Background(), o)).To(Succeed())
	return o
}

// partnerEvents lists the webhook events the order's partner is sent (one per delivery,
// redeliveries aside), by sequence: "seq:previousStatus -> status substatus".
func (g *orderRig) partnerEvents(o *swapv1.SwapOrder) func() []string {
	return func() []string {
		var ds swapv1.WebhookDeliveryList
		Expect(k8sClient.List(context.Background(), &ds, client.InNamespace(g.ns))).To(Succeed())
		var evs []webhooks.Event
		for _, d := range ds.Items {
			var ev webhooks.Event
			Expect(json.Unmarshal([]byte(d.Spec.Payload), &ev)).To(Succeed())
			if ev.OrderID == o.Spec.OrderID && d.Spec.Redelivery == 0 {
				evs = append(evs, ev)
			}
		}
		slices.SortFunc(evs, func(a, b webhooks.Event) int { return cmp.Compare(a.Sequence, b.Sequence) })
		out := make([]string, len(evs))
		for i, ev := range evs {
			out[i] = fmt.Sprintf("%d:%s -> %s %s", ev.Sequence, ev.PreviousStatus, ev.Status, ev.Substatus)
		}
		return out
	}
}

// addressRequests counts route_A's quote calls, which are how it creates deposit addresses.
func (g *orderRig) addressRequests() func() int {
	return func() int { return g.sim.Stats().Calls[swapv1.ProviderRouteA][simulator.CallQuote] }
}

var _ = Describe("SwapOrders screening held for review", func() {
	It("hold → approve → SUCCESS: no address while held, the address after the approval, even past the create bound", func() {
		g := newOrderRig(orderRigOptions{sim: fastSim(), tune: func(r *SwapOrderReconciler) { r.CreateBound = time.Second }})
		g.partner(true)
		o := g.createHeld()
		Eventually(eventsOf).WithArguments(o, "HeldForReview").Should(ConsistOf(ContainSubstring(
			"refundTo 0x8589427373d6d84e98730d7795d8f6f8731fda16 is listed by ofac-sdn: SDN 25308 LAZARUS GROUP")))
		// The partner is told of the hold: PENDING, HELD_FOR_REVIEW, no address yet.
		Eventually(g.partnerEvents(o)).Should(Equal([]string{"1: -> PENDING HELD_FOR_REVIEW"}))
		// Held longer than the create bound: no provider is asked, and the order does not fail.
		g.look(o, 2*time.Second)
		Expect(g.addressRequests()()).To(BeZero())
		Expect(g.get(o).Status.Status).To(BeEmpty())

		out, err := kubectlSwaprouter("approve", o.Spec.OrderID, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("approved by admin"))
		got := g.awaitAddress(o)
		Expect(got.Status.Review).NotTo(BeNil())
		Expect(*got.Status.Review).To(And(HaveField("Decision", swapv1.ReviewApproved), HaveField("By", "admin")))
		Expect(got.Annotations).NotTo(HaveKey(swapv1.AnnotationApprove))
		Expect(got.Spec.Screening.Matches).To(HaveLen(1))

		_, err = g.sim.Deposit(got.Status.DepositAddress, "100000000")
		Expect(err).NotTo(HaveOccurred())
		Eventually(g.status(o)).WithTimeout(20 * time.Second).Should(Equal(swapv1.OrderSuccess))
		// After the hold, each transition reaches the partner once, from the status it last saw.
		history := g.get(o).Status.History
		Expect(history[0].Substatus).To(Equal(swapv1.SubstatusHeldForReview))
		Expect(history[1]).To(And(HaveField("Reason", "DepositAddressIssued"), HaveField("PreviousStatus", swapv1.OrderPending)))
		want := make([]string, len(history))
		for i, h := range history {
			want[i] = fmt.Sprintf("%d:%s -> %s %s", h.Seq, h.PreviousStatus, h.Status, h.Substatus)
		}
		Expect(want[len(want)-1]).To(ContainSubstring("-> SUCCESS"))
		Eventually(g.partnerEvents(o)).Should(Equal(want))

		_, err = kubectlSwaprouter("approve", o.Spec.OrderID, "-n", g.ns)
		Expect(err).To(MatchError(ContainSubstring("is already SUCCESS")))
	})

	It("hold → reject: FAILED ScreeningRejected with who and why, never an address", func() {
		g := newOrderRig(orderRigOptions{sim: fastSim()})
		o := g.createHeld()
		// A held order can be paused too (the pause then also holds it after an approval).
		out, err := kubectlSwaprouter("pause", o.Spec.OrderID, "-n", g.ns, "--reason", "asking compliance")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("paused by admin: asking compliance"))
		_, err = kubectlSwaprouter("reject", o.Spec.OrderID, "-n", g.ns)
		Expect(err).To(MatchError(ContainSubstring("needs a reason")))

		out, err = kubectlSwaprouter("reject", o.Spec.OrderID, "-n", g.ns, "--reason", "refundTo is a Lazarus address")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("rejected by admin (refundTo is a Lazarus address); the order is FAILED ScreeningRejected"))
		got := g.get(o)
		Expect(got.Status.Status).To(Equal(swapv1.OrderFailed))
		Expect(got.Status.StatusReason).To(Equal("ScreeningRejected"))
		Expect(*got.Status.Review).To(And(HaveField("Decision", swapv1.ReviewRejected), HaveField("By", "admin"),
			HaveField("Reason", "refundTo is a Lazarus address")))
		Expect(got.Status.DepositAddress).To(BeEmpty())
		Expect(g.addressRequests()()).To(BeZero())
	})

	It("hold → expire: FAILED ReviewExpired once the review bound passes", func() {
		g := newOrderRig(orderRigOptions{sim: fastSim(), tune: func(r *SwapOrderReconciler) { r.ReviewBound = 2 * time.Second }})
		o := g.createHeld()
		Eventually(g.status(o)).WithTimeout(10 * time.Second).Should(Equal(swapv1.OrderFailed))
		got := g.get(o)
		Expect(got.Status.StatusReason).To(Equal(ReasonReviewExpired))
		Expect(got.Status.Review.Decision).To(Equal(swapv1.ReviewExpired))
		Expect(got.Status.Substatus).To(BeEmpty())
		Expect(g.addressRequests()()).To(BeZero())
		Eventually(eventsOf).WithArguments(o, ReasonReviewExpired).Should(HaveLen(1))
	})

	It("refuses approve and reject of an order screening did not hold, from the plugin and written by hand", func() {
		g := newOrderRig(orderRigOptions{sim: fastSim()})
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		_, err := kubectlSwaprouter("approve", o.Spec.OrderID, "-n", g.ns)
		Expect(err).To(MatchError("approve refused: order " + o.Spec.OrderID + " is not held for review by screening"))

		setAnnotation(o, swapv1.AnnotationReject, "by hand")
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationReject))
		Eventually(eventsOf).WithArguments(o, "RejectRefused").Should(ConsistOf(
			"Warning RejectRefused: reject refused: order " + o.Spec.OrderID + " is not held for review by screening"))
		Expect(g.get(o).Status.Status).To(Equal(swapv1.OrderPending))
	})
})
