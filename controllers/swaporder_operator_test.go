package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/postgres"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/opctl"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// kubectlSwaprouter runs the plugin's command against the test control plane with a
// kubeconfig whose user is "oncall", and returns its output (stdout and stderr).
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

// eventsOf lists the order's Events with reason, as "Type Reason: message".
func eventsOf(o *swapv1.SwapOrder, reason string) []string {
	GinkgoHelper()
	var list corev1.EventList
	Expect(k8sClient.List(context.Background(), &list, client.InNamespace(o.Namespace),
		client.MatchingFields{"involvedObject.uid": string(o.UID)})).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Reason == reason {
			out = append(out, e.Type+" "+e.Reason+": "+e.Message)
		}
	}
	return out
}

// redeliveries lists the order's deliveries that are redeliveries, by sequence.
func redeliveries(ns, orderID string) map[int64]swapv1.WebhookDelivery {
	GinkgoHelper()
	var list swapv1.WebhookDeliveryList
	Expect(k8sClient.List(context.Background(), &list, client.InNamespace(ns))).To(Succeed())
	out := map[int64]swapv1.WebhookDelivery{}
	for _, d := range list.Items {
		if d.Spec.OrderID == orderID && d.Spec.Redelivery > 0 {
			out[d.Spec.Sequence] = d
		}
	}
	return out
}

var _ = Describe("SwapOrder operator controls (kubectl swaprouter)", func() {
	var g *orderRig
	BeforeEach(func() {
		g = newOrderRig(orderRigOptions{sim: fastSim()})
	})

	It("pause holds every provider step, with a Paused condition; resume lets the order go on", func() {
		o := g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000")
		out, err := kubectlSwaprouter("pause", o.Spec.OrderID, "-n", g.ns, "--reason", "provider incident 42")
		Expect(err).NotTo(HaveOccurred())
		// Who paused is whom the API server authenticated (envtest's administrator), as for
		// every verb, not the kubeconfig's user name "oncall".
		Expect(out).To(ContainSubstring("paused by admin: provider incident 42; no provider steps until resume"))
		// The plugin returned once the pause took effect.
		Expect(meta.FindStatusCondition(g.get(o).Status.Conditions, swapv1.ConditionPaused).Message).
			To(ContainSubstring("paused by admin: provider incident 42"))
		Eventually(eventsOf).WithArguments(o, verbs.ReasonPaused).Should(ConsistOf(
			"Normal Paused: paused by admin: provider incident 42; no provider steps until resume"))
		// The pause may have come after the address; what counts is that nothing moves now,
		// though a pass looks past the time any step would be due.
		before := g.sim.Stats().Calls[swapv1.ProviderRouteA]
		g.look(o, time.Second)
		Expect(g.sim.Stats().Calls[swapv1.ProviderRouteA]).To(Equal(before))

		out, err = kubectlSwaprouter("resume", o.Name, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("resumed by admin; the order is"))
		Expect(meta.FindStatusCondition(g.get(o).Status.Conditions, swapv1.ConditionPaused)).To(BeNil())
		Eventually(eventsOf).WithArguments(o, verbs.ReasonResumed).Should(ConsistOf(
			HavePrefix("Normal Resumed: the pause is lifted; provider steps resume")))
		g.awaitAddress(o)
	})

	It("poll asks the provider now, even while paused, and says so once done", func() {
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		_, err := kubectlSwaprouter("pause", o.Spec.OrderID, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())
		_, err = g.sim.Deposit(o.Status.DepositAddress, "100000000")
		Expect(err).NotTo(HaveOccurred())
		g.look(o, time.Second) // past the next poll
		Expect(g.get(o).Status.Status).To(Equal(swapv1.OrderPending))

		// Each poll moves the order by what the provider says now; the simulator settles
		// within a few hundred milliseconds, so polls repeated by hand reach SUCCESS.
		Eventually(func() swapv1.OrderStatus {
			out, err := kubectlSwaprouter("poll", o.Spec.OrderID, "-n", g.ns)
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(ContainSubstring("asked at the request of admin; the order is"))
			Expect(annotationsOf(g, o)).NotTo(HaveKey(swapv1.AnnotationPoll))
			return g.get(o).Status.Status
		}).WithTimeout(20 * time.Second).WithPolling(300 * time.Millisecond).Should(Equal(swapv1.OrderSuccess))

		By("the order ended while paused: the pause ended with it")
		got := g.get(o)
		Expect(meta.FindStatusCondition(got.Status.Conditions, swapv1.ConditionPaused)).To(BeNil())
		Expect(got.Annotations).NotTo(HaveKey(swapv1.AnnotationPaused))
		Eventually(eventsOf).WithArguments(o, "PauseEnded").Should(ConsistOf(ContainSubstring("ended as SUCCESS while paused")))
		out, err := kubectlSwaprouter("resume", o.Spec.OrderID, "-n", g.ns)
		Expect(err).To(MatchError(ContainSubstring("resume refused: order " + o.Spec.OrderID + " is not paused")))
		Expect(out).To(BeEmpty())
	})

	It("poll polls an order whose watch stopped", func() {
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		// As the watch bound leaves it: no more polls until an operator acts.
		base := g.get(o)
		stalled := base.DeepCopy()
		meta.SetStatusCondition(&stalled.Status.Conditions, metav1.Condition{Type: swapv1.ConditionStalled, Status: metav1.ConditionTrue,
			Reason: "WatchStopped", Message: "no usable answer", ObservedGeneration: base.Generation})
		stalled.Status.NextPollAt = nil
		Expect(k8sClient.Status().Patch(context.Background(), stalled, client.MergeFrom(base))).To(Succeed())
		// Once the reconciler's cache shows it, a pass past the next poll's time polls nothing.
		Eventually(func() string {
			var cached swapv1.SwapOrder
			Expect(g.r.Client.Get(context.Background(), client.ObjectKeyFromObject(o), &cached)).To(Succeed())
			return stalledReason(&cached)
		}).Should(Equal("WatchStopped"))
		before := g.sim.Stats().Calls[swapv1.ProviderRouteA][simulator.CallStatus]
		g.look(o, time.Second)
		Expect(g.sim.Stats().Calls[swapv1.ProviderRouteA][simulator.CallStatus]).To(Equal(before))

		_, err := kubectlSwaprouter("poll", o.Spec.OrderID, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(g.sim.Stats().Calls[swapv1.ProviderRouteA][simulator.CallStatus]).To(BeNumerically(">", before))
	})

	It("resolve ends a stuck order with the operator's status, reason and name, in history and a webhook", func() {
		g.partner(true)
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		_, err := kubectlSwaprouter("pause", o.Spec.OrderID, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())

		// Money rules: a resolution without a reason is refused before it reaches the order.
		_, err = kubectlSwaprouter("resolve", o.Spec.OrderID, "-n", g.ns, "--status", "REFUNDED")
		Expect(err).To(MatchError(ContainSubstring("reason")))

		out, err := kubectlSwaprouter("resolve", o.Spec.OrderID, "-n", g.ns, "--status", "refunded",
			"--reason", "refund 0xabc seen on chain")
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("resolved to REFUNDED by admin: refund 0xabc seen on chain"))
		got := g.get(o)
		Expect(got.Status.Status).To(Equal(swapv1.OrderRefunded))
		Expect(got.Status.StatusReason).To(Equal(ReasonOperatorResolved))
		Expect(got.Status.Substatus).To(Equal(swapv1.SubstatusRefunded), "the substatus agrees with the resolved status")
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

		By("a second resolution of the terminal order, written by hand, is removed with a Warning Event")
		value, _ := json.Marshal(swapv1.OperatorResolution{Status: swapv1.OrderSuccess, Reason: "oops", By: "oncall"})
		setAnnotation(o, swapv1.AnnotationResolve, string(value))
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationResolve))
		Eventually(eventsOf).WithArguments(o, "ResolveRejected").Should(ConsistOf(
			"Warning ResolveRejected: resolve refused: order " + o.Spec.OrderID + " is already REFUNDED: a finished order keeps its status"))
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
		markDelivered(o)

		out, err := kubectlSwaprouter("redeliver", o.Spec.OrderID, "-n", g.ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("1 webhook events sent again"))
		// The redelivery carries the original's bytes (read from the API server: the cache
		// holds finished deliveries without them).
		var list swapv1.WebhookDeliveryList
		Expect(k8sClient.List(context.Background(), &list, client.InNamespace(g.ns))).To(Succeed())
		payloads := map[int32]string{}
		for _, d := range list.Items {
			if d.Spec.OrderID == o.Spec.OrderID {
				payloads[d.Spec.Redelivery] = d.Spec.Payload
			}
		}
		Expect(payloads).To(SatisfyAll(HaveLen(2), HaveKeyWithValue(int32(1), Not(BeEmpty())),
			WithTransform(func(p map[int32]string) bool { return p[0] == p[1] }, BeTrue())))
		Expect(annotationsOf(g, o)).NotTo(HaveKey(swapv1.AnnotationRedeliver))
	})

	It("says what to give for an order not in etcd when it has no archive to look in", func() {
		_, err := kubectlSwaprouter("poll", "ord_"+strings.Repeat("a", 26), "-n", g.ns)
		Expect(err).To(MatchError(ContainSubstring("is not in etcd: it does not exist, or it ended and left etcd for the archive; give --archive-dsn")))
	})

	It("reports a request the controller refused after the plugin wrote it, and one it never answers", func() {
		g.partner(true)
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		g.stop()
		_, err := kubectlSwaprouter("poll", o.Spec.OrderID, "-n", g.ns, "--wait", "500ms")
		Expect(err).To(MatchError(ContainSubstring("no answer from the order controller within 500ms; the request stays on the order")))

		By("the order ends before the controller reads the request")
		unanswered := annotationsOf(g, o)[swapv1.AnnotationPoll]
		done := make(chan error, 1)
		go func() {
			defer GinkgoRecover()
			_, err := kubectlSwaprouter("poll", o.Spec.OrderID, "-n", g.ns)
			done <- err
		}()
		Eventually(func() string { return annotationsOf(g, o)[swapv1.AnnotationPoll] }).ShouldNot(Equal(unanswered))
		value, _ := json.Marshal(swapv1.OperatorResolution{Status: swapv1.OrderFailed, Reason: "provider lost it", By: "oncall"})
		setAnnotation(o, swapv1.AnnotationResolve, string(value))
		g.start(nil, nil)
		Eventually(done).Should(Receive(MatchError("poll refused: order " + o.Spec.OrderID +
			" is already FAILED: the provider has nothing more to report")))
		Expect(annotationsOf(g, o)).NotTo(HaveKey(swapv1.AnnotationPoll))
	})
})

// Every verb on an order in every state: it takes effect, or it is refused at once with a
// message and a non-zero exit, and nothing is left behind on the order.
var _ = Describe("kubectl swaprouter verbs on orders in every state", Ordered, func() {
	var (
		dsn  string
		arch *archive.Postgres
	)
	BeforeAll(func() {
		// The server lives as long as this container, not as long as this node's context.
		ctx := context.Background()
		pg, stopPG, err := postgres.StartThrowaway(ctx, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(stopPG)
		dsn, err = pg.CreateDatabase(ctx, "archive")
		Expect(err).NotTo(HaveOccurred())
		arch, err = archive.Open(dsn)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(arch.Close)
		Expect(arch.Migrate(ctx)).To(Succeed())
	})

	type state string
	const (
		stateNew        state = "new"
		stateLive       state = "live"
		statePaused     state = "paused"
		stateTerminal   state = "terminal"
		stateArchivedIn state = "archived, still in etcd"
		stateArchived   state = "archived"
		stateMissing    state = "missing"
	)

	// prepare returns a rig and an order in state s: its partner has webhooks on, and every
	// event of the order has its delivery.
	prepare := func(s state) (*orderRig, *swapv1.SwapOrder) {
		GinkgoHelper()
		opts := orderRigOptions{sim: fastSim()}
		if s == stateArchivedIn || s == stateArchived {
			opts.archive, opts.ttl = arch, time.Hour
			if s == stateArchived {
				opts.ttl = time.Second
			}
		}
		g := newOrderRig(opts)
		g.partner(true)
		if s == stateMissing {
			id := newOrderID()
			return g, &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Namespace: g.ns, Name: strings.ReplaceAll(id, "_", "-")},
				Spec: swapv1.SwapOrderSpec{OrderID: id}}
		}
		if s == stateNew {
			// The provider answers nothing: the order waits for its address.
			g.sim.SetFault(swapv1.ProviderRouteA, simulator.AnyCall, simulator.Fault{ErrorRate: 1, Status: 503})
			return g, g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000")
		}
		o := g.awaitAddress(g.createOrder(swapv1.ProviderRouteA, usdcEth, usdcArb, "100000000"))
		switch s {
		case stateLive:
		case statePaused:
			setAnnotation(o, swapv1.AnnotationPaused, "incident")
			Eventually(func() bool { return meta.IsStatusConditionTrue(g.get(o).Status.Conditions, swapv1.ConditionPaused) }).Should(BeTrue())
		default:
			_, err := g.sim.Deposit(o.Status.DepositAddress, "100000000")
			Expect(err).NotTo(HaveOccurred())
			Eventually(g.status(o)).Should(Equal(swapv1.OrderSuccess))
		}
		Eventually(func() []int64 { return g.deliverySeqs(o)() }).Should(HaveLen(int(g.get(o).Status.LastSeq)))
		switch s {
		case stateArchivedIn:
			Eventually(func() map[string]string { return g.get(o).Labels }).Should(HaveKeyWithValue(swapv1.LabelArchived, "true"))
			Eventually(func() bool { return meta.IsStatusConditionTrue(g.get(o).Status.Conditions, ConditionArchived) }).Should(BeTrue())
		case stateArchived:
			// Delivered, as the delivery reconciler (not running here) would record it: the
			// TTL sweep deletes no order whose webhooks are still being delivered.
			markDelivered(o)
			Eventually(func() bool {
				return apierrors.IsNotFound(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(o), &swapv1.SwapOrder{}))
			}).Should(BeTrue())
			archived, err := arch.Lookup(context.Background(), o.Spec.OrderID)
			Expect(err).NotTo(HaveOccurred())
			return g, archived
		}
		return g, g.get(o)
	}

	args := map[string][]string{
		"pause":     {"pause", "--reason", "incident"},
		"resume":    {"resume"},
		"poll":      {"poll"},
		"resolve":   {"resolve", "--status", "FAILED", "--reason", "provider lost it"},
		"redeliver": {"redeliver"},
	}

	// effect checks what the verb did to the order (nil once it left etcd).
	type effect func(g *orderRig, o *swapv1.SwapOrder)
	pausedNow := func(g *orderRig, o *swapv1.SwapOrder) {
		c := meta.FindStatusCondition(g.get(o).Status.Conditions, swapv1.ConditionPaused)
		Expect(c).NotTo(BeNil())
		Expect(c.Message).To(HaveSuffix(": paused by admin: incident"))
	}
	notPaused := func(g *orderRig, o *swapv1.SwapOrder) {
		Expect(meta.FindStatusCondition(g.get(o).Status.Conditions, swapv1.ConditionPaused)).To(BeNil())
		// Removed right after the status write the plugin saw.
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationPaused))
	}
	polled := func(g *orderRig, o *swapv1.SwapOrder) {
		Expect(eventsOf(o, "Polled")).To(HaveLen(1))
	}
	failedByOperator := func(g *orderRig, o *swapv1.SwapOrder) {
		got := g.get(o)
		Expect(got.Status.Status).To(Equal(swapv1.OrderFailed))
		Expect(got.Status.Resolution).NotTo(BeNil())
		// Whom the API server authenticated (envtest's administrator).
		Expect(*got.Status.Resolution).To(And(HaveField("By", "admin"), HaveField("Reason", "provider lost it")))
		Expect(meta.FindStatusCondition(got.Status.Conditions, swapv1.ConditionPaused)).To(BeNil())
		// Nothing of the status before (AWAITING_DEPOSIT) stays beside FAILED.
		Expect(got.Status.Substatus).To(BeEmpty())
		Expect(got.Status.History[len(got.Status.History)-1].Substatus).To(BeEmpty())
	}
	// everyEventAgain: one redelivery per event of the order, with its webhook-id; an order
	// that left etcd gives its new deliveries no owner (the garbage collector would delete them).
	everyEventAgain := func(g *orderRig, o *swapv1.SwapOrder) {
		again := redeliveries(o.Namespace, o.Spec.OrderID)
		Expect(again).To(HaveLen(len(o.Status.History)))
		for _, t := range o.Status.History {
			d, ok := again[t.Seq]
			Expect(ok).To(BeTrue(), "no redelivery of seq %d", t.Seq)
			var ev webhooks.Event
			Expect(json.Unmarshal([]byte(d.Spec.Payload), &ev)).To(Succeed())
			Expect(ev.ID).To(Equal(webhooks.EventID(o.Spec.OrderID, string(o.UID), t.Seq)))
			Expect(ev.Status).To(BeEquivalentTo(t.Status))
			inEtcd := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(o), &swapv1.SwapOrder{}) == nil
			Expect(d.OwnerReferences != nil).To(Equal(inEtcd))
		}
	}
	requestsGone := func(g *orderRig, o *swapv1.SwapOrder) {
		err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(o), &swapv1.SwapOrder{})
		if apierrors.IsNotFound(err) {
			return
		}
		// Removed right after the status write the plugin saw, so not necessarily yet.
		for _, k := range []string{swapv1.AnnotationPoll, swapv1.AnnotationResolve, swapv1.AnnotationRedeliver} {
			Eventually(func() map[string]string {
				var now swapv1.SwapOrder
				_ = k8sClient.Get(context.Background(), client.ObjectKeyFromObject(o), &now)
				return now.Annotations // none once the order left etcd
			}).ShouldNot(HaveKey(k))
		}
	}

	// finishedInEtcd: a finished order still in etcd, in the reconciler's cache or archived.
	finishedInEtcd := func(s state) []TableEntry {
		return []TableEntry{
			Entry(nil, s, "pause", "", "is already SUCCESS: a finished order takes no provider steps, there is nothing to pause", nil),
			Entry(nil, s, "resume", "", "is not paused", nil),
			Entry(nil, s, "poll", "", "is already SUCCESS: the provider has nothing more to report", nil),
			Entry(nil, s, "resolve", "", "is already SUCCESS: a finished order keeps its status", nil),
			Entry(nil, s, "redeliver", "webhook events sent again", "", effect(everyEventAgain)),
		}
	}

	DescribeTable("a verb on an order",
		func(s state, verb string, wantOut, wantRefusal string, check effect) {
			g, o := prepare(s)
			out, err := kubectlSwaprouter(append(append([]string{}, args[verb]...), o.Spec.OrderID, "-n", g.ns, "--archive-dsn", dsn)...)
			if wantRefusal != "" {
				Expect(err).To(MatchError(verb + " refused: order " + o.Spec.OrderID + " " + wantRefusal))
				Expect(out).To(BeEmpty())
				// Refused before anything was written: the controller had nothing to refuse.
				if o.UID != "" {
					Expect(eventsOf(o, verbs.Verb(verb).RejectedReason())).To(BeEmpty())
				}
			} else {
				Expect(err).NotTo(HaveOccurred())
				Expect(out).To(ContainSubstring(wantOut))
			}
			requestsGone(g, o)
			if check != nil {
				check(g, o)
			}
		},
		Entry(nil, stateNew, "pause", "paused by admin: incident", "", effect(pausedNow)),
		Entry(nil, stateNew, "resume", "", "is not paused", nil),
		Entry(nil, stateNew, "poll", "", "has no deposit address yet: there is no provider order to poll (the address request is under way)", nil),
		Entry(nil, stateNew, "resolve", "resolved to FAILED by admin: provider lost it", "", effect(failedByOperator)),
		Entry(nil, stateNew, "redeliver", "", "has no webhook events yet: nothing to redeliver", nil),

		Entry(nil, stateLive, "pause", "paused by admin: incident", "", effect(pausedNow)),
		Entry(nil, stateLive, "resume", "", "is not paused", nil),
		Entry(nil, stateLive, "poll", "asked at the request of admin; the order is PENDING", "", effect(polled)),
		Entry(nil, stateLive, "resolve", "resolved to FAILED by admin: provider lost it", "", effect(failedByOperator)),
		Entry(nil, stateLive, "redeliver", "1 webhook events sent again", "", effect(everyEventAgain)),

		Entry(nil, statePaused, "pause", "", "is already paused (admin: incident); resume it first to pause it again", nil),
		Entry(nil, statePaused, "resume", "resumed by admin; the order is PENDING", "", effect(notPaused)),
		Entry(nil, statePaused, "poll", "asked at the request of admin; the order is PENDING", "", effect(polled)),
		Entry(nil, statePaused, "resolve", "resolved to FAILED by admin: provider lost it", "", effect(func(g *orderRig, o *swapv1.SwapOrder) {
			failedByOperator(g, o)
			notPaused(g, o)
		})),
		Entry(nil, statePaused, "redeliver", "1 webhook events sent again", "", effect(everyEventAgain)),

		finishedInEtcd(stateTerminal), finishedInEtcd(stateArchivedIn),

		Entry(nil, stateArchived, "pause", "", "is archived: it ended as SUCCESS and left etcd; only redeliver acts on it", nil),
		Entry(nil, stateArchived, "resume", "", "is archived: it ended as SUCCESS and left etcd; only redeliver acts on it", nil),
		Entry(nil, stateArchived, "poll", "", "is archived: it ended as SUCCESS and left etcd; only redeliver acts on it", nil),
		Entry(nil, stateArchived, "resolve", "", "is archived: it ended as SUCCESS and left etcd; only redeliver acts on it", nil),
		Entry(nil, stateArchived, "redeliver", "webhook events sent again", "", effect(everyEventAgain)),

		Entry(nil, stateMissing, "pause", "", "does not exist (neither etcd nor the order archive has it)", nil),
		Entry(nil, stateMissing, "resume", "", "does not exist (neither etcd nor the order archive has it)", nil),
		Entry(nil, stateMissing, "poll", "", "does not exist (neither etcd nor the order archive has it)", nil),
		Entry(nil, stateMissing, "resolve", "", "does not exist (neither etcd nor the order archive has it)", nil),
		Entry(nil, stateMissing, "redeliver", "", "does not exist (neither etcd nor the order archive has it)", nil),
	)

	It("answers requests written by hand on an archived order: refused ones are removed with a Warning Event, a redeliver is done", func() {
		g, o := prepare(stateArchivedIn)
		value, _ := json.Marshal(swapv1.OperatorResolution{Status: swapv1.OrderRefunded, Reason: "x", By: "oncall"})
		setAnnotation(o, swapv1.AnnotationResolve, string(value))
		setAnnotation(o, swapv1.AnnotationRedeliver, "by hand")
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(Or(
			HaveKey(swapv1.AnnotationResolve), HaveKey(swapv1.AnnotationRedeliver)))
		Eventually(eventsOf).WithArguments(o, "ResolveRejected").Should(ConsistOf(
			"Warning ResolveRejected: resolve refused: order " + o.Spec.OrderID + " is already SUCCESS: a finished order keeps its status"))
		Eventually(eventsOf).WithArguments(o, "Redelivered").Should(ConsistOf(
			fmt.Sprintf("Normal Redelivered: %d webhook events sent again at the request of admin", len(o.Status.History))))
		everyEventAgain(g, o)
	})

	It("lifts the pause of an archived order that ended while paused, and refuses a pause written on it later", func() {
		g, o := prepare(stateArchivedIn)
		// As a release that kept the pause past the end left it.
		base := g.get(o)
		stale := base.DeepCopy()
		meta.SetStatusCondition(&stale.Status.Conditions, metav1.Condition{Type: swapv1.ConditionPaused, Status: metav1.ConditionTrue,
			Reason: "OperatorPaused", Message: "paused", ObservedGeneration: base.Generation})
		Expect(k8sClient.Status().Patch(context.Background(), stale, client.MergeFrom(base))).To(Succeed())
		setAnnotation(o, swapv1.AnnotationPaused, "oncall: incident")
		Eventually(func() *metav1.Condition {
			return meta.FindStatusCondition(g.get(o).Status.Conditions, swapv1.ConditionPaused)
		}).Should(BeNil())
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationPaused))
		Eventually(eventsOf).WithArguments(o, "PauseEnded").Should(ConsistOf(ContainSubstring("ended as SUCCESS while paused")))

		setAnnotation(o, swapv1.AnnotationPaused, "oncall: incident")
		Eventually(func() map[string]string { return annotationsOf(g, o) }).ShouldNot(HaveKey(swapv1.AnnotationPaused))
		Eventually(eventsOf).WithArguments(o, "PauseRejected").Should(ConsistOf("Warning PauseRejected: pause refused: order " +
			o.Spec.OrderID + " is already SUCCESS: a finished order takes no provider steps, there is nothing to pause"))
	})
})

// markDelivered records the order's deliveries as delivered.
func markDelivered(o *swapv1.SwapOrder) {
	GinkgoHelper()
	var list swapv1.WebhookDeliveryList
	Expect(k8sClient.List(context.Background(), &list, client.InNamespace(o.Namespace))).To(Succeed())
	for i := range list.Items {
		if d := &list.Items[i]; d.Spec.OrderID == o.Spec.OrderID {
			before := d.DeepCopy()
			d.Status.Phase, d.Status.CompletedAt = swapv1.DeliveryDelivered, ptr.To(metav1.Now())
			Expect(k8sClient.Status().Patch(context.Background(), d, client.MergeFrom(before))).To(Succeed())
		}
	}
}

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
