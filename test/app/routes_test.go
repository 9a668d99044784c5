package app

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// fourthRoute is a second 1Click account the simulator serves and no RoutingProvider names
// until the spec below applies one.
var fourthRoute = devenv.Provider{Name: "oneclick-b", DisplayName: "NEAR Intents (second account)",
	ID: "oneclick_b", Protocol: swapv1.ProtocolOneClick}

// candidates counts the candidates of a dry quote of 0.1 ETH to SOL, as /v1 answers it.
func candidates(g Gomega) int {
	r := partnerapi.New(env.FrontendURL, env.KeyID, env.Secret).Post("/v1/quote", map[string]any{
		"originAsset": partnerapi.ETH, "destinationAsset": partnerapi.SOL, "amount": partnerapi.PointOneETH})
	g.Expect(r.Status).To(Equal(200), "%s", r.Raw)
	return len(partnerapi.List(r.Body, "candidates"))
}

var _ = Describe("the routes", func() {
	It("lists a provider applied while the page is open, by its display name, beside the three", func(ctx context.Context) {
		p := newPage("routes", 1280, 900)
		p.quoteEthToSol()
		Expect(p.routeNames()).To(ConsistOf("NEAR Intents", "Chainflip", "Relay"))

		Expect(env.ApplyProvider(ctx, fourthRoute)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			rp := &swapv1.RoutingProvider{}
			rp.Name, rp.Namespace = fourthRoute.Name, env.Namespace
			Expect(client.IgnoreNotFound(env.Client.Delete(ctx, rp))).To(Succeed())
			Eventually(candidates).Should(Equal(3), "the other specs meet the three routes again")
		})

		// The page quotes again when the amount changes and every 30 s (the quotes' refresh), and
		// names routes from each quote's answer: the routes follow the installation.
		Eventually(candidates).Should(Equal(4), "oneclick_b quotes")
		p.typeInto("#amount", "0.1")
		Eventually(p.routeNames).WithTimeout(2 * time.Minute).
			Should(ConsistOf("NEAR Intents", "Chainflip", "Relay", "NEAR Intents (second account)"))
		Expect(p.text("#candidates")).NotTo(ContainSubstring("oneclick_b"), "no provider id shows")
		p.noAxeViolations("four routes")
	})
})
