package controllers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/netguard"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// patientHTTPClient is the delivery client without its own deadlines, so an attempt ends
// only when the reconciler's AttemptTimeout (or the receiver) ends it.
func patientHTTPClient() *http.Client {
	c := netguard.NewHTTPClient(netguard.Options{AllowLoopback: true})
	c.Timeout = 0
	c.Transport.(*http.Transport).ResponseHeaderTimeout = 0
	return c
}

// createDeliveries creates the deliveries of transitions 1..n of the fixture's order.
func (f *partnerFixture) createDeliveries(ctx context.Context, n int) []*swapv1.WebhookDelivery {
	out := make([]*swapv1.WebhookDelivery, n)
	for i := range out {
		out[i] = f.createDelivery(ctx, int64(i+1), swapv1.OrderProcessing)
	}
	return out
}

// phases counts the deliveries by phase and sums their attempts.
func phases(ctx context.Context, g Gomega, ds []*swapv1.WebhookDelivery) (byPhase map[swapv1.DeliveryPhase]int, attempts int32) {
	byPhase = map[swapv1.DeliveryPhase]int{}
	for _, d := range ds {
		got := getDelivery(ctx, g, d)
		byPhase[got.Status.Phase]++
		attempts += got.Status.AttemptCount
	}
	return byPhase, attempts
}

// eventIDs are the deliveries' webhook-ids, each once: what an exactly-once-processing
// receiver ends up with.
func eventIDs(ds []*swapv1.WebhookDelivery) map[string]int {
	ids := map[string]int{}
	for _, d := range ds {
		ids[d.Spec.EventID] = 1
	}
	return ids
}

// apiGets counts GETs of single objects (not lists or watches) by resource, as the API
// server receives them from one manager.
type apiGets struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *apiGets) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet && req.URL.Query().Get("watch") == "" {
			if resource, named := resourceOf(req.URL.Path); named {
				c.mu.Lock()
				c.counts[resource]++
				c.mu.Unlock()
			}
		}
		return rt.RoundTrip(req)
	})
}

func (c *apiGets) get(resource string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[resource]
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// resourceOf reads ".../namespaces/<ns>/<resource>[/<name>[/<subresource>]]".
func resourceOf(path string) (resource string, named bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i := 0; i+2 < len(parts); i++ {
		if parts[i] == "namespaces" {
			return parts[i+2], i+3 < len(parts)
		}
	}
	return "", false
}

var _ = Describe("WebhookDelivery reconciler with partners isolated", func() {
	const timeout = 60 * time.Second

	It("keeps delivering partner B's webhooks while partner A's endpoint hangs, and delivers A's once it answers", func(ctx SpecContext) {
		release := make(chan struct{})
		var releaseOnce sync.Once
		DeferCleanup(func() { releaseOnce.Do(func() { close(release) }) })
		var hanging atomic.Int32
		hung := newReceiver("", func(_ int, _ http.ResponseWriter, r *http.Request) int {
			hanging.Add(1)
			defer hanging.Add(-1)
			select { // accepts and does not answer until the endpoint "recovers"
			case <-release:
				return http.StatusOK
			case <-r.Context().Done():
				return http.StatusServiceUnavailable
			}
		})
		healthy := newReceiver("", nil)
		a := newPartnerFixture(ctx, hung.srv.URL, true, 1)
		b := newPartnerFixture(ctx, healthy.srv.URL, true, 1)
		hung.setSecret(a.secrets[0])
		healthy.setSecret(b.secrets[0])
		startDeliveryManager(func(r *WebhookDeliveryReconciler) {
			// Fewer workers than A has deliveries: without isolation A's hanging attempts
			// would hold every worker and B would get none.
			r.MaxConcurrentReconciles = 4
			r.Endpoints = delivery.NewEndpoints(delivery.EndpointOptions{MaxInFlight: 2})
			r.HTTPClient = patientHTTPClient()
			r.AttemptTimeout = time.Hour // A's attempts hang for as long as the spec needs
		})

		aDeliveries := a.createDeliveries(ctx, 12)
		Eventually(hanging.Load).WithTimeout(timeout).Should(Equal(int32(2)), "A's cap of attempts in flight is reached")
		bDeliveries := b.createDeliveries(ctx, 10)

		Eventually(func(g Gomega) {
			byPhase, attempts := phases(ctx, g, bDeliveries)
			g.Expect(byPhase[swapv1.DeliveryDelivered]).To(Equal(10))
			g.Expect(attempts).To(Equal(int32(10)), "one attempt each")
		}).WithTimeout(timeout).Should(Succeed())
		_, processed := healthy.snapshot()
		Expect(processed).To(Equal(eventIDs(bDeliveries)))

		// All of B was delivered while A's first two attempts were still hanging, and A's
		// other ten were never dialed: they waited for a slot without spending attempts.
		Expect(hanging.Load()).To(Equal(int32(2)))
		Expect(hung.count()).To(Equal(2))
		aPhases, aAttempts := phases(ctx, Default, aDeliveries)
		Expect(aPhases[swapv1.DeliveryPending] + aPhases[""]).To(Equal(12))
		Expect(aAttempts).To(BeZero())
		Expect(webhookInFlight(a)).To(Equal(2.0))
		Expect(webhookDeferred(a, delivery.VerdictSaturated)).To(BeNumerically(">", 0))
		Expect(webhookDeferred(b, delivery.VerdictSaturated)).To(BeZero())

		// A's endpoint recovers: every event reaches it, each processed once.
		releaseOnce.Do(func() { close(release) })
		Eventually(func(g Gomega) {
			byPhase, _ := phases(ctx, g, aDeliveries)
			g.Expect(byPhase[swapv1.DeliveryDelivered]).To(Equal(12))
		}).WithTimeout(timeout).Should(Succeed())
		reqs, processed := hung.snapshot()
		Expect(processed).To(Equal(eventIDs(aDeliveries)))
		Expect(len(reqs)).To(BeNumerically(">=", 12))
		for _, r := range reqs {
			Expect(r.verifyErr).NotTo(HaveOccurred())
		}
	})

	It("stops dialing a black-holed endpoint once its circuit opens, without spending deliveries' attempts", func(ctx SpecContext) {
		var answering atomic.Bool
		blackHole := newReceiver("", func(_ int, _ http.ResponseWriter, r *http.Request) int {
			if answering.Load() {
				return http.StatusOK
			}
			<-r.Context().Done() // never answers: the sender's attempt timeout ends it
			return http.StatusServiceUnavailable
		})
		healthy := newReceiver("", nil)
		a := newPartnerFixture(ctx, blackHole.srv.URL, true, 1)
		b := newPartnerFixture(ctx, healthy.srv.URL, true, 1)
		blackHole.setSecret(a.secrets[0])
		healthy.setSecret(b.secrets[0])
		stop := startDeliveryManager(func(r *WebhookDeliveryReconciler) {
			// One attempt at a time to A, so the dials before the circuit opens are exactly
			// the threshold; it then stays open for longer than the spec runs.
			r.Endpoints = delivery.NewEndpoints(delivery.EndpointOptions{MaxInFlight: 1, FailureThreshold: 2, OpenFor: time.Hour})
			r.AttemptTimeout = 300 * time.Millisecond
		})

		aDeliveries := a.createDeliveries(ctx, 6)
		Eventually(func() float64 { return webhookCircuit(a) }).WithTimeout(timeout).
			Should(Equal(2.0), "A's circuit opens")
		bDeliveries := b.createDeliveries(ctx, 5)
		Eventually(func(g Gomega) {
			byPhase, _ := phases(ctx, g, bDeliveries)
			g.Expect(byPhase[swapv1.DeliveryDelivered]).To(Equal(5))
		}).WithTimeout(timeout).Should(Succeed())
		Eventually(func() float64 { return webhookDeferred(a, delivery.VerdictOpen) }).
			WithTimeout(timeout).Should(BeNumerically(">=", 4), "every other due delivery of A was put back")

		Expect(blackHole.count()).To(Equal(2), "two dials opened the circuit; none since")
		_, aAttempts := phases(ctx, Default, aDeliveries)
		Expect(aAttempts).To(Equal(int32(2)), "deliveries put back by the open circuit spent no attempt")
		Expect(webhookCircuit(b)).To(BeZero())

		// The endpoint recovers; a restarted manager starts with closed circuits and delivers
		// every event of A (the half-open probe is covered in internal/delivery's tests).
		stop()
		answering.Store(true)
		startDeliveryManager(nil)
		Eventually(func(g Gomega) {
			byPhase, _ := phases(ctx, g, aDeliveries)
			g.Expect(byPhase[swapv1.DeliveryDelivered]).To(Equal(6))
		}).WithTimeout(timeout).Should(Succeed())
		_, processed := blackHole.snapshot()
		Expect(processed).To(Equal(eventIDs(aDeliveries)))
	})

	It("reads the Partner and its Secret from the cache: an attempt makes no API reads", func(ctx SpecContext) {
		failOnce := map[string]bool{} // event id → failed already
		var mu sync.Mutex
		rc := newReceiver("", func(_ int, _ http.ResponseWriter, r *http.Request) int {
			mu.Lock()
			defer mu.Unlock()
			id := r.Header.Get(webhooks.HeaderID)
			if failed, ok := failOnce[id]; ok && !failed {
				failOnce[id] = true
				return http.StatusServiceUnavailable
			}
			return http.StatusNoContent
		})
		f := newPartnerFixture(ctx, rc.srv.URL, true, 2) // two signing secrets
		mu.Lock()
		for seq := int64(1); seq <= 2; seq++ { // the first two events fail once: retries count too
			failOnce[webhooks.EventID(f.order.Spec.OrderID, string(f.order.UID), seq)] = false
		}
		mu.Unlock()
		rc.setSecret(f.secrets[0])
		gets := &apiGets{counts: map[string]int{}}
		counted := rest.CopyConfig(cfg)
		counted.Wrap(gets.wrap)
		startDeliveryManagerOn(newTestManagerFor(counted), nil)

		ds := f.createDeliveries(ctx, 8)
		var attempts int32
		Eventually(func(g Gomega) {
			var byPhase map[swapv1.DeliveryPhase]int
			byPhase, attempts = phases(ctx, g, ds)
			g.Expect(byPhase[swapv1.DeliveryDelivered]).To(Equal(8))
		}).WithTimeout(timeout).Should(Succeed())
		Expect(attempts).To(Equal(int32(10)))
		By(fmt.Sprintf("API reads for %d attempts: %d Partner, %d Secret, %d WebhookDelivery GETs",
			attempts, gets.get("partners"), gets.get("secrets"), gets.get("webhookdeliveries")))
		Expect(gets.get("partners")).To(BeZero())
		Expect(gets.get("secrets")).To(BeZero())
		// A retry reads the delivery only when the cache had not yet seen the previous
		// attempt's status write; a first attempt never does.
		Expect(gets.get("webhookdeliveries")).To(BeNumerically("<=", 2))
	})
})

func partnerLabels(f *partnerFixture) map[string]string {
	return map[string]string{"namespace": f.ns, "partner": f.partner.Name}
}

func webhookInFlight(f *partnerFixture) float64 {
	return metricSum("swaprouter_webhook_attempts_in_flight", partnerLabels(f))
}

func webhookCircuit(f *partnerFixture) float64 {
	return metricSum("swaprouter_webhook_circuit_state", partnerLabels(f))
}

func webhookDeferred(f *partnerFixture, v delivery.Verdict) float64 {
	labels := partnerLabels(f)
	labels["reason"] = string(v)
	return metricSum("swaprouter_webhook_attempts_deferred_total", labels)
}
