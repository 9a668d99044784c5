package e2e

import (
	"context"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/btcsuite/btcd/btcutil/base58"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
	"github.com/swaprouter/swaprouter/internal/system"
	"github.com/swaprouter/swaprouter/internal/testing/metricsum"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
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
	// nearWNEAR and tronUSDT are assets route_A takes orders to.
	nearWNEAR = "near:mainnet/nep141:wrap.near"
	tronUSDT  = "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
)

// orderTo is an order of 0.1 ETH to asset for recipient, from a clean sender, on route_A.
func orderTo(asset, recipient string) swapclient.OrderRequest {
	o := partnerapi.OrderRequest("route_A")
	o.DestinationAsset, o.Recipient = asset, recipient
	return o
}

// tronForm is the Tron address of an EVM address's 20 bytes.
func tronForm(evm string) string {
	b, err := hex.DecodeString(strings.TrimPrefix(evm, "0x"))
	Expect(err).NotTo(HaveOccurred())
	return base58.CheckEncode(b, 0x41)
}

// partnerCondition is a Partner's SanctionsList condition as kubectl shows it: the Sanctions
// column of `kubectl get partners` and the condition's message.
func partnerCondition(name string) (column, message string) {
	GinkgoHelper()
	table, err := testenv.Kubectl(env.Plane.KubeconfigPath, nil, "get", "partner", name, "-n", env.Namespace)
	Expect(err).NotTo(HaveOccurred())
	lines := strings.Split(strings.TrimSpace(string(table)), "\n")
	Expect(lines).To(HaveLen(2), "%s", table)
	// Columns are aligned under their headers (some are empty).
	at := strings.Index(lines[0], "SANCTIONS")
	Expect(at).To(BeNumerically(">", 0), "%s", table)
	if at < len(lines[1]) {
		column, _, _ = strings.Cut(lines[1][at:], " ")
	}
	msg, err := testenv.Kubectl(env.Plane.KubeconfigPath, nil, "get", "partner", name, "-n", env.Namespace,
		"-o", `jsonpath={.status.conditions[?(@.type=="SanctionsList")].message}`)
	Expect(err).NotTo(HaveOccurred())
	return column, string(msg)
}

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
		// The journeys after these screen with the dev system's list again.
		DeferCleanup(func() {
			Expect(devenv.ApplySanctionsList(context.Background(), env.Client, env.Namespace)).To(Succeed())
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

		By("a dry quote takes placeholders and is not screened")
		q := screened.Post("/v1/quote", map[string]any{"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH,
			"sender": listedSender, "recipient": solDest})
		Expect(q.Status).To(Equal(http.StatusOK))
	})

	It("a listed EVM key is refused as a NEAR eth-implicit recipient and as a Tron recipient", func() {
		sanctionsList(sdnSender, "2026-11-21")
		Eventually(func() int { return screened.Post("/v1/order", screenedOrder(listedSender, "")).Status }).Should(Equal(http.StatusForbidden))
		for _, o := range []swapclient.OrderRequest{orderTo(nearWNEAR, listedSender), orderTo(tronUSDT, tronForm(listedSender))} {
			r := screened.Post("/v1/order", o)
			Expect(r.Status).To(Equal(http.StatusForbidden), "%s %s: %v", o.DestinationAsset, o.Recipient, r.Body)
			Expect(r.Body).To(Equal(map[string]any{"error": "address not allowed", "detail": "recipient: this address may not be served"}))
		}
		By("another key's forms on the same chains are served")
		other := "0x5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5d"
		Expect(screened.Post("/v1/order", orderTo(nearWNEAR, other)).Status).To(Equal(http.StatusCreated))
		Expect(screened.Post("/v1/order", orderTo(tronUSDT, tronForm(other))).Status).To(Equal(http.StatusCreated))
	})

	It("a broken list after a good one, no list and an empty list are one state on every replica, a fresh one included: a fail-closed partner is refused with 503, a fail-open one is served and records why, and kubectl shows the state on each", func() {
		open := partnerapi.NewPartner(env, "screened-open", 100000)
		p := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "screened-open", Namespace: env.Namespace}}
		Expect(env.Client.Patch(context.Background(), p, client.RawPatch(types.MergePatchType,
			[]byte(`{"spec":{"screening":{"onUnavailable":"fail-open"}}}`)))).To(Succeed())
		keyID, secret, err := auth.CreateKey(context.Background(), env.Client, env.Namespace, "screened")
		Expect(err).NotTo(HaveOccurred())
		Expect(devenv.ApplySanctionsList(context.Background(), env.Client, env.Namespace)).To(Succeed())
		Eventually(func() int { return screened.Post("/v1/order", screenedOrder(sender, "")).Status }).Should(Equal(http.StatusCreated))

		for _, tt := range []struct {
			state string
			make  func()
		}{
			{"Broken", func() { sanctionsList("<html>503 Service Unavailable</html>", "2026-11-24") }},
			{"Missing", func() {
				Expect(env.Client.Delete(context.Background(), &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: env.Namespace}})).To(Succeed())
			}},
			{"Empty", func() { sanctionsList("", "2026-11-23") }},
		} {
			By("the list " + tt.state)
			tt.make()
			state := map[string]string{"state": strings.ToLower(tt.state)}
			Eventually(func() float64 { return counterValue("swaprouter_sanctions_list_state", state) }).Should(Equal(1.0))
			replica, replicaMetrics := startReplica()
			fresh := partnerapi.New(replica, keyID, secret)
			Eventually(func() (float64, error) { return metricsum.Of(replicaMetrics, "swaprouter_sanctions_list_state", state) }).
				Should(Equal(1.0), "the fresh replica reads the same state")
			for _, c := range []*partnerapi.Client{screened, fresh} {
				r := c.Post("/v1/order", screenedOrder(sender, ""))
				Expect(r.Status).To(Equal(http.StatusServiceUnavailable), "%v", r.Body)
				Expect(r.Body).To(HaveKeyWithValue("error", "service unavailable"))
				Expect(r.Header.Get("Retry-After")).To(Equal("60"))
			}

			served := open.Post("/v1/order", screenedOrder(sender, ""))
			Expect(served.Status).To(Equal(http.StatusCreated), "%v", served.Body)
			rec := screeningOf(partnerapi.Str(served.Body, "id"))
			Expect(rec.Outcome).To(Equal(swapv1.ScreeningFailedOpen))
			Expect(rec.Sources).To(ContainElement(And(HaveField("Name", "ofac-sdn"),
				HaveField("Unavailable", HavePrefix("the sanctions list is "+strings.ToLower(tt.state))))))

			Eventually(func(g Gomega) {
				column, message := partnerCondition("screened")
				g.Expect(column).To(Equal(tt.state))
				g.Expect(message).To(ContainSubstring("refused with 503 service unavailable"))
				column, message = partnerCondition("screened-open")
				g.Expect(column).To(Equal(tt.state))
				g.Expect(message).To(ContainSubstring("recorded FailedOpen"))
			}).Should(Succeed())
		}

		By("a usable list serves both again")
		Expect(devenv.ApplySanctionsList(context.Background(), env.Client, env.Namespace)).To(Succeed())
		Eventually(func() int { return screened.Post("/v1/order", screenedOrder(sender, "")).Status }).Should(Equal(http.StatusCreated))
		Eventually(func() string { column, _ := partnerCondition("screened"); return column }).Should(Equal("Loaded"))
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

// startReplica starts another frontend replica of the system, with registry of its own, and
// returns its URL once it is ready; it stops when the spec ends.
func startReplica() (string, *prometheus.Registry) {
	GinkgoHelper()
	opts := devenv.EphemeralManager(env.Namespace)
	opts.Controllers, opts.ArchiveDSN = false, env.ArchiveDSN
	opts.ScreeningURL = env.SimulatorURL + "/sanctions"
	reg := prometheus.NewRegistry()
	opts.Metrics = reg
	sys, err := system.New(env.Plane.Config, opts)
	Expect(err).NotTo(HaveOccurred())
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sys.Manager.Start(ctx) }()
	DeferCleanup(func() { stop(); Expect(<-done).To(Succeed()) })
	Eventually(sys.Frontend.Addr).ShouldNot(BeEmpty())
	url := "http://" + sys.Frontend.Addr()
	Eventually(func() int {
		resp, err := http.Get(url + "/readyz")
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}).Should(Equal(http.StatusOK), "the replica is ready")
	return url, reg
}
