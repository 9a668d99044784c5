package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/opctl"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// kubectlSwaprouter runs the plugin's command against the test control plane with a
// kubeconfig whose user is "oncall", and returns its output.
func kubectlSwaprouter(args ...string) (string, error) {
	GinkgoHelper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["oncall"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "oncall"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(clientcmd.WriteToFile(*kc, path)).To(Succeed())

	cmd := opctl.NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(append(args, "--kubeconfig", path))
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func annotationsOf(g *orderRig, o *swapv1.SwapOrder) map[string]string { return g.get(o).Annotations }

var _ = Describe("SwapOrder operator controls (kubectl swaprouter)", func() {
	var g *orderRig
	BeforeEach(func() {
		g = newOrderRig(orderRigOptions{sim: fastSim()})
	})

	It("pause holds every provider step, with a Paused condition; resume lets the order go on", func() {
		o := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000")
		out, err := kubectlSwaprouter("pause", o.Spec.OrderID, "-n", g.ns, "--reason", "provider incident 42")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("paused"))
		Eventually(func() bool {
			return meta.IsStatusConditionTrue(g.get(o).Status.Conditions, swapv1.ConditionPaused)
		}).Should(BeTrue())
		Expect(meta.FindStatusCondition(g.get(o).Status.Conditions, swapv1.ConditionPaused).Message).
			To(ContainSubstring("oncall: provider incident 42"))
		// The pause may have come after the address; what counts is that nothing moves now.
		before := g.sim.Stats().Calls[swapv1.ProviderRouteA]
		Consistently(func() map[string]int { return g.sim.Stats().Calls[swapv1.ProviderRouteA] }).
			WithTimeout(1500 * time.Millisecond).Should(Equal(before))

		_, err = kubectlSwaprouter("resume", o.Name, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())
		g.awaitAddress(o)
		Eventually(func() *metav1.Condition {
			return meta.FindStatusCondition(g.get(o).Status.Conditions, swapv1.ConditionPaused)
		}).Should(BeNil())
	})

	It("poll asks the provider now, even while paused, and is consumed", func() {
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		_, err := kubectlSwaprouter("pause", o.Spec.OrderID, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() bool {
			return meta.IsStatusConditionTrue(g.get(o).Status.Conditions, swapv1.ConditionPaused)
		}).Should(BeTrue())
		_, err = g.sim.Deposit(o.Status.DepositAddress, "100000000")
		Expect(err).NotTo(HaveOccurred())
		Consistently(g.status(o)).WithTimeout(time.Second).Should(Equal(swapv1.OrderPending))

		// Each poll moves the order by what the provider says now; the simulator settles
		// within a few hundred milliseconds, so polls repeated by hand reach SUCCESS.
		Eventually(func() swapv1.OrderStatus {
			if _, has := annotationsOf(g, o)[swapv1.AnnotationPoll]; !has {
				_, err := kubectlSwaprouter("poll", o.Spec.OrderID, "-n", g.ns)
				Expect(err).NotTo(HaveOccurred())
			}
			return g.get(o).Status.Status
		}).WithTimeout(20 * time.Second).WithPolling(300 * time.Millisecond).Should(Equal(swapv1.OrderSuccess))
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationPoll))
	})

	It("resolve ends a stuck order with the operator's status, reason and name, in history and a webhook", func() {
		g.partner(true)
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		_, err := kubectlSwaprouter("pause", o.Spec.OrderID, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())

		// Money rules: a resolution without a reason is refused before it reaches the order.
		_, err = kubectlSwaprouter("resolve", o.Spec.OrderID, "-n", g.ns, "--status", "REFUNDED")
		Expect(err).To(MatchError(ContainSubstring("reason")))

		_, err = kubectlSwaprouter("resolve", o.Spec.OrderID, "-n", g.ns, "--status", "refunded",
			"--reason", "refund 0xabc seen on chain")
		Expect(err).NotTo(HaveOccurred())
		Eventually(g.status(o)).Should(Equal(swapv1.OrderRefunded))
		got := g.get(o)
		Expect(got.Status.StatusReason).To(Equal(ReasonOperatorResolved))
		last := got.Status.History[len(got.Status.History)-1]
		Expect(last.Status).To(Equal(swapv1.OrderRefunded))
		Expect(last.Reason).To(Equal(ReasonOperatorResolved))
		Expect(got.Status.Resolution).NotTo(BeNil())
		Expect(*got.Status.Resolution).To(And(
			// Who the API server authenticated (envtest's administrator), not the kubeconfig's
			// user name "oncall" the plugin wrote into the request.
			HaveField("Status", swapv1.OrderRefunded), HaveField("By", "admin"),
			HaveField("Reason", "refund 0xabc seen on chain"), HaveField("At", Not(BeNil()))))
		Expect(meta.FindStatusCondition(got.Status.Conditions, swapv1.ConditionPaused)).To(BeNil())
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationResolve))
		// The usual order.status_changed event, PENDING → REFUNDED.
		Eventually(func() string { return deliveryPayloadStatus(g, o, last.Seq) }).Should(Equal("REFUNDED"))

		// A second resolution of a terminal order changes nothing and is consumed.
		value, _ := json.Marshal(swapv1.OperatorResolution{Status: swapv1.OrderSuccess, Reason: "oops", By: "oncall"})
		setAnnotation(o, swapv1.AnnotationResolve, string(value))
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationResolve))
		Expect(g.get(o).Status.Status).To(Equal(swapv1.OrderRefunded))
		Expect(g.get(o).Status.LastSeq).To(Equal(got.Status.LastSeq))
	})

	It("redeliver sends every event of the order again under the same webhook-id", func() {
		g.partner(true)
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		Eventually(g.deliverySeqs(o)).Should(Equal([]int64{1}))
		_, err := kubectlSwaprouter("pause", o.Spec.OrderID, "-n", g.ns) // keep the history still
		Expect(err).NotTo(HaveOccurred())

		// Delivered, as the delivery reconciler (not running here) would record it.
		var firsts swapv1.WebhookDeliveryList
		Expect(k8sClient.List(context.Background(), &firsts, client.InNamespace(g.ns))).To(Succeed())
		for i := range firsts.Items {
			d := &firsts.Items[i]
			before := d.DeepCopy()
			d.Status.Phase, d.Status.CompletedAt = swapv1.DeliveryDelivered, ptr.To(metav1.Now())
			Expect(k8sClient.Status().Patch(context.Background(), d, client.MergeFrom(before))).To(Succeed())
		}

		out, err := kubectlSwaprouter("redeliver", o.Spec.OrderID, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("redelivery requested"))
		// The redelivery carries the original's bytes (read from the API server: the cache
		// holds finished deliveries without them).
		Eventually(func() map[int32]string {
			var list swapv1.WebhookDeliveryList
			Expect(k8sClient.List(context.Background(), &list, client.InNamespace(g.ns))).To(Succeed())
			payloads := map[int32]string{}
			for _, d := range list.Items {
				if d.Spec.OrderID == o.Spec.OrderID {
					payloads[d.Spec.Redelivery] = d.Spec.Payload
				}
			}
			return payloads
		}).Should(SatisfyAll(HaveLen(2), HaveKeyWithValue(int32(1), Not(BeEmpty())),
			WithTransform(func(p map[int32]string) bool { return p[0] == p[1] }, BeTrue())))
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationRedeliver))
	})

	It("answers not found for an order that does not exist", func() {
		_, err := kubectlSwaprouter("poll", "ord_"+strings.Repeat("a", 26), "-n", g.ns)
		Expect(err).To(MatchError(ContainSubstring("not found")))
	})
})

func setAnnotation(o *swapv1.SwapOrder, key, value string) {
	GinkgoHelper()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	Expect(k8sClient.Patch(context.Background(), o.DeepCopy(), client.RawPatch("application/merge-patch+json", patch))).To(Succeed())
}

// deliveryPayloadStatus is the status in the webhook payload of the order's transition seq.
func deliveryPayloadStatus(g *orderRig, o *swapv1.SwapOrder, seq int64) string {
	GinkgoHelper()
	var list swapv1.WebhookDeliveryList
	Expect(k8sClient.List(context.Background(), &list, client.InNamespace(g.ns))).To(Succeed())
	for _, d := range list.Items {
		var ev webhooks.Event
		if json.Unmarshal([]byte(d.Spec.Payload), &ev) == nil && ev.OrderID == o.Spec.OrderID && ev.Sequence == seq {
			return string(ev.Status)
		}
	}
	return ""
}
