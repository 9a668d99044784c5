package privilege

import (
	"context"
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/scheme"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// policy names the admission policy whose refusal the API server reports.
const policy = "swaprouter-swaporder-writers"

var _ = Describe("the frontend's ServiceAccount", func() {
	It("places orders and writes deposit hints; the order settles and the partner gets its signed webhooks", func() {
		id, name := placeOrder()
		o := get(name)
		tx, err := sim.Deposit(o.Status.DepositAddress, partnerapi.PointOneETH)
		Expect(err).NotTo(HaveOccurred())
		hint, err := partner.API.SubmitDepositWithResponse(context.Background(), id, swapclient.DepositRequest{TxHash: tx})
		Expect(err).NotTo(HaveOccurred())
		Expect(hint.StatusCode()).To(Equal(http.StatusAccepted), "%s", hint.Body)
		Expect(get(name).Spec.DepositHint).To(HaveField("TxHash", tx))
		partner.AwaitStatus(id, swapclient.OrderStatusSUCCESS)
		Eventually(func() []string { return eventStatuses(id) }).Should(ContainElement("SUCCESS"))
	})

	It("cannot state an order's outcome or touch anything but the deposit hint: the API server refuses", func() {
		fe := clientFor(frontendConfig)
		_, name := placeOrder()
		forged, _ := json.Marshal(map[string]string{"status": "SUCCESS", "reason": "paid", "by": "oncall"})
		for annotation, value := range map[string]string{
			swapv1.AnnotationResolve: string(forged), swapv1.AnnotationPaused: "x",
			swapv1.AnnotationPoll: "x", swapv1.AnnotationRedeliver: "x",
			swapv1.AnnotationApprove: "x", swapv1.AnnotationReject: "x",
		} {
			Expect(annotate(fe, name, map[string]any{annotation: value})).To(refusedByPolicy(), annotation)
		}
		Expect(patchMetadata(fe, name, "labels", map[string]any{auth.PartnerLabel: "someone-else"})).To(refusedByPolicy())
		Expect(patchMetadata(fe, name, "annotations", map[string]any{"note": "x"})).To(refusedByPolicy())
		o := get(name)
		Expect(requests(o)).To(BeEmpty())
		Expect(o.Status.Status).To(Equal(swapv1.OrderPending))

		By("nor create an order carrying an operator annotation")
		created := &swapv1.SwapOrder{Spec: *o.Spec.DeepCopy()}
		created.Spec.OrderID = orderid.New()
		created.Name, created.Namespace = orderid.ObjectName(created.Spec.OrderID), namespace
		created.Annotations = map[string]string{swapv1.AnnotationResolve: string(forged)}
		Expect(fe.Create(context.Background(), created)).To(refusedByPolicy())
	})

	It("reads the one Secret it needs, never a partner's webhook signing Secret", func() {
		fe := clientFor(frontendConfig)
		ctx := context.Background()
		Expect(fe.Get(ctx, client.ObjectKey{Namespace: namespace, Name: auth.FrontendSecret}, &corev1.Secret{})).To(Succeed())
		err := fe.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "acme-webhook"}, &corev1.Secret{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "get the webhook secret: %v", err)
		err = fe.List(ctx, &corev1.SecretList{}, client.InNamespace(namespace))
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "list secrets: %v", err)
	})
})

var _ = Describe("an operator bound to the swaprouter-operator ClusterRole", func() {
	It("resolves a stuck order; the reconciler records the name the API server authenticated, not the one written", func() {
		alice := operator("alice")
		id, name := placeOrder()
		claimed, _ := json.Marshal(map[string]string{"status": "REFUNDED", "reason": "refund 0xabc seen on chain", "by": "mallory"})
		stamp := swapv1.RequestedBy(swapv1.AnnotationResolve)
		o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		Expect(patch(alice, o, map[string]any{swapv1.AnnotationResolve: string(claimed), stamp: "mallory"})).To(Succeed())
		Expect(o.Annotations).To(HaveKeyWithValue(stamp, "alice"), "the API server's stamp replaces the request's")

		Eventually(func() swapv1.OrderStatus { return get(name).Status.Status }).Should(Equal(swapv1.OrderRefunded))
		got := get(name)
		Expect(got.Status.Resolution).To(HaveField("By", "alice"))
		Eventually(func() map[string]string { return requests(get(name)) }).Should(BeEmpty(),
			"the controllers removed the request they handled, and its stamp went with it")
		Eventually(func() []string { return eventStatuses(id) }).Should(ContainElement("REFUNDED"))
		Eventually(func() string { return eventNote(name, "OperatorResolved") }).Should(ContainSubstring("by alice:"))
	})

	It("pauses an order under their own name and resumes it", func() {
		alice := operator("alice")
		_, name := placeOrder()
		Expect(annotate(alice, name, map[string]any{swapv1.AnnotationPaused: "mallory: provider incident"})).To(Succeed())
		Eventually(func() string {
			c := meta.FindStatusCondition(get(name).Status.Conditions, swapv1.ConditionPaused)
			if c == nil {
				return ""
			}
			return c.Message
		}).Should(ContainSubstring("paused by alice: mallory: provider incident"))
		Expect(annotate(alice, name, map[string]any{swapv1.AnnotationPaused: nil})).To(Succeed())
		Expect(get(name).Annotations).NotTo(HaveKey(swapv1.RequestedBy(swapv1.AnnotationPaused)))
		Eventually(func() *metav1.Condition {
			return meta.FindStatusCondition(get(name).Status.Conditions, swapv1.ConditionPaused)
		}).Should(BeNil())
	})
})

var _ = Describe("the controllers' ServiceAccount", func() {
	It("removes an operator's request but cannot make or change one", func() {
		ctrl := clientFor(controllersConfig)
		_, name := placeOrder()
		resolve, _ := json.Marshal(map[string]string{"status": "FAILED", "reason": "x"})
		Expect(annotate(ctrl, name, map[string]any{swapv1.AnnotationResolve: string(resolve)})).To(refusedByPolicy())

		Expect(annotate(operator("alice"), name, map[string]any{swapv1.AnnotationPaused: "incident"})).To(Succeed())
		Expect(annotate(ctrl, name, map[string]any{swapv1.AnnotationPaused: "something else"})).To(refusedByPolicy())
		// A pause stays the operator's while the order lives (the next test); a one-shot
		// request the controllers removes once handled, and its stamp goes with it.
		Expect(annotate(operator("alice"), name, map[string]any{swapv1.AnnotationPaused: nil, swapv1.AnnotationRedeliver: "x"})).To(Succeed())
		Expect(annotate(ctrl, name, map[string]any{swapv1.AnnotationRedeliver: nil})).To(Succeed())
		Expect(requests(get(name))).To(BeEmpty())
	})
})

var _ = Describe("a user who may patch orders but is no operator", func() {
	It("cannot set, change or remove operator annotations, while other changes pass", func() {
		ctx := context.Background()
		Expect(client.IgnoreAlreadyExists(admin.Create(ctx, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "order-patcher", Namespace: namespace},
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{swapv1.GroupVersion.Group}, Resources: []string{"swaporders"},
				Verbs: []string{"get", "patch"},
			}},
		}))).To(Succeed())
		bind("bob", "Role", "order-patcher")
		bob := clientFor(impersonating("bob"))
		_, name := placeOrder()

		resolve, _ := json.Marshal(map[string]string{"status": "FAILED", "reason": "x"})
		Expect(annotate(bob, name, map[string]any{swapv1.AnnotationResolve: string(resolve)})).To(refusedByPolicy())
		Expect(annotate(operator("alice"), name, map[string]any{swapv1.AnnotationPaused: "incident"})).To(Succeed())
		Expect(annotate(bob, name, map[string]any{swapv1.AnnotationPaused: nil})).To(refusedByPolicy())
		Expect(get(name).Annotations).To(HaveKeyWithValue(swapv1.AnnotationPaused, "incident"))
		Expect(patchMetadata(bob, name, "labels", map[string]any{"team": "ops"})).To(Succeed())

		By("a user without RBAC on orders is refused before any policy")
		err := annotate(clientFor(impersonating("stranger")), name, map[string]any{swapv1.AnnotationPoll: "x"})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).NotTo(ContainSubstring(policy))
	})
})

// placeOrder creates an order through /v1 as a partner does (route_A, quoted with the token
// the frontend reads from its Secret) and returns its id and object name once it has an
// address.
func placeOrder() (id, name string) {
	GinkgoHelper()
	id = partner.CreateOrder(partnerapi.OrderRequest(swapv1.ProviderRouteA), "").Id
	return id, orderid.ObjectName(id)
}

func get(name string) *swapv1.SwapOrder {
	GinkgoHelper()
	o := &swapv1.SwapOrder{}
	Expect(admin.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, o)).To(Succeed())
	return o
}

func clientFor(cfg *rest.Config) client.Client {
	GinkgoHelper()
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// impersonating is the administrator acting as user (no groups beyond system:authenticated).
func impersonating(user string) *rest.Config {
	cfg := rest.CopyConfig(plane.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	return cfg
}

// operator is a client acting as user, bound to the shipped swaprouter-operator ClusterRole
// in the service's namespace.
func operator(user string) client.Client {
	GinkgoHelper()
	bind(user, "ClusterRole", "swaprouter-operator")
	return clientFor(impersonating(user))
}

func bind(user, kind, role string) {
	GinkgoHelper()
	Expect(client.IgnoreAlreadyExists(admin.Create(context.Background(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user + "-" + role, Namespace: namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}))).To(Succeed())
}

// annotate merge-patches the order's annotations as c (nil removes one), as `kubectl
// annotate` and the plugin do.
func annotate(c client.Client, name string, annotations map[string]any) error {
	return patch(c, &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}, annotations)
}

// patch is annotate into o, which receives the stored order.
func patch(c client.Client, o *swapv1.SwapOrder, annotations map[string]any) error {
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	return c.Patch(context.Background(), o, client.RawPatch(types.MergePatchType, body))
}

func patchMetadata(c client.Client, name, field string, values map[string]any) error {
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{field: values}})
	o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	return c.Patch(context.Background(), o, client.RawPatch(types.MergePatchType, body))
}

// refusedByPolicy matches the API server's refusal by the admission policy (not by RBAC).
func refusedByPolicy() OmegaMatcher {
	return MatchError(ContainSubstring("ValidatingAdmissionPolicy '" + policy + "'"))
}

// eventStatuses are the statuses of the order's webhook events the partner received.
func eventStatuses(id string) []string {
	var out []string
	for _, ev := range receiver.EventsFor(id) {
		out = append(out, ev.Status)
	}
	return out
}

// eventNote is the note of the order's latest Event with reason.
func eventNote(name, reason string) string {
	GinkgoHelper()
	var list eventsv1.EventList
	Expect(admin.List(context.Background(), &list, client.InNamespace(namespace))).To(Succeed())
	note := ""
	for _, ev := range list.Items {
		if ev.Regarding.Name == name && ev.Reason == reason {
			note = ev.Note
		}
	}
	return note
}
