package privilege

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// heldRefund is listed by the sanctions list below and used by no other spec.
const heldRefund = "0x7f367cc41522ce07553e823bf3be79a889debe1b"

var _ = Describe("screening under the shipped RBAC", func() {
	It("the frontend reads the sanctions list ConfigMap and no other; an operator approves an order it held", func() {
		ctx := context.Background()
		Expect(admin.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: namespace},
			Data: map[string]string{sdnwatch.Key: "40000,\"EXAMPLE EXCHANGE\",-0- ,\"CYBER2\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ," +
				"\"Digital Currency Address - ETH 0x7F367cC41522cE07553e823bf3be79A889DEbe1B\"\r\n"},
		})).To(Succeed())
		DeferCleanup(func() {
			Expect(admin.Delete(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: namespace}})).To(Succeed())
		})
		fe := clientFor(frontendConfig)
		Expect(fe.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sdnwatch.ConfigMapName}, &corev1.ConfigMap{})).To(Succeed())
		err := fe.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "swaprouter-tiers"}, &corev1.ConfigMap{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "get another ConfigMap: %v", err)

		acme := &swapv1.Partner{}
		Expect(admin.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "acme"}, acme)).To(Succeed())
		acme.Spec.Screening = &swapv1.PartnerScreening{OnMatch: swapv1.ScreeningHoldForReview}
		Expect(admin.Update(ctx, acme)).To(Succeed())
		DeferCleanup(func() {
			Expect(admin.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: "acme"}, acme)).To(Succeed())
			acme.Spec.Screening = nil
			Expect(admin.Update(context.Background(), acme)).To(Succeed())
		})
		req := partnerapi.OrderRequest(swapv1.ProviderRouteA)
		refundTo := heldRefund
		req.RefundTo = &refundTo
		var id string
		Eventually(func(g Gomega) string {
			r, err := partner.API.CreateOrderWithResponse(context.Background(), nil, req)
			g.Expect(err).NotTo(HaveOccurred())
			if r.JSON202 == nil || r.JSON202.Substatus == nil {
				return string(r.Body)
			}
			id = r.JSON202.Id
			return string(*r.JSON202.Substatus)
		}).Should(Equal("HELD_FOR_REVIEW"))
		name := orderid.ObjectName(id)

		By("the frontend cannot approve it; an operator can, under their own name")
		Expect(annotate(fe, name, map[string]any{swapv1.AnnotationApprove: "x"})).To(refusedByPolicy())
		Expect(annotate(operator("alice"), name, map[string]any{swapv1.AnnotationApprove: "mallory"})).To(Succeed())
		Eventually(func() string { return get(name).Status.DepositAddress }).ShouldNot(BeEmpty())
		Expect(get(name).Status.Review).To(And(HaveField("Decision", swapv1.ReviewApproved), HaveField("By", "alice")))
		Eventually(func() map[string]string { return requests(get(name)) }).Should(BeEmpty())
	})
})
