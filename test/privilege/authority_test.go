package privilege

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/quota"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

const (
	frontendUser    = "system:serviceaccount:" + namespace + ":swaprouter-frontend"
	controllersUser = "system:serviceaccount:" + namespace + ":swaprouter-controllers"
)

// forgedSuccess is the delivery a compromised component would write: the partner's real
// (unpaid, PENDING) order, told SUCCESS under the id of a transition it never had.
func forgedSuccess(name string) *swapv1.WebhookDelivery {
	GinkgoHelper()
	o := get(name)
	t := swapv1.StatusTransition{Seq: int64(len(o.Status.History)) + 1, Status: swapv1.OrderSuccess,
		PreviousStatus: swapv1.OrderPending, At: swapv1.NewPreciseTime(time.Now())}
	d, err := delivery.NewDelivery(o, delivery.EventFor(o, t), 0)
	Expect(err).NotTo(HaveOccurred())
	return d
}

var _ = Describe("signed content", func() {
	It("is never created by the frontend, an operator or anyone allowed to create deliveries but the controllers", func() {
		ctx := context.Background()
		_, name := placeOrder()
		Expect(clientFor(frontendConfig).Create(ctx, forgedSuccess(name))).To(Satisfy(apierrors.IsForbidden))
		Expect(operator("alice").Create(ctx, forgedSuccess(name))).To(Satisfy(apierrors.IsForbidden))

		Expect(client.IgnoreAlreadyExists(admin.Create(ctx, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "delivery-writer", Namespace: namespace},
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{swapv1.GroupVersion.Group}, Resources: []string{"webhookdeliveries"},
				Verbs: []string{"create", "get", "patch"},
			}},
		}))).To(Succeed())
		bind("eve", "Role", "delivery-writer")
		eve := clientFor(impersonating("eve"))
		Expect(eve.Create(ctx, forgedSuccess(name))).To(
			MatchError(ContainSubstring("ValidatingAdmissionPolicy 'swaprouter-webhookdelivery-authors'")))
		Expect(get(name).Status.Status).To(Equal(swapv1.OrderPending))
	})

	It("that slips past admission is never signed: the delivery fails unsent, with a Warning Event", func() {
		ctx := context.Background()
		id, name := placeOrder()
		// The envtest administrator passes every policy, as a component would with admission off.
		forged := forgedSuccess(name)
		Expect(admin.Create(ctx, forged)).To(Succeed())
		Eventually(func(g Gomega) {
			d := &swapv1.WebhookDelivery{}
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(forged), d)).To(Succeed())
			g.Expect(d.Status.Phase).To(Equal(swapv1.DeliveryFailed))
			g.Expect(d.Status.AttemptCount).To(BeZero())
			g.Expect(d.Status.Reason).To(ContainSubstring("not in the order's history"))
		}).Should(Succeed())
		Eventually(func() string { return eventNote(forged.Name, "PayloadRejected") }).Should(ContainSubstring("no transition seq"))
		for _, ev := range receiver.EventsFor(id) {
			Expect(ev.Status).NotTo(Equal("SUCCESS"), "the partner received the forged event")
		}
		Expect(get(name).Status.Status).To(Equal(swapv1.OrderPending))
	})

	It("is redelivered at a partner's request naming an event: the controllers send it, stamped with who asked", func() {
		ctx := context.Background()
		id, name := placeOrder()
		var first swapv1.WebhookDelivery
		Eventually(func(g Gomega) {
			var all swapv1.WebhookDeliveryList
			g.Expect(admin.List(ctx, &all, client.InNamespace(namespace))).To(Succeed())
			g.Expect(all.Items).To(ContainElement(And(HaveField("Spec.OrderID", id),
				HaveField("Status.Phase", swapv1.DeliveryDelivered)), &first))
		}).Should(Succeed())

		r, err := partner.API.RedeliverWithResponse(ctx, first.Spec.EventID)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.StatusCode()).To(Equal(http.StatusAccepted), "%s", r.Body)
		var answer struct{ ID, Phase string }
		Expect(json.Unmarshal(r.Body, &answer)).To(Succeed())
		Expect(answer.ID).To(Equal(delivery.DeliveryName(first.Spec.EventID, 1)))

		rq := &swapv1.RedeliveryRequest{}
		Expect(admin.Get(ctx, types.NamespacedName{Namespace: namespace, Name: answer.ID}, rq)).To(Succeed())
		Expect(rq.Spec.RequestedBy).To(Equal(frontendUser), "the API server stamped the frontend's identity")
		Eventually(func(g Gomega) {
			again := &swapv1.WebhookDelivery{}
			g.Expect(admin.Get(ctx, types.NamespacedName{Namespace: namespace, Name: answer.ID}, again)).To(Succeed())
			g.Expect(again.Annotations).To(HaveKeyWithValue(swapv1.AnnotationDeliveryRequestedBy, frontendUser))
			g.Expect(again.Status.Phase).To(Equal(swapv1.DeliveryDelivered))
			g.Expect(again.Spec.Payload).To(Equal(payloadOf(ctx, &first)))
		}).Should(Succeed())
		Eventually(func() string { return eventNote(name, "Redelivered") }).Should(ContainSubstring("at the request of " + frontendUser))
	})

	It("names the requester the API server authenticated on a redelivery request, whatever the request says", func() {
		ctx := context.Background()
		id, _ := placeOrder()
		rq := &swapv1.RedeliveryRequest{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: "by-alice-"},
			Spec:       swapv1.RedeliveryRequestSpec{Partner: "acme", OrderID: id, RequestedBy: "mallory"},
		}
		Expect(operator("alice").Create(ctx, rq)).To(Succeed())
		Expect(rq.Spec.RequestedBy).To(Equal("alice"))
		Eventually(func(g Gomega) {
			g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(rq), rq)).To(Succeed())
			g.Expect(rq.Status.Phase).To(Equal(swapv1.RedeliveryDone))
			g.Expect(rq.Status.Deliveries).NotTo(BeEmpty())
		}).Should(Succeed())
		d := &swapv1.WebhookDelivery{}
		Expect(admin.Get(ctx, types.NamespacedName{Namespace: namespace, Name: rq.Status.Deliveries[0]}, d)).To(Succeed())
		Expect(d.Annotations).To(HaveKeyWithValue(swapv1.AnnotationDeliveryRequestedBy, "alice"))

		By("a request for another partner's order, or an event the order never had, is refused with nothing sent")
		for _, spec := range []swapv1.RedeliveryRequestSpec{
			{Partner: "someone-else", OrderID: id},
			{Partner: "acme", OrderID: id, EventID: webhooks.EventID(id, "no-such-uid", 1)},
		} {
			bad := &swapv1.RedeliveryRequest{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: "bad-"}, Spec: spec}
			Expect(operator("alice").Create(ctx, bad)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(admin.Get(ctx, client.ObjectKeyFromObject(bad), bad)).To(Succeed())
				g.Expect(bad.Status.Phase).To(Equal(swapv1.RedeliveryRefused))
				g.Expect(bad.Status.Deliveries).To(BeEmpty())
			}).Should(Succeed())
		}
	})
})

var _ = Describe("the frontend's ServiceAccount, creating orders", func() {
	It("creates an order only in the shape the API produces", func() {
		fe := clientFor(frontendConfig)
		_, name := placeOrder()
		shaped := func(change func(o *swapv1.SwapOrder)) *swapv1.SwapOrder {
			o := &swapv1.SwapOrder{Spec: *get(name).Spec.DeepCopy()}
			o.Spec.OrderID = orderid.New()
			o.Name, o.Namespace = orderid.ObjectName(o.Spec.OrderID), namespace
			o.Labels = map[string]string{"swap.swaprouter.dev/partner": o.Spec.Partner}
			o.Annotations = map[string]string{swapv1.AnnotationCreatedAt: "2026-01-01T00:00:00.000000Z"}
			change(o)
			return o
		}
		for what, change := range map[string]func(o *swapv1.SwapOrder){
			"the archived label":      func(o *swapv1.SwapOrder) { o.Labels[swapv1.LabelArchived] = "true" },
			"another partner's label": func(o *swapv1.SwapOrder) { o.Labels["swap.swaprouter.dev/partner"] = "someone-else" },
			"a foreign finalizer":     func(o *swapv1.SwapOrder) { o.Finalizers = []string{"example.com/hold"} },
			"an annotation of its own": func(o *swapv1.SwapOrder) {
				o.Annotations["note"] = "x"
			},
			"an owner": func(o *swapv1.SwapOrder) {
				o.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "u"}}
			},
		} {
			Expect(fe.Create(context.Background(), shaped(change))).To(refusedByPolicy(), what)
		}
		Expect(fe.Create(context.Background(), shaped(func(*swapv1.SwapOrder) {}))).To(Succeed(), "the API's own shape")
	})
})

var _ = Describe("a Partner's usage", func() {
	usage := func(c client.Client, change func(st *swapv1.PartnerStatus)) error {
		p := &swapv1.Partner{}
		Expect(admin.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: "acme"}, p)).To(Succeed())
		base := p.DeepCopy()
		change(&p.Status)
		return c.Status().Patch(context.Background(), p, client.MergeFrom(base))
	}
	current := func() swapv1.QuotaUsage {
		var got swapv1.QuotaUsage
		Eventually(func(g Gomega) {
			p := &swapv1.Partner{}
			g.Expect(admin.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: "acme"}, p)).To(Succeed())
			g.Expect(p.Status.QuotaUsage).NotTo(BeNil())
			got = *p.Status.QuotaUsage
		}).Should(Succeed())
		return got
	}
	refusedBy := func(name string) OmegaMatcher {
		return MatchError(ContainSubstring("ValidatingAdmissionPolicy '" + name + "'"))
	}

	It("only grows under the frontend, which writes nothing else of the status; the controllers leave it alone", func() {
		Expect(usage(admin, func(st *swapv1.PartnerStatus) {
			st.QuotaUsage = &swapv1.QuotaUsage{Month: quota.Month(time.Now()), Quotes: 5, Claimed: 5}
		})).To(Succeed())
		u := current()
		fe := clientFor(frontendConfig)
		Expect(usage(fe, func(st *swapv1.PartnerStatus) { st.QuotaUsage.Quotes = 0 })).To(refusedBy("swaprouter-partner-usage"))
		Expect(usage(fe, func(st *swapv1.PartnerStatus) { st.QuotaUsage.Month = "2001-01"; st.QuotaUsage.Quotes = 0 })).
			To(refusedBy("swaprouter-partner-usage"))
		Expect(usage(fe, func(st *swapv1.PartnerStatus) { st.ActiveKeys = 9 })).To(refusedBy("swaprouter-partner-usage"))
		Expect(usage(fe, func(st *swapv1.PartnerStatus) { st.QuotaUsage = nil })).To(refusedBy("swaprouter-partner-usage"))
		Expect(usage(clientFor(controllersConfig), func(st *swapv1.PartnerStatus) { st.QuotaUsage.Quotes++ })).
			To(refusedBy("swaprouter-partner-usage"))
		Expect(current().Quotes).To(BeNumerically(">=", u.Quotes))
		Expect(usage(fe, func(st *swapv1.PartnerStatus) { st.QuotaUsage.Quotes++ })).To(Succeed(), "adding is the frontend's")
	})
})

var _ = Describe("the controllers' ServiceAccount, consuming requests", func() {
	It("removes a request it handled with its stamp, never an operator's pause of a live order, never a stamp alone", func() {
		ctrl := clientFor(controllersConfig)
		_, name := placeOrder()
		Expect(annotate(operator("alice"), name, map[string]any{swapv1.AnnotationPaused: "incident"})).To(Succeed())
		Expect(annotate(ctrl, name, map[string]any{swapv1.AnnotationPaused: nil})).To(refusedByPolicy())
		Expect(annotate(ctrl, name, map[string]any{swapv1.RequestedBy(swapv1.AnnotationPaused): nil})).To(refusedByPolicy())
		Expect(get(name).Annotations).To(And(HaveKeyWithValue(swapv1.AnnotationPaused, "incident"),
			HaveKeyWithValue(swapv1.RequestedBy(swapv1.AnnotationPaused), "alice")))
	})
})

// payloadOf reads a delivery's bytes from the API server (the cache trims finished ones).
func payloadOf(ctx context.Context, d *swapv1.WebhookDelivery) string {
	GinkgoHelper()
	got := &swapv1.WebhookDelivery{}
	Expect(admin.Get(ctx, client.ObjectKeyFromObject(d), got)).To(Succeed())
	Expect(strings.TrimSpace(got.Spec.Payload)).NotTo(BeEmpty())
	return got.Spec.Payload
}
