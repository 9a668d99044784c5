package isolation

import (
	"context"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/quota"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

func webhookOn(name string) *swapv1.PartnerWebhook {
	return &swapv1.PartnerWebhook{URL: "https://hooks." + name + ".example/swap", Enabled: true,
		SecretRef: swapv1.SecretKeyRef{Name: name + "-webhook", Key: "secret"}}
}

// deliveriesOf lists the WebhookDeliveries of an order straight from the API server.
func deliveriesOf(orderID string) []swapv1.WebhookDelivery {
	GinkgoHelper()
	var list swapv1.WebhookDeliveryList
	Expect(k8sClient.List(context.Background(), &list, client.InNamespace(namespace))).To(Succeed())
	var out []swapv1.WebhookDelivery
	for _, d := range list.Items {
		if d.Spec.OrderID == orderID {
			out = append(out, d)
		}
	}
	return out
}

func storedOrder(id string) *swapv1.SwapOrder {
	GinkgoHelper()
	o := &swapv1.SwapOrder{}
	Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: orderid.ObjectName(id)}, o)).To(Succeed())
	return o
}

var _ = Describe("one partner's orders, deliveries and idempotency keys", Ordered, func() {
	var alpha, beta key
	var orderA, eventA string

	BeforeAll(func() {
		alpha = newPartner("alpha", swapv1.PartnerSpec{Webhook: webhookOn("alpha")})
		beta = newPartner("beta", swapv1.PartnerSpec{Webhook: webhookOn("beta")})

		created := send(alpha, http.MethodPost, "/v1/order", orderBody(), "Idempotency-Key", "shared-key")
		Expect(created.status).To(Equal(http.StatusCreated), "%s", created.body)
		orderA = created.object()["id"].(string)
		Eventually(func() []swapv1.WebhookDelivery { return deliveriesOf(orderA) }).Should(HaveLen(1))
		eventA = deliveriesOf(orderA)[0].Spec.EventID
		// The owner sees its order and its delivery: the probes below are not vacuous.
		Expect(send(alpha, http.MethodGet, "/v1/order/"+orderA, nil).status).To(Equal(http.StatusOK))
		Eventually(func() []any {
			return send(alpha, http.MethodGet, "/v1/webhooks/deliveries?orderId="+orderA, nil).object()["deliveries"].([]any)
		}).Should(HaveLen(1))
	})

	// Every order-scoped request another partner could make with a stolen or guessed id.
	probes := []struct {
		name, method string
		path         func(id string) string
		body         any
	}{
		{"GET /v1/order/{id}", http.MethodGet, func(id string) string { return "/v1/order/" + id }, nil},
		{"POST /v1/order/{id}/deposit", http.MethodPost, func(id string) string { return "/v1/order/" + id + "/deposit" },
			map[string]any{"txHash": "0xbeta"}},
		{"GET /v1/webhooks/deliveries?orderId=", http.MethodGet, func(id string) string { return "/v1/webhooks/deliveries?orderId=" + id }, nil},
	}
	for _, p := range probes {
		It("answers "+p.name+" with another partner's order id exactly like a missing one", func() {
			other := send(beta, p.method, p.path(orderA), p.body)
			missing := send(beta, p.method, p.path(orderid.New()), p.body)
			malformed := send(beta, p.method, p.path("ord_notanid"), p.body)
			GinkgoWriter.Printf("%s as beta: other's id %d %s | missing %d %s | malformed %d %s\n",
				p.name, other.status, other.body, missing.status, missing.body, malformed.status, malformed.body)
			Expect(other.status).To(Equal(http.StatusNotFound))
			Expect(other.errorCode()).To(Equal("order not found"))
			Expect(other.body).To(Equal(missing.body))
			Expect(other.body).To(Equal(malformed.body))
			Expect(other.status).To(Equal(missing.status))
			Expect(other.header.Get("Content-Type")).To(Equal(missing.header.Get("Content-Type")))
		})
	}

	It("answers a redelivery of another partner's event exactly like a missing event", func() {
		missingEvent := webhooks.EventID(orderid.New(), "", 1)
		other := send(beta, http.MethodPost, "/v1/webhooks/deliveries/"+eventA+"/redeliver", nil)
		missing := send(beta, http.MethodPost, "/v1/webhooks/deliveries/"+missingEvent+"/redeliver", nil)
		GinkgoWriter.Printf("redeliver as beta: other's event %d %s | missing %d %s\n", other.status, other.body, missing.status, missing.body)
		Expect(other.status).To(Equal(http.StatusNotFound))
		Expect(missing.status).To(Equal(http.StatusNotFound))
		// The detail names the id the caller sent; apart from it the answers are the same.
		Expect(strings.ReplaceAll(string(other.body), eventA, "<id>")).
			To(Equal(strings.ReplaceAll(string(missing.body), missingEvent, "<id>")))
	})

	It("lists none of another partner's deliveries", func() {
		list := send(beta, http.MethodGet, "/v1/webhooks/deliveries", nil)
		Expect(list.status).To(Equal(http.StatusOK))
		Expect(string(list.body)).NotTo(ContainSubstring(orderA))
		Expect(string(list.body)).NotTo(ContainSubstring(eventA))
	})

	It("gives another partner using the same Idempotency-Key its own order", func() {
		mine := send(beta, http.MethodPost, "/v1/order", orderBody(), "Idempotency-Key", "shared-key")
		Expect(mine.status).To(Equal(http.StatusCreated), "%s", mine.body)
		Expect(mine.object()["id"]).NotTo(Equal(orderA))
		Expect(mine.object()["depositAddress"]).NotTo(Equal(storedOrder(orderA).Status.DepositAddress))
		// ... and alpha's retry still finds alpha's order.
		retry := send(alpha, http.MethodPost, "/v1/order", orderBody(), "Idempotency-Key", "shared-key")
		Expect(retry.status).To(Equal(http.StatusCreated))
		Expect(retry.object()["id"]).To(Equal(orderA))
	})

	It("left the owner's order and deliveries as they were", func() {
		o := storedOrder(orderA)
		Expect(o.Spec.DepositHint).To(BeNil(), "beta's deposit hint reached alpha's order")
		Expect(deliveriesOf(orderA)).To(HaveLen(1), "beta's redelivery reached alpha's event")
		// The owner can do what the other partner could not.
		Expect(send(alpha, http.MethodPost, "/v1/order/"+orderA+"/deposit", map[string]any{"txHash": "0xalpha"}).status).
			To(Equal(http.StatusAccepted))
		Expect(send(alpha, http.MethodPost, "/v1/webhooks/deliveries/"+eventA+"/redeliver", nil).status).
			To(Equal(http.StatusAccepted))
		Eventually(func() []swapv1.WebhookDelivery { return deliveriesOf(orderA) }).Should(HaveLen(2))
		Expect(storedOrder(orderA).Spec.DepositHint.TxHash).To(Equal("0xalpha"))
	})
})

var _ = Describe("the monthly quote quota", func() {
	It("is counted per partner: one partner exhausting its quota leaves another's untouched", func() {
		qa := newPartner("quota-a", swapv1.PartnerSpec{MonthlyQuoteQuota: 3})
		qb := newPartner("quota-b", swapv1.PartnerSpec{MonthlyQuoteQuota: 3})
		for range 3 {
			Expect(send(qa, http.MethodPost, "/v1/quote", dryQuote()).status).To(Equal(http.StatusOK))
		}
		over := send(qa, http.MethodPost, "/v1/quote", dryQuote())
		Expect(over.status).To(Equal(http.StatusTooManyRequests))
		Expect(over.errorCode()).To(Equal("quota exceeded"))

		for range 3 {
			Expect(send(qb, http.MethodPost, "/v1/quote", dryQuote()).status).To(Equal(http.StatusOK))
		}
		Expect(send(qb, http.MethodPost, "/v1/quote", dryQuote()).errorCode()).To(Equal("quota exceeded"))

		// What is persisted is each partner's own count.
		month := quota.Month(time.Now())
		for _, name := range []string{"quota-a", "quota-b"} {
			Eventually(func() *swapv1.QuotaUsage {
				p := &swapv1.Partner{}
				Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, p)).To(Succeed())
				return p.Status.QuotaUsage
			}).Should(Equal(&swapv1.QuotaUsage{Month: month, Quotes: 3, Claimed: 3}), name)
		}
	})
})
