package e2e

import (
	"context"
	"net/http"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
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
		r := partner.Post("/v1/order", partnerapi.OrderRequest("route_A"))
		Expect(r.Status).To(Equal(http.StatusBadGateway), "%s", r.Raw)
		Expect(r.Body).NotTo(HaveKey("depositAddress"))
		Expect(partnerapi.Str(r.Body, "detail")).To(ContainSubstring("ProviderSignatureInvalid"))
		Expect(env.Simulator.Stats().DepositAddressesCreated[swapv1.ProviderRouteA][partnerapi.SolRecipient]).To(BeNumerically(">", created),
			"the provider did hand out an address")
		id := regexp.MustCompile(`ord_[a-z0-9]+`).FindString(partnerapi.Str(r.Body, "detail"))
		Expect(id).NotTo(BeEmpty(), "%s", r.Raw)

		By("reading the order through /v1: FAILED, no address")
		order := partner.Get("/v1/order/" + id)
		Expect(order.Status).To(Equal(http.StatusOK), "%s", order.Raw)
		Expect(order.Body["status"]).To(Equal("FAILED"))
		Expect(order.Body["statusReason"]).To(Equal("ProviderSignatureInvalid"))
		Expect(order.Body["depositAddress"]).To(BeNil())
		Expect(historyStatuses(order.Body)).To(Equal([]string{"FAILED"}))

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
