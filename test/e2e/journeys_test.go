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
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// Assets of the simulator's table: ETH on Ethereum, SOL on Solana (both providers route it),
// wNEAR (only route_A lists it) and TRX (only route_B lists it), so wNEAR→TRX has no route.
const (
	ethETH      = partnerapi.ETH
	solSOL      = partnerapi.SOL
	ethUSDC     = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
	sender      = partnerapi.Sender
	solDest     = partnerapi.SolRecipient
	pointOneETH = partnerapi.PointOneETH
)

// historyStatuses lists the order's transitions as "PREV>NEW" with contiguous seqs from 1.
func historyStatuses(order map[string]any) []string {
	var out []string
	for i, h := range partnerapi.List(order, "history") {
		e := h.(map[string]any)
		Expect(e["seq"]).To(BeNumerically("==", i+1), "history seqs are contiguous")
		out = append(out, partnerapi.Str(e, "status"))
	}
	return out
}

// expectWebhookPerTransition checks the receiver got one verified event per transition of
// the order, in sequence, with matching statuses.
func expectWebhookPerTransition(order map[string]any) {
	id := partnerapi.Str(order, "id")
	statuses := historyStatuses(order)
	Eventually(func(g Gomega) {
		events := receiver.EventsFor(id)
		g.Expect(events).To(HaveLen(len(statuses)))
		bySeq := map[int64]string{}
		for _, ev := range events {
			bySeq[ev.Sequence] = ev.Status
			g.Expect(ev.Type).To(Equal("order.status_changed"))
			g.Expect(ev.ID).To(HavePrefix("evt_"))
			g.Expect(ev.ProviderID).To(Equal(partnerapi.Str(order, "providerId")))
		}
		for i, s := range statuses {
			g.Expect(bySeq[int64(i+1)]).To(Equal(s), "event of seq %d", i+1)
		}
	}).Should(Succeed())
	Expect(receiver.Rejected()).To(BeZero(), "every delivery verified")
}

var _ = Describe("A partner's journey", func() {
	It("lists assets, previews, orders, deposits, hints and reaches SUCCESS with a verified webhook per transition", func() {
		By("listing the assets of a chain")
		r := partner.Get("/v1/assets?chain=eth")
		Expect(r.Status).To(Equal(http.StatusOK))
		ids := []string{}
		for _, a := range partnerapi.List(r.Body, "assets") {
			ids = append(ids, partnerapi.Str(a.(map[string]any), "assetId"))
			Expect(partnerapi.Str(a.(map[string]any), "chain")).To(Equal("eth"))
		}
		Expect(ids).To(ContainElements(ethETH, ethUSDC))

		By("getting a dry quote from both providers")
		r = partner.Post("/v1/quote", map[string]any{
			"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH, "dry": true,
		})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Raw)
		Expect(partnerapi.List(r.Body, "candidates")).To(HaveLen(2))
		best := partnerapi.Obj(r.Body, "best")
		Expect(partnerapi.Str(best, "providerId")).To(BeElementOf("route_A", "route_B"))
		for _, c := range partnerapi.List(r.Body, "candidates") {
			out, _ := new(big.Int).SetString(partnerapi.Str(c.(map[string]any), "amountOut"), 10)
			bestOut, _ := new(big.Int).SetString(partnerapi.Str(best, "amountOut"), 10)
			Expect(bestOut.Cmp(out)).To(BeNumerically(">=", 0), "best has the highest amountOut")
		}

		By("creating an order with the best provider")
		r = partner.Post("/v1/order", partnerapi.OrderRequest(partnerapi.Str(best, "providerId")))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r.Raw)
		order := r.Body
		id, address := partnerapi.Str(order, "id"), partnerapi.Str(order, "depositAddress")
		Expect(id).To(MatchRegexp(`^ord_[a-z2-7]{26}$`))
		Expect(address).NotTo(BeEmpty())
		Expect(partnerapi.Str(order, "status")).To(Equal("PENDING"))

		By("depositing on the simulated chain and hinting the transaction")
		tx := partnerapi.Deposit(env, address, pointOneETH)
		r = partner.Post("/v1/order/"+id+"/deposit", map[string]any{"txHash": tx})
		Expect(r.Status).To(Equal(http.StatusAccepted), "%s", r.Raw)

		order = partner.AwaitStatus(id, "SUCCESS")
		Expect(partnerapi.List(order, "inTxHashes")).NotTo(BeEmpty())
		Expect(partnerapi.List(order, "outTxHashes")).NotTo(BeEmpty())
		Expect(partnerapi.Str(order, "amountOut")).NotTo(BeEmpty())
		Expect(historyStatuses(order)).To(HaveExactElements("PENDING", "PROCESSING", "SUCCESS"))
		expectWebhookPerTransition(order)

		By("answering 410 to a hint on the terminal order")
		r = partner.Post("/v1/order/"+id+"/deposit", map[string]any{"txHash": tx})
		Expect(r.Status).To(Equal(http.StatusGone))
		Expect(r.Body["error"]).To(Equal("order already in terminal state"))

		By("showing the order in kubectl's printer columns")
		out, err := exec.Command(filepath.Join(testenv.AssetsDir(), "kubectl"),
			"--kubeconfig", env.Plane.KubeconfigPath, "get", "swaporders", "-n", env.Namespace).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", out)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		Expect(strings.Fields(lines[0])).To(HaveExactElements("NAME", "ID", "STATUS", "PROVIDER", "SWAP", "AGE"))
		Expect(string(out)).To(MatchRegexp(`(?m)^\S+\s+%s\s+SUCCESS\s+%s\s+0\.1 ETH \(eth\) → SOL \(sol\)\s`,
			id, partnerapi.Str(best, "providerId")), "the swap in asset units")
		wide, err := exec.Command(filepath.Join(testenv.AssetsDir(), "kubectl"),
			"--kubeconfig", env.Plane.KubeconfigPath, "get", "swaporders", "-n", env.Namespace, "-o", "wide").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", wide)
		Expect(strings.Fields(strings.SplitN(string(wide), "\n", 2)[0])).To(ContainElements("FROM", "TO", "AMOUNT", "SUBSTATUS"))
		Expect(string(wide)).To(MatchRegexp(`(?m)^\S+\s+%s\s+SUCCESS\s.*\s%s\s+%s\s+%s\s+SETTLED\s`,
			id, regexpQuote(ethETH), regexpQuote(solSOL), pointOneETH), "-o wide keeps the raw ids and amount")
	})

	It("swaps an exact output amount, which only 1Click offers", func() {
		By("quoting it: route_B answers a per-provider error, never a made-up quote")
		dry := partner.Post("/v1/quote", map[string]any{
			"originAsset": ethETH, "destinationAsset": solSOL, "amount": "2000000000", "swapType": "EXACT_OUTPUT", "dry": true,
		})
		Expect(dry.Status).To(Equal(http.StatusOK), "%s", dry.Raw)
		Expect(partnerapi.Str(partnerapi.Obj(dry.Body, "best"), "providerId")).To(Equal("route_A"))
		errs, _ := dry.Body["errors"].([]any)
		Expect(errs).To(ContainElement(HaveKeyWithValue("providerId", "route_B")), "%s", dry.Raw)

		r := partner.Post("/v1/quote", map[string]any{
			"originAsset": ethETH, "destinationAsset": solSOL, "amount": "2000000000", // exactly 2 SOL out
			"swapType": "EXACT_OUTPUT", "dry": false, "sender": sender, "recipient": solDest,
		})
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r.Raw)
		order, quote := partnerapi.Obj(r.Body, "order"), partnerapi.Obj(r.Body, "quote")
		Expect(partnerapi.Str(order, "swapType")).To(Equal("EXACT_OUTPUT"))
		Expect(partnerapi.Str(quote, "amountOut")).To(Equal("2000000000"))
		Expect(partnerapi.Str(quote, "maxAmountIn")).NotTo(BeEmpty())

		partnerapi.Deposit(env, partnerapi.Str(order, "depositAddress"), partnerapi.Str(quote, "amountIn"))
		done := partner.AwaitStatus(partnerapi.Str(order, "id"), "SUCCESS")
		Expect(partnerapi.Str(done, "amountOut")).To(Equal("2000000000"))
		expectWebhookPerTransition(done)
	})

	It("refunds an under-deposit to 1Click", func() {
		r := partner.Post("/v1/order", partnerapi.OrderRequest("route_A"))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r.Raw)
		id := partnerapi.Str(r.Body, "id")
		partnerapi.Deposit(env, partnerapi.Str(r.Body, "depositAddress"), "10000000000000000") // a tenth of the amount
		order := partner.AwaitStatus(id, "REFUNDED")
		Expect(partnerapi.Str(order, "refundedAmount")).To(Equal("10000000000000000"))
		Expect(partnerapi.Str(order, "substatus")).To(Equal("REFUNDED"))
		expectWebhookPerTransition(order)
	})

	It("swaps a smaller deposit to Chainflip, as Chainflip does above its minimum", func() {
		r := partner.Post("/v1/order", partnerapi.OrderRequest("route_B"))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r.Raw)
		id := partnerapi.Str(r.Body, "id")
		partnerapi.Deposit(env, partnerapi.Str(r.Body, "depositAddress"), "50000000000000000") // half the amount, about $150
		order := partner.AwaitStatus(id, "SUCCESS")
		Expect(partnerapi.Str(order, "amountIn")).To(Equal("50000000000000000"))
		Expect(partnerapi.Str(order, "depositedAmount")).To(Equal("50000000000000000"))
		Expect(partnerapi.Str(order, "substatus")).To(Equal("SETTLED"))
		Expect(partnerapi.Str(order, "providerStatus")).To(Equal("COMPLETED"))
		expectWebhookPerTransition(order)
	})

	It("fails an order the provider refuses and tells the partner why", func() {
		req := partnerapi.OrderRequest("route_A")
		req["amount"] = "1000000000000000" // 0.001 ETH, about $3: below route_A's minimum
		r := partner.Post("/v1/order", req)
		Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r.Raw)
		Expect(r.Body["error"]).To(Equal("amount_too_low"))
	})

	It("keeps one partner's orders invisible to another", func() {
		r := partner.Post("/v1/order", partnerapi.OrderRequest("route_A"))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r.Raw)
		id := partnerapi.Str(r.Body, "id")

		other := partnerapi.NewPartner(env, "globex", 300)
		for _, resp := range []partnerapi.Response{
			other.Get("/v1/order/" + id),
			other.Post("/v1/order/"+id+"/deposit", map[string]any{"txHash": "0xfeed"}),
		} {
			Expect(resp.Status).To(Equal(http.StatusNotFound))
			Expect(resp.Body["error"]).To(Equal("order not found"))
		}
		missing := other.Get("/v1/order/ord_aaaaaaaaaaaaaaaaaaaaaaaaaa")
		Expect(missing.Raw).To(MatchJSON(other.Get("/v1/order/"+id).Raw), "indistinguishable from a missing order")
	})

	It("limits requests per key with headers and Retry-After", func() {
		limited := partnerapi.NewPartner(env, "initech", 3)
		var last partnerapi.Response
		for i := 0; i < 4; i++ {
			last = limited.Get("/v1/assets")
			Expect(last.Header.Get("X-RateLimit-Limit")).To(Equal("3"))
			Expect(last.Header.Get("X-RateLimit-Remaining")).NotTo(BeEmpty())
			reset, err := strconv.ParseInt(last.Header.Get("X-RateLimit-Reset"), 10, 64)
			Expect(err).NotTo(HaveOccurred())
			Expect(time.Unix(reset, 0)).To(BeTemporally("~", time.Now(), 2*time.Minute))
		}
		Expect(last.Status).To(Equal(http.StatusTooManyRequests))
		Expect(last.Body["error"]).To(Equal("rate limit exceeded"))
		retry, err := strconv.Atoi(last.Header.Get("Retry-After"))
		Expect(err).NotTo(HaveOccurred())
		Expect(retry).To(BeNumerically(">=", 1))
	})

	It("returns the same order for a retried Idempotency-Key and 422 for a different body", func() {
		key := fmt.Sprintf("retry-%d", time.Now().UnixNano())
		first := partner.Post("/v1/order", partnerapi.OrderRequest("route_A"), "Idempotency-Key", key)
		Expect(first.Status).To(Equal(http.StatusCreated), "%s", first.Raw)
		again := partner.Post("/v1/order", partnerapi.OrderRequest("route_A"), "Idempotency-Key", key)
		Expect(again.Status).To(BeElementOf(http.StatusOK, http.StatusCreated))
		Expect(partnerapi.Str(again.Body, "id")).To(Equal(partnerapi.Str(first.Body, "id")))
		Expect(partnerapi.Str(again.Body, "depositAddress")).To(Equal(partnerapi.Str(first.Body, "depositAddress")))

		changed := partnerapi.OrderRequest("route_A")
		changed["amount"] = "200000000000000000"
		r := partner.Post("/v1/order", changed, "Idempotency-Key", key)
		Expect(r.Status).To(Equal(http.StatusUnprocessableEntity))
		Expect(r.Body["error"]).To(Equal("idempotency key reused"))
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
		results := make([]partnerapi.Response, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				defer GinkgoRecover()
				results[i] = partner.Post("/v1/order", partnerapi.OrderRequest("route_B"), "Idempotency-Key", key)
			})
		}
		wg.Wait()
		id, address := partnerapi.Str(results[0].Body, "id"), partnerapi.Str(results[0].Body, "depositAddress")
		Expect(address).NotTo(BeEmpty())
		for i, r := range results {
			Expect(r.Status).To(BeElementOf(http.StatusOK, http.StatusCreated), "request %d: %s", i, r.Raw)
			Expect(partnerapi.Str(r.Body, "id")).To(Equal(id))
			Expect(partnerapi.Str(r.Body, "depositAddress")).To(Equal(address))
		}
		Expect(countOrders()).To(Equal(before+1), "one SwapOrder for the 50 requests")
		Expect(env.Simulator.Stats().DepositAddressesCreated[swapv1.ProviderRouteB][solDest]).To(Equal(addressesBefore+1),
			"the provider issued exactly one deposit address")
	})

	DescribeTable("answers dry quotes it cannot route with the contract's errors",
		func(origin, destination, amount string, status int, code string) {
			r := partner.Post("/v1/quote", map[string]any{
				"originAsset": origin, "destinationAsset": destination, "amount": amount, "dry": true,
			})
			Expect(r.Status).To(Equal(status), "%s", r.Raw)
			Expect(r.Body["error"]).To(Equal(code))
		},
		Entry("too low an amount", ethETH, solSOL, "1000000000000000", http.StatusBadRequest, "amount_too_low"),
		Entry("too high an amount", ethETH, solSOL, "1000000000000000000000", http.StatusBadRequest, "amount_too_high"),
	)
})

var _ = It("answers a dry quote for a pair no provider routes with 404", func() {
	// An asset only route_A lists and one only route_B lists: no provider routes the pair.
	only := map[string]string{}
	for _, a := range partnerapi.List(partner.Get("/v1/assets").Body, "assets") {
		asset := a.(map[string]any)
		if providers := partnerapi.List(asset, "providers"); len(providers) == 1 {
			only[providers[0].(string)] = partnerapi.Str(asset, "assetId")
		}
	}
	Expect(only).To(HaveKey("route_A"))
	Expect(only).To(HaveKey("route_B"))
	r := partner.Post("/v1/quote", map[string]any{
		"originAsset": only["route_A"], "destinationAsset": only["route_B"], "amount": "1000000000", "dry": true,
	})
	Expect(r.Status).To(Equal(http.StatusNotFound), "%s", r.Raw)
	Expect(r.Body["error"]).To(Equal("no provider supports this pair"))
	targets := partner.Get("/v1/swappable-targets?from=" + only["route_A"])
	Expect(partnerapi.List(targets.Body, "targets")).NotTo(ContainElement(only["route_B"]))
})

func regexpQuote(s string) string { return strings.NewReplacer("/", `\/`, ".", `\.`).Replace(s) }
