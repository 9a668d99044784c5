package e2e

import (
	"context"
	"math/big"

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
		dry := dryQuote(ethETH, solSOL, pointOneETH, "")
		Expect(dry.JSON200).NotTo(BeNil(), "%d %s", dry.StatusCode(), dry.Body)
		candidates := dry.JSON200.Candidates
		Expect(candidates).To(HaveLen(3), "the three providers route ETH → SOL")
		for _, c := range candidates {
			By("ordering " + string(c.ProviderId) + "'s candidate")
			req := partnerapi.OrderRequest(c.ProviderId)
			req.QuoteId = c.QuoteId
			order := partner.CreateOrder(req, "")
			Expect(order.DepositAddress).NotTo(BeNil())
			Expect(order.Quote).NotTo(BeNil())
			Expect(order.Quote.MinAmountOut).NotTo(BeNil())
			Expect(amount(*order.Quote.MinAmountOut).Cmp(amount(*c.MinAmountOut))).To(BeNumerically(">=", 0),
				"%s's binding minimum %s keeps the accepted %s", c.ProviderId, *order.Quote.MinAmountOut, *c.MinAmountOut)
		}

		By("refusing a quoteId for another amount")
		req := partnerapi.OrderRequest(dry.JSON200.Best.ProviderId)
		req.Amount, req.QuoteId = "200000000000000000", dry.JSON200.Best.QuoteId
		r, err := partner.API.CreateOrderWithResponse(context.Background(), nil, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON400).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
		Expect(r.JSON400.Error).To(BeEquivalentTo("quote mismatch"))
	})
})
