package e2e

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
)

// routeB is route_B's entry of GET /v1/providers.
func routeB(g Gomega) swapclient.ProviderHealth {
	r, err := partner.API.ListProvidersWithResponse(context.Background())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(r.JSON200).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
	for _, p := range r.JSON200.Providers {
		if p.ProviderId == swapclient.ProviderId(swapv1.ProviderRouteB) {
			return p
		}
	}
	g.Expect(r.Body).To(ContainSubstring(`"providerId":"route_B"`), "route_B is listed")
	return swapclient.ProviderHealth{}
}

func routeBStatus(g Gomega) swapclient.ProviderHealthStatus { return routeB(g).Status }

var _ = Describe("provider health", func() {
	It("shows an injected outage as UNAVAILABLE within one breaker period, then the recovery", func() {
		Eventually(routeBStatus).Should(Equal(swapclient.AVAILABLE))
		Expect(routeB(Default).DisplayName).To(Equal("Chainflip"))

		By("route_B answers every call with 503; quotes meet it until its breaker opens")
		env.Simulator.SetFault(swapv1.ProviderRouteB, simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable})
		DeferCleanup(env.Simulator.ClearFaults)
		quote := func() *swapclient.RequestQuoteResponse {
			r := dryQuote(ethETH, solSOL, pointOneETH, "")
			Expect(r.Body).To(ContainSubstring(`"providerId":"route_B"`), "route_B was asked and failed: %s", r.Body)
			return r
		}
		for range health.DefaultPolicy.Threshold {
			quote()
		}
		Eventually(routeBStatus).WithTimeout(health.DefaultPolicy.Cooldown).Should(Equal(swapclient.UNAVAILABLE),
			"the open breaker shows on /v1/providers within one breaker period")
		down := routeB(Default)
		Expect(down.Reason).To(HaveValue(BeElementOf("ProviderFailing", "ProviderUnavailable")))
		Expect(down.Since).NotTo(BeNil())

		By("the fault is lifted: the next trial succeeds and route_B is AVAILABLE again")
		env.Simulator.ClearFaults()
		Eventually(func(g Gomega) swapclient.ProviderHealthStatus {
			dryQuote(ethETH, solSOL, pointOneETH, "")
			return routeBStatus(g)
		}).Should(Equal(swapclient.AVAILABLE))
	})
})
