package e2e

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
	"github.com/swaprouter/swaprouter/internal/testing/metricsum"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// Addresses only the screening journeys use, as SDN.CSV lists them (EIP-55 checksummed).
const (
	listedRefund = "0x8589427373d6d84e98730d7795d8f6f8731fda16"
	listedSender = "0x098b716b8aaf21512996dc57eb0615e2383e2f96"
	// unscreened is a sender no journey screened before: the screening service's answers are
	// cached, so only a new address reaches the service.
	unscreened = "0x5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c"
	sdnRefund  = "25308,\"LAZARUS GROUP\",-0- ,\"DPRK3\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"a.k.a. \"\"APPLEWORM\"\"; Digital Currency Address - ETH 0x8589427373D6D84E98730D7795D8f6f8731FDA16; Digital Currency Address - XBT 1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V\"\r\n"
	sdnSender  = "31000,\"EXAMPLE MIXER\",-0- ,\"CYBER2\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - ETH 0x098B716B8Aaf21512996dC57EB0615e2383E2f96.\"\r\n\x1a"
)

// screenedOrder is an order of 0.1 ETH to SOL whose sender and refundTo are given.
func screenedOrder(from, refundTo string) swapclient.OrderRequest {
	o := partnerapi.OrderRequest("route_A")
	o.Sender = from
	if refundTo != "" {
		o.RefundTo = &refundTo
	}
	return o
}

// sanctionsList writes the list ConfigMap as the operator's CronJob does.
func sanctionsList(csv, date string) {
	GinkgoHelper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: env.Namespace}}
	_, err := controllerutil.CreateOrUpdate(context.Background(), env.Client, cm, func() error {
		cm.Annotations = map[string]string{sdnwatch.DateAnnotation: date}
		cm.Data = map[string]string{sdnwatch.Key: csv}
		return nil
	})
	Expect(err).NotTo(HaveOccurred())
}

// screeningOf is the decision the order keeps.
func screeningOf(id string) *swapv1.ScreeningRecord {
	GinkgoHelper()
	o := &swapv1.SwapOrder{}
	Expect(env.Client.Get(context.Background(), client.ObjectKey{Namespace: env.Namespace, Name: orderid.ObjectName(id)}, o)).To(Succeed())
	return o.Spec.Screening
}

// counterValue adds up a counter of the system's metrics over the series whose labels include
// want.
func counterValue(name string, want map[string]string) float64 {
	GinkgoHelper()
	sum, err := metricsum.Of(metrics, name, want)
	Expect(err).NotTo(HaveOccurred())
	return sum
}

var _ = Describe("Address screening", Ordered, func() {
	var screened *partnerapi.Client
	BeforeAll(func() {
		screened = partnerapi.NewPartner(env, "screened", 100000)
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(env.Client.Delete(context.Background(), &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: env.Namespace}}))).To(Succeed())
		})
	})

	It("a listed sender or refundTo gets 403, a clean order still works, and an edit of the list takes effect with no restart", func() {
		sanctionsList(sdnRefund, "2026-11-20")
		Eventually(func() int {
			return screened.Post("/v1/order", screenedOrder(sender, listedRefund)).Status
		}).Should(Equal(http.StatusForbidden))
		r := screened.Post("/v1/order", screenedOrder(sender, listedRefund))
		Expect(r.Body).To(Equal(map[string]any{"error": "address not allowed", "detail": "refundTo: this address may not be served"}))

		clean := screened.Post("/v1/order", screenedOrder(sender, ""))
		Expect(clean.Status).To(Equal(http.StatusCreated))
		rec := screeningOf(partnerapi.Str(clean.Body, "id"))
		Expect(rec.Outcome).To(Equal(swapv1.ScreeningClear))
		Expect(rec.Sources).To(ContainElement(HaveField("Version", HavePrefix("2026-11-20 sha256:"))))

		By("the operator's next list lists the sender instead")
		sanctionsList(sdnSender, "2026-11-21")
		Eventually(func() int {
			return screened.Post("/v1/order", screenedOrder(listedSender, "")).Status
		}).Should(Equal(http.StatusForbidden))
		Expect(screened.Post("/v1/order", screenedOrder(listedSender, "")).Body).To(HaveKeyWithValue("detail", "sender: this address may not be served"))
		Expect(screened.Post("/v1/order", screenedOrder(sender, listedRefund)).Status).To(Equal(http.StatusCreated))

		By("a list that does not parse leaves the last good one in place")
		failures := counterValue("swaprouter_sanctions_list_load_failures_total", nil)
		sanctionsList("<html>503 Service Unavailable</html>", "2026-11-22")
		Eventually(func() float64 { return counterValue("swaprouter_sanctions_list_load_failures_total", nil) }).Should(BeNumerically(">", failures))
		Expect(screened.Post("/v1/order", screenedOrder(listedSender, "")).Status).To(Equal(http.StatusForbidden))

		By("a dry quote takes placeholders and is not screened")
		q := screened.Post("/v1/quote", map[string]any{"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH,
			"sender": listedSender, "recipient": solDest})
		Expect(q.Status).To(Equal(http.StatusOK))
	})

	It("a screening service that is down holds the order under fail-closed and lets it through under fail-open", func() {
		env.Simulator.SetFault(simulator.SanctionsService, simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable})
		DeferCleanup(func() {
			env.Simulator.SetFault(simulator.SanctionsService, simulator.AnyCall, simulator.Fault{})
			// The client's breaker opened: wait until screening answers again, so the
			// journeys after this one are screened as usual.
			Eventually(func() swapv1.ScreeningOutcome {
				r := screened.Post("/v1/order", screenedOrder(unscreened, ""))
				return screeningOf(partnerapi.Str(r.Body, "id")).Outcome
			}).Should(Equal(swapv1.ScreeningClear))
		})

		withWebhooksLikeTheDemoPartner("screened")
		held := screened.Post("/v1/order", screenedOrder(unscreened, ""))
		Expect(held.Status).To(Equal(http.StatusAccepted))
		Expect(partnerapi.Str(held.Body, "status")).To(Equal("PENDING"))
		Expect(partnerapi.Str(held.Body, "substatus")).To(Equal("HELD_FOR_REVIEW"))
		Expect(held.Body["depositAddress"]).To(BeNil())
		Eventually(func() []webhooks.Event { return receiver.EventsFor(partnerapi.Str(held.Body, "id")) }).Should(ConsistOf(
			And(HaveField("Type", "order.status_changed"), HaveField("Status", "PENDING"), HaveField("Substatus", "HELD_FOR_REVIEW"),
				HaveField("PreviousStatus", ""), HaveField("Sequence", int64(1)))), "the partner is told of the hold")
		rec := screeningOf(partnerapi.Str(held.Body, "id"))
		Expect(rec.Outcome).To(Equal(swapv1.ScreeningHeld))
		Expect(rec.Sources).To(ContainElement(And(HaveField("Name", "chainalysis"), HaveField("Unavailable", Not(BeEmpty())))))

		p := &swapv1.Partner{}
		Expect(env.Client.Get(context.Background(), client.ObjectKey{Namespace: env.Namespace, Name: "screened"}, p)).To(Succeed())
		p.Spec.Screening = &swapv1.PartnerScreening{OnUnavailable: swapv1.ScreeningFailOpen}
		Expect(env.Client.Update(context.Background(), p)).To(Succeed())
		failedOpen := counterValue("swaprouter_screening_decisions_total", map[string]string{"decision": "failed_open"})
		Eventually(func() int { return screened.Post("/v1/order", screenedOrder(unscreened, "")).Status }).Should(Equal(http.StatusCreated))
		Expect(counterValue("swaprouter_screening_decisions_total", map[string]string{"decision": "failed_open"})).To(BeNumerically(">", failedOpen))
		through := screened.Post("/v1/order", screenedOrder(unscreened, ""))
		Expect(through.Status).To(Equal(http.StatusCreated))
		Expect(screeningOf(partnerapi.Str(through.Body, "id")).Outcome).To(Equal(swapv1.ScreeningFailedOpen))
	})
})

// withWebhooksLikeTheDemoPartner sends partner's webhooks where the demo partner's go, signed
// with the same secret, so the suite's receiver verifies them.
func withWebhooksLikeTheDemoPartner(partner string) {
	GinkgoHelper()
	ctx := context.Background()
	demo, p := &swapv1.Partner{}, &swapv1.Partner{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: env.Namespace, Name: env.Partner}, demo)).To(Succeed())
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: env.Namespace, Name: partner}, p)).To(Succeed())
	p.Spec.Webhook = demo.Spec.Webhook.DeepCopy()
	Expect(env.Client.Update(ctx, p)).To(Succeed())
}
