package e2e

import (
	"context"
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// A request refused before its order exists keeps neither its clientReference nor its
// Idempotency-Key: the partner fixes the fault and sends it again under both.
var _ = Describe("A refused order request leaves no trace", func() {
	// retried sends refused, expects the refusal, then fixed under the same clientReference and
	// Idempotency-Key, and expects the order: 201, the only order with that reference.
	retried := func(path string, refused, fixed any, status int, code string, ref, key string) {
		GinkgoHelper()
		r := partner.Post(path, refused, "Idempotency-Key", key)
		Expect(r.Status).To(Equal(status), "%s", r.Raw)
		Expect(r.Body).To(HaveKeyWithValue("error", code))

		ok := partner.Post(path, fixed, "Idempotency-Key", key)
		Expect(ok.Status).To(Equal(http.StatusCreated), "the fixed request under the same clientReference and key: %s", ok.Raw)
		created := ok.Body
		if path == "/v1/quote" {
			created = partnerapi.Obj(ok.Body, "order")
		}
		id := partnerapi.Str(created, "id")
		Expect(partnerapi.Str(created, "clientReference")).To(Equal(ref))
		listed := partner.Get("/v1/orders?clientReference=" + ref)
		Expect(listed.Status).To(Equal(http.StatusOK), "%s", listed.Raw)
		Expect(partnerapi.List(listed.Body, "orders")).To(ConsistOf(HaveKeyWithValue("id", id)), "one order has the reference")
		again := partner.Post(path, fixed, "Idempotency-Key", key)
		Expect(again.Status).To(Equal(http.StatusCreated), "%s", again.Raw)
		Expect(again.Raw).To(ContainSubstring(id), "a retry of the key answers the same order")
	}
	unique := func(prefix string) string { return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()) }

	It("a 403 of screening, then the order with a clean address: 201", func() {
		sanctionsList(sdnRefund, "2026-11-20")
		// The specs after this one screen with the dev system's list again.
		DeferCleanup(func() {
			Expect(devenv.ApplySanctionsList(context.Background(), env.Client, env.Namespace)).To(Succeed())
		})
		Eventually(func() int { return partner.Post("/v1/order", screenedOrder(sender, listedRefund)).Status }).
			Should(Equal(http.StatusForbidden), "the list is loaded")

		ref := unique("screened")
		refused, fixed := screenedOrder(sender, listedRefund), screenedOrder(sender, "")
		refused.ClientReference, fixed.ClientReference = &ref, &ref
		retried("/v1/order", refused, fixed, http.StatusForbidden, "address not allowed", ref, ref)
	})

	It("a 400 quote mismatch, then the order as quoted: 201", func() {
		dry := dryQuote(ethETH, solSOL, pointOneETH, "")
		Expect(dry.JSON200).NotTo(BeNil(), "%d %s", dry.StatusCode(), dry.Body)
		ref := unique("mismatch")
		refused, fixed := partnerapi.OrderRequest(dry.JSON200.Best.ProviderId), partnerapi.OrderRequest(dry.JSON200.Best.ProviderId)
		refused.QuoteId, fixed.QuoteId = dry.JSON200.Best.QuoteId, dry.JSON200.Best.QuoteId
		refused.ClientReference, fixed.ClientReference = &ref, &ref
		refused.Amount = "100000000000000001"
		retried("/v1/order", refused, fixed, http.StatusBadRequest, "quote mismatch", ref, ref)
	})

	It("a dry:false quote below every provider's minimum, then one above it: 201", func() {
		ref := unique("too-low")
		notDry, sender, recipient := false, sender, solDest
		fixed := swapclient.QuoteRequest{OriginAsset: ethETH, DestinationAsset: solSOL, Amount: pointOneETH,
			Dry: &notDry, Sender: &sender, Recipient: &recipient, ClientReference: &ref}
		refused := fixed
		refused.Amount = "1000" // a thousand wei
		retried("/v1/quote", refused, fixed, http.StatusBadRequest, "amount_too_low", ref, ref)
	})
})
