package controllers

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

var _ = Describe("WebhookDelivery reconciler metrics", func() {
	It("belong to each manager: two in one process count only their own deliveries", func(ctx SpecContext) {
		var fixtures []*partnerFixture
		for range 2 {
			rc := newReceiver("", nil)
			f := newPartnerFixture(ctx, rc.srv.URL+"/hooks", true, 1)
			rc.setSecret(f.secrets[0])
			fixtures = append(fixtures, f)
		}
		regs := []*prometheus.Registry{prometheus.NewRegistry(), prometheus.NewRegistry()}
		for i, f := range fixtures {
			startDeliveryManagerOn(newNamespacedTestManager(f.ns), func(r *WebhookDeliveryReconciler) { r.Metrics = regs[i] })
		}
		delivered := func(reg *prometheus.Registry) float64 {
			return gatheredSum(reg, "swaprouter_webhook_deliveries_total", map[string]string{"outcome": "delivered"})
		}
		attempts := func(reg *prometheus.Registry) float64 {
			return gatheredSum(reg, "swaprouter_webhook_attempt_duration_seconds", nil)
		}

		d := fixtures[0].createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) {
			g.Expect(getDelivery(ctx, g, d).Status.Phase).To(Equal(swapv1.DeliveryDelivered))
		}).Should(Succeed())
		Expect(delivered(regs[0])).To(Equal(1.0))
		Expect(attempts(regs[0])).To(Equal(1.0))
		Expect(delivered(regs[1])).To(BeZero(), "the second manager delivered nothing")
		Expect(attempts(regs[1])).To(BeZero())
		Expect(gatheredSum(regs[1], "swaprouter_webhook_attempts_in_flight", map[string]string{"namespace": fixtures[0].ns})).To(BeZero())

		d = fixtures[1].createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) {
			g.Expect(getDelivery(ctx, g, d).Status.Phase).To(Equal(swapv1.DeliveryDelivered))
		}).Should(Succeed())
		Expect(delivered(regs[1])).To(Equal(1.0))
		Expect(delivered(regs[0])).To(Equal(1.0), "the first manager's count is its own")
	})
})
