package e2e

import (
	"math/big"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/test/partnerapi"
)

func amount(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	Expect(ok).To(BeTrue(), "amount %q", s)
	return n
}

var _ = Describe("Quote binding against the real adapters and simulator", func() {
	It("orders each provider's candidate by its quoteId and gets an address whose binding quote keeps the bound", func() {
		dry := partner.Post("/v1/quote", map[string]any{
			"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH, "dry": true,
		})
		Expect(dry.Status).To(Equal(http.StatusOK), "%s", dry.Raw)
		candidates := partnerapi.List(dry.Body, "candidates")
		Expect(candidates).To(HaveLen(2), "both providers route ETH → SOL")
		for _, c := range candidates {
			cand := c.(map[string]any)
			provider, bound := partnerapi.Str(cand, "providerId"), partnerapi.Str(cand, "minAmountOut")
			By("ordering " + provider + "'s candidate")
			r := partner.Post("/v1/order", map[string]any{
				"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH, "providerId": provider,
				"sender": sender, "recipient": solDest, "quoteId": partnerapi.Str(cand, "quoteId"),
			})
			Expect(r.Status).To(Equal(http.StatusCreated), "%s", r.Raw)
			Expect(partnerapi.Str(r.Body, "depositAddress")).NotTo(BeEmpty())
			binding := partnerapi.Obj(r.Body, "quote")
			Expect(amount(partnerapi.Str(binding, "minAmountOut")).Cmp(amount(bound))).To(BeNumerically(">=", 0),
				"%s's binding minimum %s keeps the accepted %s", provider, partnerapi.Str(binding, "minAmountOut"), bound)
		}

		By("refusing a quoteId for another amount")
		quoteID := partnerapi.Str(partnerapi.Obj(dry.Body, "best"), "quoteId")
		r := partner.Post("/v1/order", map[string]any{
			"originAsset": ethETH, "destinationAsset": solSOL, "amount": "200000000000000000",
			"providerId": partnerapi.Str(partnerapi.Obj(dry.Body, "best"), "providerId"),
			"sender":     sender, "recipient": solDest, "quoteId": quoteID,
		})
		Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r.Raw)
		Expect(r.Body["error"]).To(Equal("quote mismatch"))
	})
})
