package e2e

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/pkg/client"
)

// The journey README.md shows, with the client generated from openapi.json (pkg/client): if
// the document and the frontend disagree, the typed answers come back empty.
var _ = Describe("The generated Go client", func() {
	It("lists assets, quotes, creates an order and reads it back", func(ctx SpecContext) {
		c, err := client.NewClientWithResponses(env.FrontendURL,
			client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
				r.Header.Set("X-Key-Id", env.KeyID)
				r.Header.Set("Authorization", "Bearer "+env.Secret)
				return nil
			}))
		Expect(err).NotTo(HaveOccurred())

		By("listing the assets of a chain")
		chain := "eth"
		assets, err := c.ListAssetsWithResponse(ctx, &client.ListAssetsParams{Chain: &chain})
		Expect(err).NotTo(HaveOccurred())
		Expect(assets.JSON200).NotTo(BeNil(), "%d %s", assets.StatusCode(), assets.Body)
		Expect(assets.JSON200.Assets).To(ContainElement(HaveField("AssetId", ethETH)))

		By("previewing a quote")
		dry := true
		quote, err := c.RequestQuoteWithResponse(ctx, nil, client.QuoteRequest{
			OriginAsset: ethETH, DestinationAsset: solSOL, Amount: pointOneETH, Dry: &dry,
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(quote.JSON200).NotTo(BeNil(), "%d %s", quote.StatusCode(), quote.Body)
		best := quote.JSON200.Best
		Expect(best.ProviderId).To(BeEquivalentTo(simulator.Relay), "the simulated Relay's fees are the smallest at $300")

		By("creating the order with the best provider, idempotently")
		key := "client-journey-1"
		body := client.OrderRequest{
			OriginAsset: ethETH, DestinationAsset: solSOL, Amount: pointOneETH,
			Sender: sender, Recipient: solDest, ProviderId: client.ProviderId(best.ProviderId),
		}
		created, err := c.CreateOrderWithResponse(ctx, &client.CreateOrderParams{IdempotencyKey: &key}, body)
		Expect(err).NotTo(HaveOccurred())
		Expect(created.JSON201).NotTo(BeNil(), "%d %s", created.StatusCode(), created.Body)
		Expect(created.JSON201.Id).To(MatchRegexp(`^ord_[a-z2-7]{26}$`))
		Expect(created.JSON201.DepositAddress).NotTo(BeNil())
		again, err := c.CreateOrderWithResponse(ctx, &client.CreateOrderParams{IdempotencyKey: &key}, body)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.JSON201).NotTo(BeNil(), "%d %s", again.StatusCode(), again.Body)
		Expect(again.JSON201.Id).To(Equal(created.JSON201.Id), "a retry returns the same order")

		By("reading the order back")
		got, err := c.GetOrderWithResponse(ctx, created.JSON201.Id)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.JSON200).NotTo(BeNil(), "%d %s", got.StatusCode(), got.Body)
		Expect(got.JSON200.Status).To(Equal(client.OrderStatusPENDING))
		Expect(*got.JSON200.DepositAddress).To(Equal(*created.JSON201.DepositAddress))
		Expect(string(got.JSON200.ProviderId)).To(Equal(string(best.ProviderId)))

		By("reading a typed error code")
		bad, err := c.RequestQuoteWithResponse(ctx, nil, client.QuoteRequest{
			OriginAsset: "eip155:1/slip44:0", DestinationAsset: solSOL, Amount: pointOneETH, Dry: &dry,
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(bad.JSON400).NotTo(BeNil(), "%d %s", bad.StatusCode(), bad.Body)
		Expect(bad.JSON400.Error).To(Equal(client.RequestQuote400JSONResponseBodyErrorUnknownOriginAssetdestinationAsset))
	})
})
