package controllers

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/netguard"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// receivedRequest is one POST as the receiver saw it.
type receivedRequest struct {
	path      string
	header    http.Header
	body      []byte
	verifyErr error
}

// receiver is a partner's webhook endpoint on 127.0.0.1: it verifies every request with
// pkg/webhooks, answers what respond says, and processes each webhook-id once.
type receiver struct {
	srv       *httptest.Server
	secret    string
	respond   func(n int, w http.ResponseWriter, r *http.Request) int // n counts requests from 1
	mu        sync.Mutex
	requests  []receivedRequest
	processed map[string]int
}

func newReceiver(secret string, respond func(n int, w http.ResponseWriter, r *http.Request) int) *receiver {
	rc := &receiver{secret: secret, respond: respond, processed: map[string]int{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		verifyErr := webhooks.Verify(rc.secret, r.Header, body, time.Now())
		rc.requests = append(rc.requests, receivedRequest{r.URL.Path, r.Header.Clone(), body, verifyErr})
		n := len(rc.requests)
		rc.mu.Unlock()

		code := http.StatusNoContent
		if rc.respond != nil {
			code = rc.respond(n, w, r)
		}
		if verifyErr != nil && code >= 200 && code < 300 {
			code = http.StatusUnauthorized // a real receiver never accepts what it cannot verify
		}
		if code >= 200 && code < 300 {
			rc.mu.Lock()
			if id := r.Header.Get(webhooks.HeaderID); rc.processed[id] == 0 {
				rc.processed[id]++ // duplicates are acknowledged but not processed again
			}
			rc.mu.Unlock()
		}
		w.WriteHeader(code)
	}))
	DeferCleanup(rc.srv.Close)
	return rc
}

// setSecret sets the secret the receiver verifies with.
func (rc *receiver) setSecret(s string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = s
}

func (rc *receiver) snapshot() ([]receivedRequest, map[string]int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	processed := make(map[string]int, len(rc.processed))
	for k, v := range rc.processed {
		processed[k] = v
	}
	return append([]receivedRequest(nil), rc.requests...), processed
}

func (rc *receiver) count() int {
	reqs, _ := rc.snapshot()
	return len(reqs)
}

// fastPolicy is the production schedule's shape (8 attempts) with tiny delays; status times
// have second precision, so each retry waits at most about a second.
func fastPolicy(attempts int) delivery.Policy {
	s := make([]time.Duration, attempts)
	for i := 1; i < attempts; i++ {
		s[i] = 50 * time.Millisecond
	}
	return delivery.Policy{Schedule: s, MaxRetryAfter: time.Second}
}

// startDeliveryManager runs a manager with only the WebhookDelivery reconciler and returns
// its stop function (also registered as cleanup; stopping twice is harmless).
func startDeliveryManager(configure func(r *WebhookDeliveryReconciler)) (stop func()) {
	return startDeliveryManagerOn(newTestManager(), configure)
}

// startDeliveryManagerOn is startDeliveryManager on a manager of the caller's.
func startDeliveryManagerOn(mgr ctrl.Manager, configure func(r *WebhookDeliveryReconciler)) (stop func()) {
	r := &WebhookDeliveryReconciler{Client: mgr.GetClient(), Guard: netguard.Options{AllowLoopback: true}, Policy: fastPolicy(8)}
	if configure != nil {
		configure(r)
	}
	Expect(r.SetupWithManager(mgr)).To(Succeed())
	return runTestManager(mgr)
}

// deliveryTimers are a WebhookDelivery reconciler's timers (see suite_test.go).
type deliveryTimers struct {
	*timers[*swapv1.WebhookDelivery]
}

func newDeliveryTimers() deliveryTimers {
	return deliveryTimers{newTimers[*swapv1.WebhookDelivery](nil)}
}

// install gives r the timers; configure functions call it.
func (t deliveryTimers) install(r *WebhookDeliveryReconciler) {
	r.Now, r.Wake, r.Client = t.clock.Now, t.wake.source(), t.client(r.Client)
}

// dueNow moves the clock to d's next attempt, when one is scheduled, and wakes d: polled in
// an Eventually, each retry comes without waiting for its second-precision due time.
func (t deliveryTimers) dueNow(ctx context.Context, g Gomega, d *swapv1.WebhookDelivery) {
	if next := getDelivery(ctx, g, d).Status.NextAttemptAt; next != nil {
		t.clock.AdvanceTo(next.Time)
	}
	t.wake.wake(d)
}

// partnerFixture is a namespace with a partner, its signing secret(s) and one order.
type partnerFixture struct {
	ns      string
	partner *swapv1.Partner
	order   *swapv1.SwapOrder
	secrets []string
}

func randomOrderID() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return "ord_" + strings.ToLower(base32.StdEncoding.EncodeToString(b))[:26]
}

// newPartnerFixture creates the objects in a fresh namespace. The first secret goes to
// secretRef, the others to additionalSecretRefs.
func newPartnerFixture(ctx context.Context, url string, enabled bool, nSecrets int) *partnerFixture {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "whd-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	f := &partnerFixture{ns: ns.Name}

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "acme-webhook", Namespace: ns.Name}, Data: map[string][]byte{}}
	wh := &swapv1.PartnerWebhook{URL: url, Enabled: enabled}
	for i := 0; i < nSecrets; i++ {
		s, err := webhooks.NewSecret()
		Expect(err).NotTo(HaveOccurred())
		key := "secret-" + string(rune('a'+i))
		secret.Data[key] = []byte(s)
		f.secrets = append(f.secrets, s)
		ref := swapv1.SecretKeyRef{Name: secret.Name, Key: key}
		if i == 0 {
			wh.SecretRef = ref
		} else {
			wh.AdditionalSecretRefs = append(wh.AdditionalSecretRefs, ref)
		}
	}
	Expect(k8sClient.Create(ctx, secret)).To(Succeed())

	f.partner = &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: ns.Name}, Spec: swapv1.PartnerSpec{Webhook: wh}}
	Expect(k8sClient.Create(ctx, f.partner)).To(Succeed())

	id := randomOrderID()
	f.order = &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: strings.ReplaceAll(id, "_", "-"), Namespace: ns.Name},
		Spec: swapv1.SwapOrderSpec{
			OrderID: id, Partner: "acme", ProviderID: swapv1.ProviderRouteA,
			OriginAsset: "eip155:1/slip44:60", DestinationAsset: "eip155:42161/slip44:60", Amount: "1000000",
			Sender: "0xsender", Recipient: "0xrecipient",
		},
	}
	Expect(k8sClient.Create(ctx, f.order)).To(Succeed())
	return f
}

// createDelivery records transition seq in the order's history and creates its delivery, as
// the order reconciler would.
func (f *partnerFixture) createDelivery(ctx context.Context, seq int64, status swapv1.OrderStatus) *swapv1.WebhookDelivery {
	t := swapv1.StatusTransition{Seq: seq, Status: status, At: swapv1.NewPreciseTime(time.Now())}
	patch := client.MergeFrom(f.order.DeepCopy())
	f.order.Status.History = append(f.order.Status.History, t)
	Expect(k8sClient.Status().Patch(ctx, f.order, patch)).To(Succeed())
	d, err := delivery.NewDelivery(f.order, delivery.EventFor(f.order, t), 0)
	Expect(err).NotTo(HaveOccurred())
	Expect(k8sClient.Create(ctx, d)).To(Succeed())
	return d
}

// recordNotified stores seq as the fixture order's notifiedSeq, as the order reconciler's
// status write does once the delivery exists.
func (f *partnerFixture) recordNotified(ctx context.Context, seq int64) {
	patch := client.MergeFrom(f.order.DeepCopy())
	f.order.Status.NotifiedSeq = seq
	Expect(k8sClient.Status().Patch(ctx, f.order, patch)).To(Succeed())
}

func getDelivery(ctx context.Context, g Gomega, d *swapv1.WebhookDelivery) *swapv1.WebhookDelivery {
	var got swapv1.WebhookDelivery
	g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(d), &got)).To(Succeed())
	return &got
}

func eventReasons(ctx context.Context, g Gomega, d *swapv1.WebhookDelivery) []string {
	var list eventsv1.EventList
	g.Expect(k8sClient.List(ctx, &list, client.InNamespace(d.Namespace))).To(Succeed())
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.Name == d.Name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

func attemptCodes(d *swapv1.WebhookDelivery) []int32 {
	codes := make([]int32, 0, len(d.Status.Attempts))
	for _, a := range d.Status.Attempts {
		codes = append(codes, a.Code)
	}
	return codes
}

var _ = Describe("WebhookDelivery reconciler", func() {
	const timeout = 30 * time.Second

	It("POSTs the stored bytes once, signed so that pkg/webhooks verifies them", func(ctx SpecContext) {
		rc := newReceiver("", nil)
		f := newPartnerFixture(ctx, rc.srv.URL+"/hooks", true, 1)
		rc.setSecret(f.secrets[0])
		reg := prometheus.NewRegistry()
		startDeliveryManager(func(r *WebhookDeliveryReconciler) { r.Metrics = reg })

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) {
			got := getDelivery(ctx, g, d)
			g.Expect(got.Status.Phase).To(Equal(swapv1.DeliveryDelivered))
			g.Expect(got.Status.AttemptCount).To(Equal(int32(1)))
			g.Expect(attemptCodes(got)).To(Equal([]int32{204}))
			g.Expect(got.Status.LastCode).To(Equal(int32(204)))
			g.Expect(got.Status.CompletedAt).NotTo(BeNil())
			g.Expect(got.Status.NextAttemptAt).To(BeNil())
			g.Expect(got.Status.Attempts[0].Error).To(BeEmpty())
			g.Expect(got.Status.Conditions).To(ContainElement(And(
				HaveField("Type", swapv1.ConditionReady), HaveField("Status", metav1.ConditionTrue))))
		}).WithTimeout(timeout).Should(Succeed())

		reqs, processed := rc.snapshot()
		Expect(reqs).To(HaveLen(1))
		req := reqs[0]
		Expect(req.verifyErr).NotTo(HaveOccurred())
		Expect(req.path).To(Equal("/hooks"))
		Expect(string(req.body)).To(Equal(d.Spec.Payload), "the exact stored bytes")
		Expect(req.header.Get("Content-Type")).To(Equal("application/json"))
		Expect(req.header.Get(webhooks.HeaderID)).To(Equal(d.Spec.EventID))
		Expect(strings.Fields(req.header.Get(webhooks.HeaderSignature))).To(HaveLen(1))
		Expect(processed).To(Equal(map[string]int{d.Spec.EventID: 1}))
		Expect(webhooks.Verify(f.secrets[0], req.header, req.body, time.Now())).To(Succeed())

		Expect(gatheredSum(reg, "swaprouter_webhook_deliveries_total", map[string]string{"outcome": "delivered"})).To(Equal(1.0))
	})

	It("signs with every active secret so a receiver holding only the new one verifies", func(ctx SpecContext) {
		rc := newReceiver("", nil)
		f := newPartnerFixture(ctx, rc.srv.URL, true, 2)
		rc.setSecret(f.secrets[1]) // the receiver already rotated to the additional secret
		startDeliveryManager(nil)

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) swapv1.DeliveryPhase { return getDelivery(ctx, g, d).Status.Phase }).
			WithTimeout(timeout).Should(Equal(swapv1.DeliveryDelivered))
		reqs, _ := rc.snapshot()
		Expect(reqs).To(HaveLen(1))
		Expect(strings.Fields(reqs[0].header.Get(webhooks.HeaderSignature))).To(HaveLen(2))
		Expect(webhooks.Verify(f.secrets[0], reqs[0].header, reqs[0].body, time.Now())).To(Succeed())
		Expect(webhooks.Verify(f.secrets[1], reqs[0].header, reqs[0].body, time.Now())).To(Succeed())
	})

	It("retries through five failures, then delivers; the receiver processes one event per webhook-id", func(ctx SpecContext) {
		failures := []int{500, 502, 503, 429, 400}
		rc := newReceiver("", func(n int, w http.ResponseWriter, _ *http.Request) int {
			if n <= len(failures) {
				w.Header().Set("Retry-After", "0")
				return failures[n-1]
			}
			return http.StatusOK
		})
		f := newPartnerFixture(ctx, rc.srv.URL, true, 1)
		rc.setSecret(f.secrets[0])
		// The production cache: finished deliveries are cached without their payload.
		mgr := newTestManagerWith(cfg, func(o *ctrl.Options) {
			o.Cache.ByObject = map[client.Object]cache.ByObject{&swapv1.WebhookDelivery{}: {Transform: delivery.CacheTransform}}
		})
		t := newDeliveryTimers()
		startDeliveryManagerOn(mgr, t.install)

		d := f.createDelivery(ctx, 3, swapv1.OrderProcessing)
		Eventually(func(g Gomega) {
			t.dueNow(ctx, g, d)
			got := getDelivery(ctx, g, d)
			g.Expect(got.Status.Phase).To(Equal(swapv1.DeliveryDelivered))
			g.Expect(got.Status.AttemptCount).To(Equal(int32(6)))
			g.Expect(attemptCodes(got)).To(Equal([]int32{500, 502, 503, 429, 400, 200}))
			g.Expect(got.Status.Attempts[0].Error).To(Equal("HTTP 500"))
		}).WithTimeout(timeout).Should(Succeed())
		reqs, processed := rc.snapshot()
		Expect(reqs).To(HaveLen(6))
		for _, r := range reqs {
			Expect(r.verifyErr).NotTo(HaveOccurred(), "every attempt is signed afresh")
			Expect(r.header.Get(webhooks.HeaderID)).To(Equal(d.Spec.EventID))
		}
		Expect(processed).To(Equal(map[string]int{d.Spec.EventID: 1}))
		Eventually(func(g Gomega) []string { return eventReasons(ctx, g, d) }).WithTimeout(timeout).
			Should(ContainElement(EventReasonAttemptFailed))

		// A partner-requested redelivery sends the same event again: same webhook-id, same
		// bytes, though the cache holds the delivered original without them; the receiver
		// acknowledges it without processing it twice.
		var cached swapv1.WebhookDeliveryList
		Eventually(func(g Gomega) {
			g.Expect(mgr.GetClient().List(ctx, &cached, client.InNamespace(d.Namespace))).To(Succeed())
			g.Expect(cached.Items).To(ConsistOf(And(
				HaveField("Status.Phase", swapv1.DeliveryDelivered), HaveField("Spec.Payload", BeEmpty()))))
		}).WithTimeout(timeout).Should(Succeed())
		names, err := delivery.RedeliverOrder(ctx, mgr.GetClient(), mgr.GetAPIReader(), f.order, cached.Items, true,
			delivery.Ask{EventID: d.Spec.EventID, RequestedBy: "partner"})
		Expect(err).NotTo(HaveOccurred())
		Expect(names).To(Equal([]string{delivery.DeliveryName(d.Spec.EventID, 1)}))
		again := &swapv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: names[0]}}
		Eventually(func(g Gomega) swapv1.DeliveryPhase { return getDelivery(ctx, g, again).Status.Phase }).
			WithTimeout(timeout).Should(Equal(swapv1.DeliveryDelivered))
		reqs, processed = rc.snapshot()
		Expect(reqs).To(HaveLen(7))
		Expect(string(reqs[6].body)).To(Equal(string(reqs[0].body)))
		Expect(processed).To(Equal(map[string]int{d.Spec.EventID: 1}))
	})

	It("still delivers when the manager stops mid-request and a new one starts", func(ctx SpecContext) {
		inFlight := make(chan struct{})
		rc := newReceiver("", func(n int, _ http.ResponseWriter, r *http.Request) int {
			if n == 1 {
				close(inFlight)
				<-r.Context().Done() // hang until the sender gives up (its manager stops)
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		})
		f := newPartnerFixture(ctx, rc.srv.URL, true, 1)
		rc.setSecret(f.secrets[0])
		stop := startDeliveryManager(nil)

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(inFlight).WithTimeout(timeout).Should(BeClosed())
		stop()
		stopped := getDelivery(ctx, Default, d)
		Expect(stopped.Status.Phase).NotTo(Equal(swapv1.DeliveryDelivered))
		Expect(stopped.Status.AttemptCount).To(BeZero(), "an attempt cut short by shutdown is not the receiver's failure")

		startDeliveryManager(nil)
		Eventually(func(g Gomega) {
			got := getDelivery(ctx, g, d)
			g.Expect(got.Status.Phase).To(Equal(swapv1.DeliveryDelivered))
			g.Expect(attemptCodes(got)).To(Equal([]int32{200}))
		}).WithTimeout(timeout).Should(Succeed())
		reqs, processed := rc.snapshot()
		Expect(reqs).To(HaveLen(2))
		Expect(reqs[1].header.Get(webhooks.HeaderID)).To(Equal(reqs[0].header.Get(webhooks.HeaderID)))
		Expect(processed).To(Equal(map[string]int{d.Spec.EventID: 1}))
	})

	It("does not follow redirects: a 3xx is a failed attempt, and the schedule's end fails the delivery", func(ctx SpecContext) {
		rc := newReceiver("", func(_ int, w http.ResponseWriter, r *http.Request) int {
			if r.URL.Path == "/hook" {
				w.Header().Set("Location", "/elsewhere")
				return http.StatusTemporaryRedirect
			}
			return http.StatusOK
		})
		f := newPartnerFixture(ctx, rc.srv.URL+"/hook", true, 1)
		rc.setSecret(f.secrets[0])
		t := newDeliveryTimers()
		startDeliveryManager(func(r *WebhookDeliveryReconciler) { t.install(r); r.Policy = fastPolicy(2) })

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) {
			t.dueNow(ctx, g, d)
			got := getDelivery(ctx, g, d)
			g.Expect(got.Status.Phase).To(Equal(swapv1.DeliveryFailed))
			g.Expect(attemptCodes(got)).To(Equal([]int32{307, 307}))
			g.Expect(got.Status.Attempts[0].Error).To(Equal("redirect not followed (HTTP 307)"))
			g.Expect(got.Status.Reason).To(Equal("gave up after 2 attempts: redirect not followed (HTTP 307)"))
		}).WithTimeout(timeout).Should(Succeed())
		reqs, _ := rc.snapshot()
		Expect(reqs).To(HaveLen(2))
		for _, r := range reqs {
			Expect(r.path).To(Equal("/hook"), "the redirect target is never requested")
		}
		Eventually(func(g Gomega) []string { return eventReasons(ctx, g, d) }).WithTimeout(timeout).
			Should(ContainElement(EventReasonFailed))
	})

	It("fails at once on 410 Gone", func(ctx SpecContext) {
		rc := newReceiver("", func(int, http.ResponseWriter, *http.Request) int { return http.StatusGone })
		f := newPartnerFixture(ctx, rc.srv.URL, true, 1)
		rc.setSecret(f.secrets[0])
		t := newDeliveryTimers()
		startDeliveryManager(t.install)

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) {
			got := getDelivery(ctx, g, d)
			g.Expect(got.Status.Phase).To(Equal(swapv1.DeliveryFailed))
			g.Expect(got.Status.Reason).To(Equal("endpoint gone (HTTP 410)"))
			g.Expect(attemptCodes(got)).To(Equal([]int32{410}))
		}).WithTimeout(timeout).Should(Succeed())
		// Past every retry the schedule has, a pass sends nothing more.
		t.look(d, time.Minute)
		Expect(rc.count()).To(Equal(1))
	})

	It("sends nothing for a partner whose webhook is disabled, and fails the delivery with the reason", func(ctx SpecContext) {
		rc := newReceiver("", nil)
		f := newPartnerFixture(ctx, rc.srv.URL, false, 1)
		startDeliveryManager(nil)

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) {
			got := getDelivery(ctx, g, d)
			g.Expect(got.Status.Phase).To(Equal(swapv1.DeliveryFailed))
			g.Expect(got.Status.Reason).To(ContainSubstring("webhooks disabled"))
			g.Expect(got.Status.AttemptCount).To(BeZero())
		}).WithTimeout(timeout).Should(Succeed())
		Expect(rc.count()).To(BeZero())
	})

	It("fails a delivery whose partner does not exist", func(ctx SpecContext) {
		rc := newReceiver("", nil)
		f := newPartnerFixture(ctx, rc.srv.URL, true, 1)
		Expect(k8sClient.Delete(ctx, f.partner)).To(Succeed())
		startDeliveryManager(nil)

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) string { return getDelivery(ctx, g, d).Status.Reason }).
			WithTimeout(timeout).Should(Equal(`no webhook target: partner "acme" not found`))
		Expect(rc.count()).To(BeZero())
	})

	It("records a missing signing secret as a failed attempt and sends nothing unsigned", func(ctx SpecContext) {
		rc := newReceiver("", nil)
		f := newPartnerFixture(ctx, rc.srv.URL, true, 1)
		Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "acme-webhook", Namespace: f.ns}})).To(Succeed())
		t := newDeliveryTimers()
		startDeliveryManager(func(r *WebhookDeliveryReconciler) { t.install(r); r.Policy = fastPolicy(2) })

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) {
			t.dueNow(ctx, g, d)
			got := getDelivery(ctx, g, d)
			g.Expect(got.Status.Phase).To(Equal(swapv1.DeliveryFailed))
			g.Expect(got.Status.AttemptCount).To(Equal(int32(2)))
			g.Expect(got.Status.Attempts[0].Error).To(Equal("signing secret unavailable"))
		}).WithTimeout(timeout).Should(Succeed())
		Expect(rc.count()).To(BeZero())
	})

	It("refuses a loopback target unless the operator allows loopback, checking after DNS", func(ctx SpecContext) {
		rc := newReceiver("", nil)
		byName := strings.Replace(rc.srv.URL, "127.0.0.1", "localhost", 1)
		f := newPartnerFixture(ctx, byName, true, 1)
		startDeliveryManager(func(r *WebhookDeliveryReconciler) {
			r.Guard = netguard.Options{} // production setting
			r.Policy = fastPolicy(1)
		})

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) {
			got := getDelivery(ctx, g, d)
			g.Expect(got.Status.Phase).To(Equal(swapv1.DeliveryFailed))
			g.Expect(got.Status.Attempts).To(HaveLen(1))
			// The partner sees the class; the operator's Event says what was refused.
			g.Expect(got.Status.Attempts[0].Error).To(Equal("destination not allowed"))
			g.Expect(got.Status.Reason).To(Equal("gave up after 1 attempts: destination not allowed"))
			var events eventsv1.EventList
			g.Expect(k8sClient.List(ctx, &events, client.InNamespace(d.Namespace))).To(Succeed())
			g.Expect(events.Items).To(ContainElement(And(
				HaveField("Regarding.Name", d.Name), HaveField("Note", ContainSubstring("127.0.0.1 is loopback")))))
		}).WithTimeout(timeout).Should(Succeed())
		Expect(rc.count()).To(BeZero())
	})

	It("deletes finished deliveries once retention has passed, and nothing else", func(ctx SpecContext) {
		rc := newReceiver("", func(_ int, _ http.ResponseWriter, r *http.Request) int {
			switch {
			case strings.HasSuffix(r.URL.Path, "/gone"):
				return http.StatusGone
			case strings.HasSuffix(r.URL.Path, "/down"):
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		okF := newPartnerFixture(ctx, rc.srv.URL+"/ok", true, 1)
		goneF := newPartnerFixture(ctx, rc.srv.URL+"/gone", true, 1)
		downF := newPartnerFixture(ctx, rc.srv.URL+"/down", true, 1)
		rc.setSecret(okF.secrets[0]) // only /ok's requests need to verify for this test
		t := newDeliveryTimers()
		startDeliveryManager(func(r *WebhookDeliveryReconciler) {
			t.install(r)
			r.Retention = 3 * time.Second
			r.Policy = delivery.Policy{Schedule: []time.Duration{0, time.Hour}} // keeps /down Pending
		})

		delivered := okF.createDelivery(ctx, 1, swapv1.OrderPending)
		failed := goneF.createDelivery(ctx, 1, swapv1.OrderPending)
		pending := downF.createDelivery(ctx, 1, swapv1.OrderPending)
		for _, f := range []*partnerFixture{okF, goneF, downF} {
			f.recordNotified(ctx, 1)
		}
		Eventually(func(g Gomega) {
			g.Expect(getDelivery(ctx, g, delivered).Status.Phase).To(Equal(swapv1.DeliveryDelivered))
			g.Expect(getDelivery(ctx, g, failed).Status.Phase).To(Equal(swapv1.DeliveryFailed))
			g.Expect(getDelivery(ctx, g, pending).Status.AttemptCount).To(Equal(int32(1)))
		}).WithTimeout(timeout).Should(Succeed())
		t.clock.Advance(3*time.Second + time.Second) // past the retention, not the hour of /down's retry
		t.wake.wake(delivered, failed, pending)
		for _, d := range []*swapv1.WebhookDelivery{delivered, failed} {
			Eventually(func() error {
				return k8sClient.Get(ctx, client.ObjectKeyFromObject(d), &swapv1.WebhookDelivery{})
			}).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound), d.Name)
		}
		got := getDelivery(ctx, Default, pending)
		Expect(got.Status.Phase).To(Equal(swapv1.DeliveryPending))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(downF.order), &swapv1.SwapOrder{})).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(okF.partner), &swapv1.Partner{})).To(Succeed())
	})

	It("keeps a finished delivery past its retention until its order has recorded it", func(ctx SpecContext) {
		rc := newReceiver("", nil)
		f := newPartnerFixture(ctx, rc.srv.URL, true, 1)
		rc.setSecret(f.secrets[0])
		t := newDeliveryTimers()
		startDeliveryManager(func(r *WebhookDeliveryReconciler) { t.install(r); r.Retention = time.Second })

		// The order reconciler created it right after the transition's status write; the
		// order's next status write will record it. Deleted before that, a restarted order
		// reconciler would create it again and send the event twice.
		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) swapv1.DeliveryPhase { return getDelivery(ctx, g, d).Status.Phase }).
			WithTimeout(timeout).Should(Equal(swapv1.DeliveryDelivered))
		t.look(d, 2*time.Second) // past the retention
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(d), &swapv1.WebhookDelivery{})).To(Succeed())

		f.recordNotified(ctx, 1)
		// Woken at each poll: the wake may come before the cache shows the order's write.
		Eventually(func() error {
			t.wake.wake(d)
			return k8sClient.Get(ctx, client.ObjectKeyFromObject(d), &swapv1.WebhookDelivery{})
		}).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
	})

	It("keeps a finished delivery while its retention lasts, and deletes it after", func(ctx SpecContext) {
		rc := newReceiver("", nil)
		f := newPartnerFixture(ctx, rc.srv.URL, true, 1)
		rc.setSecret(f.secrets[0])
		t := newDeliveryTimers()
		startDeliveryManager(t.install) // default retention: 7 days

		d := f.createDelivery(ctx, 1, swapv1.OrderPending)
		Eventually(func(g Gomega) swapv1.DeliveryPhase { return getDelivery(ctx, g, d).Status.Phase }).
			WithTimeout(timeout).Should(Equal(swapv1.DeliveryDelivered))
		f.recordNotified(ctx, 1) // only the retention keeps it now
		t.look(d, DefaultDeliveryRetention-time.Minute)
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(d), &swapv1.WebhookDelivery{})).To(Succeed())

		t.clock.Advance(2 * time.Minute)
		Eventually(func() error {
			t.wake.wake(d)
			return k8sClient.Get(ctx, client.ObjectKeyFromObject(d), &swapv1.WebhookDelivery{})
		}).WithTimeout(timeout).Should(Satisfy(apierrors.IsNotFound))
	})
})
