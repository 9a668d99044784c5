package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
	"github.com/swaprouter/swaprouter/internal/testing/metricsum"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// secondOneClick is a second 1Click account the simulator serves from the start (its own
// token, a fee of 10 bps where route_A's is 30) and no RoutingProvider names until a spec
// applies one.
var secondOneClick = simulator.Instance{ID: "oneclick_b", Protocol: swapv1.ProtocolOneClick, Token: "e2e-oneclick-b-token", FeeBps: new(int64(10))}

// fourthProvider is the RoutingProvider an operator applies for it.
var fourthProvider = devenv.Provider{Name: "oneclick-b", DisplayName: "NEAR Intents (second account)",
	ID: secondOneClick.ID, Protocol: secondOneClick.Protocol, Token: secondOneClick.Token}

// listedProvider is id's entry of GET /v1/providers, nil when it is not listed.
func listedProvider(g Gomega, id swapv1.ProviderID) *swapclient.ProviderHealth {
	r, err := partner.API.ListProvidersWithResponse(context.Background())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(r.JSON200).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
	for _, p := range r.JSON200.Providers {
		if string(p.ProviderId) == string(id) {
			return &p
		}
	}
	return nil
}

// candidateOf is id's candidate of a dry quote of 0.1 ETH → SOL, nil when it has none.
func candidateOf(g Gomega, id swapv1.ProviderID) (*swapclient.QuoteCandidate, []swapclient.QuoteCandidate) {
	q := dryQuote(ethETH, solSOL, pointOneETH, "")
	g.Expect(q.JSON200).NotTo(BeNil(), "%d %s", q.StatusCode(), q.Body)
	for _, c := range q.JSON200.Candidates {
		if string(c.ProviderId) == string(id) {
			return &c, q.JSON200.Candidates
		}
	}
	return nil, q.JSON200.Candidates
}

// providerIDRequired is the error code of an order without providerId, read with a plain
// HTTP client: the OpenAPI document's ErrorCode enum names only the contract's two-provider
// text, so the validating partner client would refuse any other installation's.
func providerIDRequired(g Gomega) string {
	body, err := json.Marshal(map[string]string{"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH,
		"sender": sender, "recipient": solDest})
	g.Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequest(http.MethodPost, env.FrontendURL+"/v1/order", bytes.NewReader(body))
	g.Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Key-Id", env.KeyID)
	req.Header.Set("Authorization", "Bearer "+env.Secret)
	resp, err := http.DefaultClient.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var answer struct{ Error string }
	g.Expect(json.NewDecoder(resp.Body).Decode(&answer)).To(Succeed())
	g.Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
	return answer.Error
}

var _ = Describe("A fourth RoutingProvider, applied to the running system", func() {
	It("is listed and quoted without a restart, takes an order to SUCCESS, and once disabled leaves the quotes while its orders are still tracked", func(ctx context.Context) {
		Expect(providerIDRequired(Default)).To(Equal("providerId required (relay | route_A | route_B)"),
			"the three enabled providers, in the contract's form")

		By("applying a second 1Click account with its own credentials")
		Expect(env.ApplyProvider(ctx, fourthProvider)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			rp := &swapv1.RoutingProvider{}
			rp.Name, rp.Namespace = fourthProvider.Name, env.Namespace
			Expect(client.IgnoreNotFound(env.Client.Delete(ctx, rp))).To(Succeed())
			Eventually(func() bool {
				return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(rp), rp))
			}).Should(BeTrue(), "its orders are final, so its deletion does not wait")
			Eventually(func(g Gomega) *swapclient.ProviderHealth { return listedProvider(g, fourthProvider.ID) }).Should(BeNil())
		})

		By("GET /v1/providers lists it by its display name, as a provider that signs its quotes")
		Eventually(func(g Gomega) {
			p := listedProvider(g, fourthProvider.ID)
			g.Expect(p).NotTo(BeNil(), "oneclick_b is listed")
			g.Expect(p.DisplayName).To(Equal(fourthProvider.DisplayName))
			g.Expect(p.SignsQuotes).To(BeTrue())
			g.Expect(p.Status).To(Equal(swapclient.AVAILABLE))
		}).Should(Succeed())
		Eventually(func(g Gomega) []swapclient.ProviderId {
			chain := "eth"
			assets, err := partner.API.ListAssetsWithResponse(ctx, &swapclient.ListAssetsParams{Chain: &chain})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(assets.JSON200).NotTo(BeNil(), "%d %s", assets.StatusCode(), assets.Body)
			for _, a := range assets.JSON200.Assets {
				if a.AssetId == ethETH {
					return a.Providers
				}
			}
			return nil
		}).Should(ContainElement(swapclient.ProviderId(fourthProvider.ID)), "GET /v1/assets names it among ETH's providers")

		Eventually(providerIDRequired).Should(Equal("providerId required (oneclick_b | relay | route_A | route_B)"))

		By("quotes carry its candidate beside the other three, priced on its own fee")
		var mine *swapclient.QuoteCandidate
		Eventually(func(g Gomega) {
			var all []swapclient.QuoteCandidate
			mine, all = candidateOf(g, fourthProvider.ID)
			g.Expect(mine).NotTo(BeNil(), "oneclick_b quotes ETH → SOL")
			g.Expect(all).To(HaveLen(4))
			routeA, _ := candidateOf(g, swapv1.ProviderRouteA)
			g.Expect(routeA).NotTo(BeNil())
			g.Expect(amount(mine.AmountOut).Cmp(amount(routeA.AmountOut))).To(Equal(1),
				"10 bps instead of route_A's 30: %s against %s", mine.AmountOut, routeA.AmountOut)
		}).Should(Succeed())

		By("an order bound to its candidate reaches SUCCESS, with a verified webhook per transition")
		req := partnerapi.OrderRequest(fourthProvider.ID)
		req.QuoteId = mine.QuoteId
		order := partner.CreateOrder(req, "")
		Expect(order.DepositAddress).NotTo(BeNil())
		Expect(env.Simulator.Stats().DepositAddressesCreated[fourthProvider.ID]).NotTo(BeEmpty(),
			"the address came from the second account, not from route_A")
		partnerapi.Deposit(env, *order.DepositAddress, pointOneETH)
		done := partner.AwaitStatus(order.Id, swapclient.OrderStatusSUCCESS)
		Expect(string(done.ProviderId)).To(Equal(string(fourthProvider.ID)))
		Expect(done.AmountOut).To(HaveValue(Equal(mine.AmountOut)), "its own price was paid out")
		expectWebhookPerTransition(done)

		By("its calls are measured under its own id, apart from route_A's")
		for _, call := range []string{providermetrics.CallQuote, providermetrics.CallCreateDeposit, providermetrics.CallStatus} {
			n, err := metricsum.Of(metrics, "swaprouter_provider_call_duration_seconds",
				map[string]string{"provider": string(fourthProvider.ID), "call": call, "outcome": providermetrics.OutcomeOK})
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(BeNumerically(">", 0), "%s calls of oneclick_b", call)
		}

		By("an order still waiting for its deposit when the provider is disabled")
		waiting := partner.CreateOrder(partnerapi.OrderRequest(fourthProvider.ID), "")
		Expect(waiting.DepositAddress).NotTo(BeNil())

		By("disabling it (spec.enabled: false): it leaves the quotes and shows UNAVAILABLE")
		rp := &swapv1.RoutingProvider{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: env.Namespace, Name: fourthProvider.Name}, rp)).To(Succeed())
		patch := client.MergeFrom(rp.DeepCopy())
		rp.Spec.Enabled = false
		Expect(env.Client.Patch(ctx, rp, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			mine, all := candidateOf(g, fourthProvider.ID)
			g.Expect(mine).To(BeNil(), "a disabled provider is not quoted")
			g.Expect(all).To(HaveLen(3))
		}).Should(Succeed())
		Eventually(providerIDRequired).Should(Equal("providerId required (relay | route_A | route_B)"))
		Eventually(func(g Gomega) swapclient.ProviderHealthStatus {
			p := listedProvider(g, fourthProvider.ID)
			g.Expect(p).NotTo(BeNil())
			return p.Status
		}).Should(Equal(swapclient.UNAVAILABLE))

		By("the waiting order is still tracked: its deposit takes it to SUCCESS")
		partnerapi.Deposit(env, *waiting.DepositAddress, pointOneETH)
		tracked := partner.AwaitStatus(waiting.Id, swapclient.OrderStatusSUCCESS)
		Expect(tracked.AmountOut).NotTo(BeNil())
		expectWebhookPerTransition(tracked)
	})
})
