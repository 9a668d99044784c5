package privilege

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// heldRefund is listed by the sanctions list below and used by no other spec.
const heldRefund = "0x7f367cc41522ce07553e823bf3be79a889debe1b"

var _ = Describe("screening under the shipped RBAC", func() {
	It("the frontend and the controllers read the sanctions list ConfigMap and no other, the controllers show its state on each Partner; an operator approves an order it held", func() {
		ctx := context.Background()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: namespace}}
		_, err := controllerutil.CreateOrUpdate(ctx, admin, cm, func() error {
			cm.Data = map[string]string{sdnwatch.Key: "40000,\"EXAMPLE EXCHANGE\",-0- ,\"CYBER2\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ," +
				"\"Digital Currency Address - ETH 0x7F367cC41522cE07553e823bf3be79A889DEbe1B\"\r\n"}
			return nil
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(devenv.ApplySanctionsList(context.Background(), admin, namespace)).To(Succeed()) })
		for name, cfg := range map[string]*rest.Config{"frontend": frontendConfig, "controllers": controllersConfig} {
			c := clientFor(cfg)
			Expect(c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sdnwatch.ConfigMapName}, &corev1.ConfigMap{})).To(Succeed(), name)
			err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "swaprouter-tiers"}, &corev1.ConfigMap{})
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "the %s get another ConfigMap: %v", name, err)
		}
		fe := clientFor(frontendConfig)

		By("the controllers write the list's state on the Partner")
		version := screening.Assess(sdnwatch.Published(cm)).Version()
		Eventually(func(g Gomega) *metav1.Condition {
			p := &swapv1.Partner{}
			g.Expect(admin.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "acme"}, p)).To(Succeed())
			return meta.FindStatusCondition(p.Status.Conditions, swapv1.ConditionSanctionsList)
		}).Should(And(HaveField("Reason", "Loaded"), HaveField("Message", ContainSubstring(version))))

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
