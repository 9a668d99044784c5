package e2e

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// routeB is route_B's entry of GET /v1/providers.
func routeB(g Gomega) map[string]any {
	r := partner.Get("/v1/providers")
	g.Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Raw)
	for _, p := range partnerapi.List(r.Body, "providers") {
		if entry := p.(map[string]any); entry["providerId"] == "route_B" {
			return entry
		}
	}
	g.Expect(r.Raw).To(ContainSubstring(`"providerId":"route_B"`), "route_B is listed")
	return nil
}

func routeBStatus(g Gomega) string { return partnerapi.Str(routeB(g), "status") }

var _ = Describe("provider health", func() {
	It("shows an injected outage as UNAVAILABLE within one breaker period, then the recovery", func() {
		Eventually(routeBStatus).Should(Equal("AVAILABLE"))
		Expect(routeB(Default)).To(HaveKeyWithValue("displayName", "Chainflip"))

		By("route_B answers every call with 503; quotes meet it until its breaker opens")
		env.Simulator.SetFault(swapv1.ProviderRouteB, simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable})
		DeferCleanup(env.Simulator.ClearFaults)
		quote := partnerapi.OrderRequest("route_B")
		delete(quote, "providerId")
		quote["dry"] = true
		for range health.DefaultPolicy.Threshold {
			r := partner.Post("/v1/quote", quote)
			Expect(r.Raw).To(ContainSubstring(`"providerId":"route_B"`), "route_B was asked and failed: %s", r.Raw)
		}
		Eventually(routeBStatus).WithTimeout(health.DefaultPolicy.Cooldown).Should(Equal("UNAVAILABLE"),
			"the open breaker shows on /v1/providers within one breaker period")
		down := routeB(Default)
		Expect(down["reason"]).To(BeElementOf("ProviderFailing", "ProviderUnavailable"))
		Expect(down["since"]).NotTo(BeNil())

		By("the fault is lifted: the next trial succeeds and route_B is AVAILABLE again")
		env.Simulator.ClearFaults()
		Eventually(func(g Gomega) string {
			partner.Post("/v1/quote", quote)
			return routeBStatus(g)
		}).Should(Equal("AVAILABLE"))
	})
})
