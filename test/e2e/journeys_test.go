package e2e

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/internal/units"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// Assets of the simulator's table: ETH on Ethereum, SOL on Solana (the three providers route it),
// wNEAR (only route_A lists it) and TRX (only route_B lists it), so wNEAR→TRX has no route.
const (
	ethETH      = partnerapi.ETH
	solSOL      = partnerapi.SOL
	ethUSDC     = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
	sender      = partnerapi.Sender
	solDest     = partnerapi.SolRecipient
	pointOneETH = partnerapi.PointOneETH
)

// historyStatuses lists the order's transitions with contiguous seqs from 1.
func historyStatuses(order swapclient.Order) []swapclient.OrderStatus {
	var out []swapclient.OrderStatus
	for i, h := range order.History {
		Expect(h.Seq).To(Equal(i+1), "history seqs are contiguous")
		out = append(out, h.Status)
	}
	return out
}

// expectWebhookPerTransition checks the receiver got one verified event per transition of
// the order, in sequence, with matching statuses.
func expectWebhookPerTransition(order swapclient.Order) {
	statuses := historyStatuses(order)
	Eventually(func(g Gomega) {
		events := receiver.EventsFor(order.Id)
		g.Expect(events).To(HaveLen(len(statuses)))
		bySeq := map[int64]string{}
		for _, ev := range events {
			bySeq[ev.Sequence] = ev.Status
			g.Expect(ev.Type).To(Equal("order.status_changed"))
			g.Expect(ev.ID).To(HavePrefix("evt_"))
			g.Expect(ev.ProviderID).To(Equal(string(order.ProviderId)))
		}
		for i, s := range statuses {
			g.Expect(bySeq[int64(i+1)]).To(Equal(string(s)), "event of seq %d", i+1)
		}
	}).Should(Succeed())
	Expect(receiver.Rejected()).To(BeZero(), "every delivery verified")
}

// kubectlGet runs kubectl get args in the suite's namespace and returns its output.
func kubectlGet(args ...string) string {
	GinkgoHelper()
	out, err := exec.Command(filepath.Join(testenv.AssetsDir(), "kubectl"),
		append([]string{"--kubeconfig", env.Plane.KubeconfigPath, "get", "-n", env.Namespace}, args...)...).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "%s", out)
	return string(out)
}

// dryQuote asks partner for a dry quote of amount from origin to destination.
func dryQuote(origin, destination, amount string, swapType swapclient.QuoteRequestSwapType) *swapclient.RequestQuoteResponse {
	dry := true
	q := swapclient.QuoteRequest{OriginAsset: origin, DestinationAsset: destination, Amount: amount, Dry: &dry}
	if swapType != "" {
		q.SwapType = &swapType
	}
	r, err := partner.API.RequestQuoteWithResponse(context.Background(), nil, q)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// hint sends partner's deposit hint txHash for order id.
func hint(c *partnerapi.Client, id, txHash string) *swapclient.SubmitDepositResponse {
	r, err := c.API.SubmitDepositWithResponse(context.Background(), id, swapclient.DepositRequest{TxHash: txHash})
	Expect(err).NotTo(HaveOccurred())
	return r
}

var _ = Describe("A partner's journey", func() {
	ctx := context.Background()

	It("lists assets, previews, orders, deposits, hints and reaches SUCCESS with a verified webhook per transition", func() {
		By("listing the assets of a chain")
		chain := "eth"
		assets, err := partner.API.ListAssetsWithResponse(ctx, &swapclient.ListAssetsParams{Chain: &chain})
		Expect(err).NotTo(HaveOccurred())
		Expect(assets.JSON200).NotTo(BeNil(), "%d %s", assets.StatusCode(), assets.Body)
		ids := []string{}
		for _, a := range assets.JSON200.Assets {
			ids = append(ids, a.AssetId)
			Expect(a.Chain).To(Equal("eth"))
		}
		Expect(ids).To(ContainElements(ethETH, ethUSDC))

		By("getting a dry quote from the three providers")
		q := dryQuote(ethETH, solSOL, pointOneETH, "")
		Expect(q.JSON200).NotTo(BeNil(), "%d %s", q.StatusCode(), q.Body)
		Expect(q.JSON200.Candidates).To(HaveLen(3))
		best := q.JSON200.Best
		bestOut, _ := new(big.Int).SetString(best.AmountOut, 10)
		for _, c := range q.JSON200.Candidates {
			out, _ := new(big.Int).SetString(c.AmountOut, 10)
			Expect(bestOut.Cmp(out)).To(BeNumerically(">=", 0), "best has the highest amountOut")
		}
		// $300 of ETH: Relay's 10 bps and $0.25 beat 1Click's 30 bps (and 40 on SOL) and $0.50,
		// and Chainflip's 15 bps and $3 (the simulator's market).
		Expect(best.ProviderId).To(BeEquivalentTo(simulator.Relay))

		By("creating an order with the best provider")
		order := partner.CreateOrder(partnerapi.OrderRequest(best.ProviderId), "")
		Expect(order.Id).To(MatchRegexp(`^ord_[a-z2-7]{26}$`))
		Expect(order.DepositAddress).NotTo(BeNil())
		Expect(order.Status).To(Equal(swapclient.OrderStatusPENDING))

		By("depositing on the simulated chain and hinting the transaction")
		tx := partnerapi.Deposit(env, *order.DepositAddress, pointOneETH)
		h := hint(partner, order.Id, tx)
		Expect(h.StatusCode()).To(Equal(http.StatusAccepted), "%s", h.Body)

		order = partner.AwaitStatus(order.Id, swapclient.OrderStatusSUCCESS)
		Expect(order.InTxHashes).NotTo(BeEmpty())
		Expect(order.OutTxHashes).NotTo(BeEmpty())
		Expect(order.AmountOut).To(BeNil(), "Relay's status names no amounts, and none is guessed")
		Expect(order.Substatus).To(HaveValue(BeEquivalentTo("SETTLED")))
		// Relay's status is PENDING until it fills, and its fill takes less than a poll
		// interval: a poll may or may not land while it is PROCESSING.
		Expect(historyStatuses(order)).To(Or(
			HaveExactElements(swapclient.OrderStatusPENDING, swapclient.OrderStatusPROCESSING, swapclient.OrderStatusSUCCESS),
			HaveExactElements(swapclient.OrderStatusPENDING, swapclient.OrderStatusSUCCESS)))
		expectWebhookPerTransition(order)

		By("answering 410 to a hint on the terminal order")
		h = hint(partner, order.Id, tx)
		Expect(h.JSON410).NotTo(BeNil(), "%d %s", h.StatusCode(), h.Body)
		Expect(h.JSON410.Error).To(BeEquivalentTo("order already in terminal state"))

		By("showing the order in kubectl's printer columns")
		out := kubectlGet("swaporders")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		Expect(strings.Fields(lines[0])).To(HaveExactElements("NAME", "STATUS", "PROVIDER", "SWAP", "AGE"))
		Expect(out).To(MatchRegexp(`(?m)^%s\s+SUCCESS\s+relay\s+0\.1 ETH \(eth\) -> SOL \(sol\)\s`,
			strings.ReplaceAll(order.Id, "_", "-")), "the swap in asset units; Relay reports no amount received, so none is shown")
		wide := kubectlGet("swaporders", "-o", "wide")
		Expect(strings.Fields(strings.SplitN(wide, "\n", 2)[0])).To(ContainElements("FROM", "TO", "AMOUNT", "SUBSTATUS"))
		Expect(wide).To(MatchRegexp(`(?m)^%s\s+SUCCESS\s.*\s%s\s+%s\s+%s\s+SETTLED\s`,
			strings.ReplaceAll(order.Id, "_", "-"), regexpQuote(ethETH), regexpQuote(solSOL), pointOneETH), "-o wide keeps the raw ids and amount")
	})

	It("refunds an under-deposit to Relay's strict address at once", func() {
		created := partner.CreateOrder(partnerapi.OrderRequest(simulator.Relay), "")
		partnerapi.Deposit(env, *created.DepositAddress, "10000000000000000") // a tenth of the amount
		order := partner.AwaitStatus(created.Id, swapclient.OrderStatusREFUNDED)
		Expect(order.Substatus).To(HaveValue(BeEquivalentTo("REFUNDED")))
		Expect(order.RefundedAmount).To(BeNil(), "Relay's status names the refund transaction, not its amount")
		Expect(order.ProviderStatus).To(HaveValue(Equal("refund")))
		expectWebhookPerTransition(order)
	})

	It("swaps an exact output amount, which 1Click and Relay quote and Chainflip refuses, through 1Click's candidate", func() {
		By("quoting it: route_B answers a per-provider error, never a made-up quote")
		dry := dryQuote(ethETH, solSOL, "2000000000", swapclient.QuoteRequestSwapTypeEXACTOUTPUT)
		Expect(dry.JSON200).NotTo(BeNil(), "%d %s", dry.StatusCode(), dry.Body)
		Expect(dry.JSON200.Best.ProviderId).To(BeEquivalentTo(simulator.Relay), "the lowest amountIn: Relay's fees are the smallest")
		Expect(dry.JSON200.Errors).To(ContainElement(HaveField("ProviderId", swapclient.ProviderId(swapv1.ProviderRouteB))), "%s", dry.Body)
		var routeA *swapclient.QuoteCandidate
		for _, c := range dry.JSON200.Candidates {
			if c.ProviderId == swapclient.ProviderId(swapv1.ProviderRouteA) {
				routeA = &c
			}
		}
		Expect(routeA).NotTo(BeNil(), "%s", dry.Body)

		By("creating it at once (dry:false) bound to route_A's candidate")
		exactOut, notDry, sender, recipient := swapclient.QuoteRequestSwapTypeEXACTOUTPUT, false, sender, solDest
		r, err := partner.API.RequestQuoteWithResponse(ctx, nil, swapclient.QuoteRequest{
			OriginAsset: ethETH, DestinationAsset: solSOL, Amount: "2000000000", // exactly 2 SOL out
			SwapType: &exactOut, Dry: &notDry, Sender: &sender, Recipient: &recipient, QuoteId: routeA.QuoteId,
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON201).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
		order, quote := r.JSON201.Order, r.JSON201.Quote
		Expect(order.ProviderId).To(BeEquivalentTo(swapv1.ProviderRouteA))
		Expect(order.SwapType).To(Equal(swapclient.OrderSwapTypeEXACTOUTPUT))
		Expect(quote.AmountOut).To(Equal("2000000000"))
		Expect(quote.MaxAmountIn).NotTo(BeNil())

		partnerapi.Deposit(env, *order.DepositAddress, quote.AmountIn)
		done := partner.AwaitStatus(order.Id, swapclient.OrderStatusSUCCESS)
		Expect(done.AmountOut).To(HaveValue(Equal("2000000000")))
		expectWebhookPerTransition(done)

		By("kubectl shows what the swap cost beside the exact output")
		Expect(done.AmountIn).NotTo(BeNil())
		spent, ok := units.SignificantString(*done.AmountIn, 18, 4)
		Expect(ok).To(BeTrue())
		Expect(kubectlGet("swaporders")).To(MatchRegexp(`(?m)^%s\s+SUCCESS\s+route_A\s+%s ETH \(eth\) -> 2 SOL \(sol\)\s`,
			orderid.ObjectName(done.Id), regexpQuote(spent)), "the settled input in asset units")
	})

	It("refunds an under-deposit to 1Click", func() {
		created := partner.CreateOrder(partnerapi.OrderRequest("route_A"), "")
		partnerapi.Deposit(env, *created.DepositAddress, "10000000000000000") // a tenth of the amount
		order := partner.AwaitStatus(created.Id, swapclient.OrderStatusREFUNDED)
		Expect(order.RefundedAmount).To(HaveValue(Equal("10000000000000000")))
		Expect(order.Substatus).To(HaveValue(BeEquivalentTo("REFUNDED")))
		expectWebhookPerTransition(order)
	})

	It("swaps a smaller deposit to Chainflip, as Chainflip does above its minimum, and says so: PARTIAL_DEPOSIT", func() {
		created := partner.CreateOrder(partnerapi.OrderRequest("route_B"), "")
		partnerapi.Deposit(env, *created.DepositAddress, "50000000000000000") // half the amount, about $150
		order := partner.AwaitStatus(created.Id, swapclient.OrderStatusSUCCESS)
		Expect(order.AmountIn).To(HaveValue(Equal("50000000000000000")))
		Expect(order.DepositedAmount).To(HaveValue(Equal("50000000000000000")))
		Expect(order.ProviderStatus).To(HaveValue(Equal("COMPLETED")))
		Expect(order.Quote).NotTo(BeNil())
		Expect(amount(*order.AmountOut).Cmp(amount(*order.Quote.MinAmountOut))).To(Equal(-1),
			"half the deposit buys less than the quote's minimum: the substatus must say why")
		Expect(order.Substatus).To(HaveValue(BeEquivalentTo("PARTIAL_DEPOSIT")), "never SETTLED: the output is not the quoted one")
		expectWebhookPerTransition(order)
		Expect(receiver.EventsFor(order.Id)).To(ContainElement(And(HaveField("Status", "SUCCESS"), HaveField("Substatus", "PARTIAL_DEPOSIT"))),
			"the webhook of the SUCCESS")

		stated := receiptOf(order.Id)
		Expect(stated).To(And(HaveKeyWithValue("status", "SUCCESS"), HaveKeyWithValue("substatus", "PARTIAL_DEPOSIT"),
			HaveKeyWithValue("final", true), HaveKeyWithValue("depositedAmount", "50000000000000000")), "the receipt")
		expectIssuedAtAfterHistory(stated)

		wide, err := exec.Command(filepath.Join(testenv.AssetsDir(), "kubectl"),
			"--kubeconfig", env.Plane.KubeconfigPath, "get", "swaporders", "-n", env.Namespace, "-o", "wide").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", wide)
		Expect(string(wide)).To(MatchRegexp(`(?m)^%s\s+SUCCESS\s.*\sPARTIAL_DEPOSIT\s`, orderid.ObjectName(order.Id)), "kubectl get -o wide")
	})

	It("fails an order the provider refuses and tells the partner why", func() {
		req := partnerapi.OrderRequest("route_A")
		req.Amount = "1000000000000000" // 0.001 ETH, about $3: below route_A's minimum
		r, err := partner.API.CreateOrderWithResponse(ctx, nil, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON400).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
		Expect(r.JSON400.Error).To(BeEquivalentTo("amount_too_low"))
	})

	It("keeps one partner's orders invisible to another", func() {
		id := partner.CreateOrder(partnerapi.OrderRequest("route_A"), "").Id

		other := partnerapi.NewPartner(env, "globex", 300)
		read, err := other.API.GetOrderWithResponse(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(read.JSON404).NotTo(BeNil(), "%d %s", read.StatusCode(), read.Body)
		Expect(read.JSON404.Error).To(BeEquivalentTo("order not found"))
		h := hint(other, id, "0xfeed")
		Expect(h.JSON404).NotTo(BeNil(), "%d %s", h.StatusCode(), h.Body)
		Expect(h.JSON404.Error).To(BeEquivalentTo("order not found"))
		missing, err := other.API.GetOrderWithResponse(ctx, "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa")
		Expect(err).NotTo(HaveOccurred())
		Expect(missing.Body).To(MatchJSON(read.Body), "indistinguishable from a missing order")
	})

	It("limits requests per key with headers and Retry-After", func() {
		limited := partnerapi.NewPartner(env, "initech", 3)
		var last *swapclient.ListAssetsResponse
		for i := 0; i < 4; i++ {
			var err error
			last, err = limited.API.ListAssetsWithResponse(ctx, nil)
			Expect(err).NotTo(HaveOccurred())
			header := last.HTTPResponse.Header
			Expect(header.Get("X-RateLimit-Limit")).To(Equal("3"))
			Expect(header.Get("X-RateLimit-Remaining")).NotTo(BeEmpty())
			reset, err := strconv.ParseInt(header.Get("X-RateLimit-Reset"), 10, 64)
			Expect(err).NotTo(HaveOccurred())
			Expect(time.Unix(reset, 0)).To(BeTemporally("~", time.Now(), 2*time.Minute))
		}
		Expect(last.JSON429).NotTo(BeNil(), "%d %s", last.StatusCode(), last.Body)
		Expect(last.JSON429.Error).To(BeEquivalentTo("rate limit exceeded"))
		retry, err := strconv.Atoi(last.HTTPResponse.Header.Get("Retry-After"))
		Expect(err).NotTo(HaveOccurred())
		Expect(retry).To(BeNumerically(">=", 1))
	})

	It("returns the same order for a retried Idempotency-Key and 422 for a different body", func() {
		key := fmt.Sprintf("retry-%d", time.Now().UnixNano())
		first := partner.CreateOrder(partnerapi.OrderRequest("route_A"), key)
		again := partner.CreateOrder(partnerapi.OrderRequest("route_A"), key)
		Expect(again.Id).To(Equal(first.Id))
		Expect(again.DepositAddress).To(Equal(first.DepositAddress))

		changed := partnerapi.OrderRequest("route_A")
		changed.Amount = "200000000000000000"
		r, err := partner.API.CreateOrderWithResponse(ctx, &swapclient.CreateOrderParams{IdempotencyKey: &key}, changed)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON422).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
		Expect(r.JSON422.Error).To(BeEquivalentTo("idempotency key reused"))
	})

	It("turns 50 concurrent identical order requests into one order with one deposit address", func() {
		countOrders := func() int {
			var list swapv1.SwapOrderList
			Expect(env.Client.List(context.Background(), &list, client.InNamespace(env.Namespace))).To(Succeed())
			return len(list.Items)
		}
		before := countOrders()
		addressesBefore := env.Simulator.Stats().DepositAddressesCreated[swapv1.ProviderRouteB][solDest]
		key := fmt.Sprintf("burst-%d", time.Now().UnixNano())
		const n = 50
		results := make([]swapclient.Order, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				defer GinkgoRecover()
				results[i] = partner.CreateOrder(partnerapi.OrderRequest("route_B"), key)
			})
		}
		wg.Wait()
		Expect(results[0].DepositAddress).NotTo(BeNil())
		for i, r := range results {
			Expect(r.Id).To(Equal(results[0].Id), "request %d", i)
			Expect(r.DepositAddress).To(Equal(results[0].DepositAddress), "request %d", i)
		}
		Expect(countOrders()).To(Equal(before+1), "one SwapOrder for the 50 requests")
		Expect(env.Simulator.Stats().DepositAddressesCreated[swapv1.ProviderRouteB][solDest]).To(Equal(addressesBefore+1),
			"the provider issued exactly one deposit address")
	})

	DescribeTable("answers dry quotes it cannot route with the contract's errors",
		func(origin, destination, amount string, code, detail string) {
			r := dryQuote(origin, destination, amount, "")
			Expect(r.JSON400).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
			Expect(r.JSON400.Error).To(BeEquivalentTo(code))
			Expect(r.JSON400.Detail).To(HaveValue(MatchRegexp(detail)))
		},
		// $1.50: below Relay's $2, the lowest minimum, which Relay does not state: route_A's $10
		// is named as route_A's, not as the minimum.
		Entry("too low an amount", ethETH, solSOL, "500000000000000", "amount_too_low",
			`^minimum amount is not stated by relay; route_A's minimum is 3333333333333334$`),
		Entry("too high an amount", ethETH, solSOL, "1000000000000000000000", "amount_too_high",
			`^maximum amount is not stated by relay; route_B's maximum is [0-9]+$`),
		// Relay does not route USDT on Tron: every provider asked states its minimum.
		Entry("too low an amount where every provider states its minimum", ethETH, tronUSDT, "1000", "amount_too_low",
			`^minimum amount is 3333333333333334 \(route_A\)$`),
	)
})

var _ = It("answers a dry quote for a pair no provider routes with 404", func() {
	// An asset only route_A lists and one only route_B lists: no provider routes the pair.
	ctx := context.Background()
	assets, err := partner.API.ListAssetsWithResponse(ctx, nil)
	Expect(err).NotTo(HaveOccurred())
	Expect(assets.JSON200).NotTo(BeNil(), "%d %s", assets.StatusCode(), assets.Body)
	only := map[swapclient.ProviderId]string{}
	for _, a := range assets.JSON200.Assets {
		if len(a.Providers) == 1 {
			only[a.Providers[0]] = a.AssetId
		}
	}
	Expect(only).To(HaveKey(swapclient.ProviderId(swapv1.ProviderRouteA)))
	Expect(only).To(HaveKey(swapclient.ProviderId(swapv1.ProviderRouteB)))
	r := dryQuote(only[swapclient.ProviderId(swapv1.ProviderRouteA)], only[swapclient.ProviderId(swapv1.ProviderRouteB)], "1000000000", "")
	Expect(r.JSON404).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
	Expect(r.JSON404.Error).To(BeEquivalentTo("no provider supports this pair"))
	targets, err := partner.API.SwappableTargetsWithResponse(ctx, &swapclient.SwappableTargetsParams{From: only[swapclient.ProviderId(swapv1.ProviderRouteA)]})
	Expect(err).NotTo(HaveOccurred())
	Expect(targets.JSON200).NotTo(BeNil(), "%d %s", targets.StatusCode(), targets.Body)
	Expect(targets.JSON200.Targets).NotTo(ContainElement(only[swapclient.ProviderId(swapv1.ProviderRouteB)]))
})

func regexpQuote(s string) string { return strings.NewReplacer("/", `\/`, ".", `\.`).Replace(s) }
