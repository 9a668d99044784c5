package v1alpha1_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

var orderSeq = 0

// newOrder returns a valid SwapOrder with a fresh name and id.
func newOrder() *swapv1.SwapOrder {
	orderSeq++
	id := "ord_" + string(rune('a'+orderSeq%26)) + "bcdefghijklmnopqrstuvwxyz"
	return &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: "ord-" + id[4:], Namespace: namespace},
		Spec: swapv1.SwapOrderSpec{
			OrderID:              id,
			Partner:              "acme",
			OriginAsset:          "eip155:1/slip44:60",
			DestinationAsset:     "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501",
			Amount:               "1000000000000000000",
			SlippageToleranceBps: ptr.To[int32](50),
			Sender:               "0x1111111111111111111111111111111111111111",
			Recipient:            "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
			ProviderID:           swapv1.ProviderRouteA,
		},
	}
}

func newPartner(name string) *swapv1.Partner {
	return &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: swapv1.PartnerSpec{
			AllowedOrigins: []string{"https://app.example.com"},
			Keys: []swapv1.PartnerKey{{
				ID:        "key_" + name,
				SecretRef: swapv1.SecretKeyRef{Name: name + "-key", Key: "sha256"},
			}},
			Webhook: &swapv1.PartnerWebhook{
				URL:       "https://hooks.example.com/swaps",
				Enabled:   true,
				SecretRef: swapv1.SecretKeyRef{Name: name + "-webhook", Key: "secret"},
			},
		},
	}
}

func newProvider(name string) *swapv1.RoutingProvider {
	return &swapv1.RoutingProvider{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: swapv1.RoutingProviderSpec{
			ProviderID: swapv1.ProviderRouteB,
			Protocol:   swapv1.ProtocolChannel,
			Endpoint:   "http://127.0.0.1:18080/route_B",
			Enabled:    true,
		},
	}
}

func newDelivery(name string) *swapv1.WebhookDelivery {
	return &swapv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: swapv1.WebhookDeliverySpec{
			Partner:  "acme",
			OrderID:  "ord_abcdefghijklmnopqrstuvwxyz",
			EventID:  "evt_0123456789abcdef",
			Sequence: 1,
			Payload:  `{"type":"order.status_changed"}`,
		},
	}
}

var _ = Describe("SwapOrder", func() {
	It("accepts a valid order and defaults swapType", func(ctx context.Context) {
		o := newOrder()
		Expect(k8sClient.Create(ctx, o)).To(Succeed())
		Expect(o.Spec.SwapType).To(Equal(swapv1.ExactInput))
	})

	It("accepts any provider id of the documented pattern: the set is the installation's", func(ctx context.Context) {
		o := newOrder()
		o.Spec.ProviderID = "oneclick-staging_2"
		Expect(k8sClient.Create(ctx, o)).To(Succeed())
	})

	DescribeTable("rejects an invalid spec with a clear message",
		func(ctx context.Context, mutate func(*swapv1.SwapOrder), message string) {
			o := newOrder()
			mutate(o)
			err := k8sClient.Create(ctx, o)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(message))
		},
		Entry("amount with a leading zero", func(o *swapv1.SwapOrder) { o.Spec.Amount = "0100" }, "spec.amount"),
		Entry("amount of zero", func(o *swapv1.SwapOrder) { o.Spec.Amount = "0" }, "spec.amount"),
		Entry("decimal amount", func(o *swapv1.SwapOrder) { o.Spec.Amount = "1.5" }, "spec.amount"),
		Entry("negative amount", func(o *swapv1.SwapOrder) { o.Spec.Amount = "-5" }, "spec.amount"),
		Entry("slippage above 10000 bps", func(o *swapv1.SwapOrder) { o.Spec.SlippageToleranceBps = ptr.To[int32](10001) }, "spec.slippageToleranceBps"),
		Entry("negative slippage", func(o *swapv1.SwapOrder) { o.Spec.SlippageToleranceBps = ptr.To[int32](-1) }, "spec.slippageToleranceBps"),
		Entry("provider id outside the pattern", func(o *swapv1.SwapOrder) { o.Spec.ProviderID = "route C!" }, "spec.providerId"),
		Entry("unknown swap type", func(o *swapv1.SwapOrder) { o.Spec.SwapType = "EXACT_BOTH" }, "spec.swapType"),
		Entry("malformed order id", func(o *swapv1.SwapOrder) { o.Spec.OrderID = "order-1" }, "spec.orderId"),
	)

	It("lets only the deposit hint change after creation", func(ctx context.Context) {
		o := newOrder()
		Expect(k8sClient.Create(ctx, o)).To(Succeed())

		o.Spec.DepositHint = &swapv1.DepositHint{TxHash: "0xabc"}
		Expect(k8sClient.Update(ctx, o)).To(Succeed())

		changed := o.DeepCopy()
		changed.Spec.Amount = "2"
		err := k8sClient.Update(ctx, changed)
		Expect(err).To(MatchError(ContainSubstring("the order spec is immutable except depositHint")))

		changed = o.DeepCopy()
		changed.Spec.Recipient = "someone-else"
		Expect(k8sClient.Update(ctx, changed)).To(MatchError(ContainSubstring("immutable except depositHint")))

		changed = o.DeepCopy()
		changed.Spec.RefundTo = "0x2222222222222222222222222222222222222222"
		Expect(k8sClient.Update(ctx, changed)).To(MatchError(ContainSubstring("immutable except depositHint")))

		changed = o.DeepCopy()
		changed.Spec.SlippageToleranceBps = nil
		Expect(k8sClient.Update(ctx, changed)).To(MatchError(ContainSubstring("immutable except depositHint")))
	})

	It("never lets a terminal status change, while non-terminal ones move freely", func(ctx context.Context) {
		o := newOrder()
		Expect(k8sClient.Create(ctx, o)).To(Succeed())

		for _, s := range []swapv1.OrderStatus{swapv1.OrderPending, swapv1.OrderUnknown, swapv1.OrderProcessing, swapv1.OrderSuccess} {
			o.Status.Status = s
			Expect(k8sClient.Status().Update(ctx, o)).To(Succeed(), "moving to %s", s)
		}
		for _, s := range []swapv1.OrderStatus{swapv1.OrderPending, swapv1.OrderFailed, swapv1.OrderUnknown} {
			changed := o.DeepCopy()
			changed.Status.Status = s
			Expect(k8sClient.Status().Update(ctx, changed)).To(
				MatchError(ContainSubstring("a terminal status (SUCCESS, REFUNDED, FAILED) can never change")), "leaving SUCCESS for %s", s)
		}
		// Other status fields of a terminal order may still be recorded.
		o.Status.OutTxHashes = []string{"0xdef"}
		Expect(k8sClient.Status().Update(ctx, o)).To(Succeed())
	})

	It("rejects an unknown status value", func(ctx context.Context) {
		o := newOrder()
		Expect(k8sClient.Create(ctx, o)).To(Succeed())
		o.Status.Status = "DONE"
		Expect(k8sClient.Status().Update(ctx, o)).To(MatchError(ContainSubstring("status.status")))
	})

	It("records a delayed fill's substatus and no unknown one", func(ctx context.Context) {
		o := newOrder()
		Expect(k8sClient.Create(ctx, o)).To(Succeed())
		o.Status.Status, o.Status.Substatus = swapv1.OrderProcessing, swapv1.SubstatusDelayed
		Expect(k8sClient.Status().Update(ctx, o)).To(Succeed())
		o.Status.Substatus = "STUCK"
		Expect(k8sClient.Status().Update(ctx, o)).To(MatchError(ContainSubstring("status.substatus")))
	})
})

var _ = Describe("Partner", func() {
	It("accepts a valid partner and defaults its tier, which sets its limits", func(ctx context.Context) {
		p := newPartner("acme")
		Expect(k8sClient.Create(ctx, p)).To(Succeed())
		Expect(p.Spec.RequestsPerMinute).To(BeZero(), "unset: the tier's (internal/tiers)")
		Expect(p.Spec.Tier).To(Equal("standard"))
	})

	It("refuses a partner fee above its maximum", func(ctx context.Context) {
		p := newPartner("feeco")
		p.Spec.Fees = &swapv1.PartnerFees{Bps: 50, MaxBps: 20, Recipient: "feeco.near"}
		Expect(k8sClient.Create(ctx, p)).To(MatchError(ContainSubstring("bps must not exceed maxBps")))
		p.Spec.Fees.MaxBps = 80
		Expect(k8sClient.Create(ctx, p)).To(Succeed())
	})

	DescribeTable("rejects an invalid partner",
		func(ctx context.Context, mutate func(*swapv1.Partner), message string) {
			p := newPartner("bad")
			mutate(p)
			Expect(k8sClient.Create(ctx, p)).To(MatchError(ContainSubstring(message)))
		},
		Entry("negative requests per minute", func(p *swapv1.Partner) { p.Spec.RequestsPerMinute = -1 }, "spec.requestsPerMinute"),
		Entry("negative quota", func(p *swapv1.Partner) { p.Spec.MonthlyQuoteQuota = -1 }, "spec.monthlyQuoteQuota"),
		Entry("key id with spaces", func(p *swapv1.Partner) { p.Spec.Keys[0].ID = "my key" }, "spec.keys[0].id"),
		Entry("webhook url that is not http", func(p *swapv1.Partner) { p.Spec.Webhook.URL = "ftp://x" }, "spec.webhook.url"),
		Entry("duplicate key ids", func(p *swapv1.Partner) { p.Spec.Keys = append(p.Spec.Keys, p.Spec.Keys[0]) }, "Duplicate value"),
	)
})

var _ = Describe("RoutingProvider", func() {
	It("accepts a valid provider and defaults what a manifest leaves out", func(ctx context.Context) {
		// Written as a GitOps manifest would be: only the required fields.
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": swapv1.GroupVersion.String(),
			"kind":       "RoutingProvider",
			"metadata":   map[string]any{"name": "route-b", "namespace": namespace},
			"spec": map[string]any{
				"providerId": "route_B",
				"protocol":   "channel",
				"endpoint":   "http://127.0.0.1:18080/route_B",
			},
		}}
		Expect(k8sClient.Create(ctx, u)).To(Succeed())
		rp := &swapv1.RoutingProvider{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(u), rp)).To(Succeed())
		Expect(rp.Spec.Enabled).To(BeTrue())
		Expect(rp.Spec.Timeout.Duration).To(Equal(5 * time.Second))
		Expect(rp.Spec.PollInterval.Min.Duration).To(Equal(10 * time.Second))
		Expect(rp.Spec.PollInterval.Max.Duration).To(Equal(15 * time.Second))
		Expect(rp.Spec.AssetRefreshInterval.Duration).To(Equal(5 * time.Minute))
	})

	It("accepts the relay protocol", func(ctx context.Context) {
		rp := newProvider("relay")
		rp.Spec.Protocol = swapv1.ProtocolRelay
		Expect(k8sClient.Create(ctx, rp)).To(Succeed())
	})

	DescribeTable("rejects an invalid provider",
		func(ctx context.Context, mutate func(*swapv1.RoutingProvider), message string) {
			rp := newProvider("bad-provider")
			mutate(rp)
			Expect(k8sClient.Create(ctx, rp)).To(MatchError(ContainSubstring(message)))
		},
		Entry("provider id outside the pattern", func(rp *swapv1.RoutingProvider) { rp.Spec.ProviderID = "9route" }, "spec.providerId"),
		Entry("unknown protocol", func(rp *swapv1.RoutingProvider) { rp.Spec.Protocol = "grpc" }, "spec.protocol"),
		Entry("endpoint without scheme", func(rp *swapv1.RoutingProvider) { rp.Spec.Endpoint = "127.0.0.1:1" }, "spec.endpoint"),
		Entry("poll min above max", func(rp *swapv1.RoutingProvider) {
			rp.Spec.PollInterval = swapv1.PollInterval{Min: metav1.Duration{Duration: 20 * time.Second}, Max: metav1.Duration{Duration: 10 * time.Second}}
		}, "min must not exceed max"),
	)
})

var _ = Describe("WebhookDelivery", func() {
	It("accepts a valid delivery and keeps its spec immutable", func(ctx context.Context) {
		d := newDelivery("evt-0123456789abcdef")
		Expect(k8sClient.Create(ctx, d)).To(Succeed())
		d.Spec.Payload = `{"tampered":true}`
		Expect(k8sClient.Update(ctx, d)).To(MatchError(ContainSubstring("a webhook delivery's spec is immutable")))
	})

	DescribeTable("rejects an invalid delivery",
		func(ctx context.Context, mutate func(*swapv1.WebhookDelivery), message string) {
			d := newDelivery("evt-bad")
			mutate(d)
			Expect(k8sClient.Create(ctx, d)).To(MatchError(ContainSubstring(message)))
		},
		Entry("event id without prefix", func(d *swapv1.WebhookDelivery) { d.Spec.EventID = "0123" }, "spec.eventId"),
		Entry("sequence zero", func(d *swapv1.WebhookDelivery) { d.Spec.Sequence = 0 }, "spec.sequence"),
	)

	It("rejects an unknown phase", func(ctx context.Context) {
		d := newDelivery("evt-phase")
		Expect(k8sClient.Create(ctx, d)).To(Succeed())
		d.Status.Phase = "Lost"
		Expect(k8sClient.Status().Update(ctx, d)).To(MatchError(ContainSubstring("status.phase")))
	})
})
