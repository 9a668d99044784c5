package e2e

import (
	"context"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

var _ = Describe("A provider quote whose signature does not verify", func() {
	It("never shows its deposit address and fails the order ProviderSignatureInvalid, counted and reported in an Event", func(ctx context.Context) {
		env.Simulator.SetFault(swapv1.ProviderRouteA, simulator.CallQuote, simulator.Fault{BadSignature: true})
		DeferCleanup(func() { env.Simulator.SetFault(swapv1.ProviderRouteA, simulator.CallQuote, simulator.Fault{}) })
		signatureLabels := map[string]string{"provider": "route_A", "call": providermetrics.CallCreateDeposit}
		counted := counterValue("swaprouter_provider_signature_invalid_total", signatureLabels)

		By("creating an order at route_A: the answer carries an address under a forged signature")
		created := env.Simulator.Stats().DepositAddressesCreated[swapv1.ProviderRouteA][partnerapi.SolRecipient]
		r, err := partner.API.CreateOrderWithResponse(ctx, nil, partnerapi.OrderRequest("route_A"))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON502).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
		Expect(r.Body).NotTo(ContainSubstring("depositAddress"))
		Expect(r.JSON502.Detail).To(HaveValue(ContainSubstring("ProviderSignatureInvalid")))
		Expect(env.Simulator.Stats().DepositAddressesCreated[swapv1.ProviderRouteA][partnerapi.SolRecipient]).To(BeNumerically(">", created),
			"the provider did hand out an address")
		id := regexp.MustCompile(`ord_[a-z0-9]+`).FindString(*r.JSON502.Detail)
		Expect(id).NotTo(BeEmpty(), "%s", r.Body)

		By("reading the order through /v1: FAILED, no address")
		order := partner.Order(id)
		Expect(order.Status).To(Equal(swapclient.OrderStatusFAILED))
		Expect(order.StatusReason).To(HaveValue(Equal("ProviderSignatureInvalid")))
		Expect(order.DepositAddress).To(BeNil())
		Expect(historyStatuses(order)).To(Equal([]swapclient.OrderStatus{swapclient.OrderStatusFAILED}))

		By("reading the SwapOrder: no address in its status, a Warning Event naming the reason")
		var orders swapv1.SwapOrderList
		Expect(env.Client.List(ctx, &orders, client.InNamespace(env.Namespace))).To(Succeed())
		var o *swapv1.SwapOrder
		for i := range orders.Items {
			if orders.Items[i].Spec.OrderID == id {
				o = &orders.Items[i]
			}
		}
		Expect(o).NotTo(BeNil())
		Expect(o.Status.DepositAddress).To(BeEmpty())
		Expect(o.Status.StatusReason).To(Equal("ProviderSignatureInvalid"))
		Eventually(func(g Gomega) {
			var evs eventsv1.EventList
			g.Expect(env.Client.List(ctx, &evs, client.InNamespace(env.Namespace))).To(Succeed())
			var notes []string
			for _, e := range evs.Items {
				if e.Regarding.Name == o.Name && e.Type == "Warning" && e.Action == "CreateDeposit" {
					notes = append(notes, e.Note)
				}
			}
			g.Expect(notes).To(ContainElement(ContainSubstring("ProviderSignatureInvalid")))
		}).Should(Succeed())
		Expect(counterValue("swaprouter_provider_signature_invalid_total", signatureLabels)).
			To(BeNumerically(">", counted))
	})
})
