package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// frontend is one running manager with the /v1 server in it.
type frontend struct {
	srv  *Server
	url  string
	stop func()
}

type frontendOptions struct {
	// reconciler, when set, runs in the same manager as the SwapOrder controller.
	reconciler reconcile.Reconciler
	// tune, when set, changes the server's options.
	tune func(*Options)
}

func startFrontend(ns string, o frontendOptions) *frontend {
	GinkgoHelper()
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 scheme.New(),
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(index.Register(context.Background(), mgr.GetFieldIndexer())).To(Succeed())
	opts := Options{
		Addr:        "127.0.0.1:0",
		Namespace:   ns,
		Client:      mgr.GetClient(),
		APIReader:   mgr.GetAPIReader(),
		Informers:   mgr.GetCache(),
		Catalog:     newFakeCatalog(),
		Router:      newFakeRouter(),
		Log:         ctrl.Log.WithName(ns),
		WaitTimeout: 20 * time.Second,
	}
	if o.tune != nil {
		o.tune(&opts)
	}
	srv, err := New(opts)
	Expect(err).NotTo(HaveOccurred())
	Expect(mgr.Add(srv)).To(Succeed())
	if o.reconciler != nil {
		Expect(ctrl.NewControllerManagedBy(mgr).Named("test-swaporder-" + ns).For(&swapv1.SwapOrder{}).
			Complete(o.reconciler)).To(Succeed())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
	var once sync.Once
	f := &frontend{srv: srv, stop: func() { once.Do(func() { cancel(); <-done }) }}
	DeferCleanup(f.stop) // also when a spec fails before stopping it
	Eventually(func(g Gomega) {
		g.Expect(srv.Addr()).NotTo(BeEmpty())
		resp, err := http.Get("http://" + srv.Addr() + "/readyz")
		g.Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}).Should(Succeed())
	f.url = "http://" + srv.Addr()
	return f
}

func newNamespace() string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "apiserver-"}}
	Expect(k8sClient.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}

// newPartner creates a Partner and one key for it through auth.CreateKey.
func newPartner(ns, name string, spec swapv1.PartnerSpec) (keyID, secret string) {
	GinkgoHelper()
	p := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec}
	Expect(k8sClient.Create(context.Background(), p)).To(Succeed())
	keyID, secret, err := auth.CreateKey(context.Background(), k8sClient, ns, name)
	Expect(err).NotTo(HaveOccurred())
	return keyID, secret
}

type response struct {
	status int
	header http.Header
	body   map[string]any
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

func call(url, method, path, keyID, secret string, body any, headers ...string) response {
	GinkgoHelper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		Expect(err).NotTo(HaveOccurred())
		rd = bytes.NewReader(raw)
	}
	r, err := http.NewRequest(method, url+path, rd)
	Expect(err).NotTo(HaveOccurred())
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("X-Key-Id", keyID)
	r.Header.Set("Authorization", "Bearer "+secret)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	resp, err := httpClient.Do(r)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	Expect(json.NewDecoder(resp.Body).Decode(&out.body)).To(Succeed())
	return out
}

var _ = Describe("authentication from real Partner and Secret objects", func() {
	It("accepts live keys only, and follows rotation, revocation and expiry", func() {
		ns := newNamespace()
		fe := startFrontend(ns, frontendOptions{})
		key1, secret1 := newPartner(ns, "acme", swapv1.PartnerSpec{})
		get := func(keyID, secret string) int {
			return call(fe.url, "GET", "/v1/assets", keyID, secret, nil).status
		}

		By("a new key works once the cache has it; the frontend's Secret holds only its hash")
		Eventually(get).WithArguments(key1, secret1).Should(Equal(http.StatusOK))
		var s corev1.Secret
		Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: auth.FrontendSecret}, &s)).To(Succeed())
		Expect(s.Data).To(Equal(map[string][]byte{key1: []byte(auth.HashSecret(secret1))}))

		By("wrong secrets and unknown keys get the same 401")
		wrong := call(fe.url, "GET", "/v1/assets", key1, secret1+"x", nil)
		unknown := call(fe.url, "GET", "/v1/assets", "key_doesnotexist", secret1, nil)
		Expect(wrong.status).To(Equal(http.StatusUnauthorized))
		Expect(wrong.body).To(Equal(unknown.body))
		Expect(wrong.body["error"]).To(Equal(string(apierror.Unauthorized)))

		By("two live keys; a third create is refused and retires nothing")
		key2, secret2 := mustCreateKey(ns, "acme")
		Eventually(get).WithArguments(key2, secret2).Should(Equal(http.StatusOK))
		_, _, err := auth.CreateKey(context.Background(), k8sClient, ns, "acme")
		Expect(err).To(MatchError(ContainSubstring("keys rotate")))
		Expect(get(key1, secret1)).To(Equal(http.StatusOK))
		Expect(get(key2, secret2)).To(Equal(http.StatusOK))

		By("rotation: the replaced key works beside its successor during the grace period")
		rotated, err := auth.RotateKey(context.Background(), k8sClient, ns, "acme", key1, time.Hour)
		Expect(err).NotTo(HaveOccurred())
		Eventually(get).WithArguments(rotated.ID, rotated.Secret).Should(Equal(http.StatusOK))
		Expect(get(key1, secret1)).To(Equal(http.StatusOK))
		Expect(get(key2, secret2)).To(Equal(http.StatusOK))

		By("revocation ends a key on every replica, the others keep working")
		second := startFrontend(ns, frontendOptions{})
		Eventually(func() int { return call(second.url, "GET", "/v1/assets", key1, secret1, nil).status }).Should(Equal(http.StatusOK))
		_, err = auth.RevokeKey(context.Background(), k8sClient, ns, "", key1)
		Expect(err).NotTo(HaveOccurred())
		for _, replica := range []*frontend{fe, second} {
			Eventually(func() int { return call(replica.url, "GET", "/v1/assets", key1, secret1, nil).status }).
				Should(Equal(http.StatusUnauthorized))
			Expect(call(replica.url, "GET", "/v1/assets", rotated.ID, rotated.Secret, nil).status).To(Equal(http.StatusOK))
		}
		key3, secret3 := rotated.ID, rotated.Secret

		By("the frontend records when each key was last used")
		Eventually(func(g Gomega) map[string]metav1.Time {
			var p swapv1.Partner
			g.Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "acme"}, &p)).To(Succeed())
			return p.Status.KeysLastUsed
		}).Should(And(HaveKey(key2), HaveKey(key3)))

		By("an expired key stops working")
		var p swapv1.Partner
		Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "acme"}, &p)).To(Succeed())
		for i := range p.Spec.Keys {
			if p.Spec.Keys[i].ID == key2 {
				p.Spec.Keys[i].ExpiresAt = &metav1.Time{Time: time.Now().Add(-time.Minute)}
			}
		}
		Expect(k8sClient.Update(context.Background(), &p)).To(Succeed())
		Eventually(get).WithArguments(key2, secret2).Should(Equal(http.StatusUnauthorized))
		Expect(get(key3, secret3)).To(Equal(http.StatusOK))

		By("the rate-limit headers come from the Partner")
		Expect(call(fe.url, "GET", "/v1/assets", key3, secret3, nil).header.Get("X-RateLimit-Limit")).To(Equal("300"))
	})
})

func mustCreateKey(ns, partner string) (string, string) {
	GinkgoHelper()
	id, secret, err := auth.CreateKey(context.Background(), k8sClient, ns, partner)
	Expect(err).NotTo(HaveOccurred())
	return id, secret
}

var _ = Describe("the monthly quote quota", func() {
	It("survives a frontend restart", func() {
		ns := newNamespace()
		keyID, secret := newPartner(ns, "metered", swapv1.PartnerSpec{MonthlyQuoteQuota: 3})
		quote := func(fe *frontend) response {
			return call(fe.url, "POST", "/v1/quote", keyID, secret, quoteBody(true))
		}

		first := startFrontend(ns, frontendOptions{})
		Eventually(func() int { return quote(first).status }).Should(Equal(http.StatusOK))
		Expect(quote(first).status).To(Equal(http.StatusOK))
		first.stop() // the graceful stop writes what the flush interval has not yet written

		month := time.Now().UTC().Format("2006-01")
		var p swapv1.Partner
		Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "metered"}, &p)).To(Succeed())
		Expect(p.Status.QuotaUsage).To(Equal(&swapv1.QuotaUsage{Month: month, Quotes: 2, Claimed: 2}))

		second := startFrontend(ns, frontendOptions{})
		Expect(quote(second).status).To(Equal(http.StatusOK))
		over := quote(second)
		Expect(over.status).To(Equal(http.StatusTooManyRequests))
		Expect(over.body["error"]).To(Equal(string(apierror.QuotaExceeded)))
		Expect(over.header.Get("Retry-After")).NotTo(BeEmpty())
	})
})

// addressIssuer plays the SwapOrder reconciler (until the real one and the simulator run in
// this suite): it issues one deposit address per order and counts how often it did per order.
type addressIssuer struct {
	client client.Client
	mu     sync.Mutex
	issued map[string]int
}

func (a *addressIssuer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var o swapv1.SwapOrder
	if err := a.client.Get(ctx, req.NamespacedName, &o); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if o.Status.DepositAddress != "" {
		return reconcile.Result{}, nil
	}
	o.Status.Status = swapv1.OrderPending
	o.Status.DepositAddress = "0xdeposit-" + o.Spec.OrderID
	o.Status.LastSeq = 1
	o.Status.History = []swapv1.StatusTransition{{Seq: 1, Status: swapv1.OrderPending, Reason: "DepositAddressIssued", At: swapv1.NewPreciseTime(time.Now())}}
	if err := a.client.Status().Update(ctx, &o); err != nil {
		return reconcile.Result{}, err // a conflict means a stale read: nothing was issued
	}
	a.mu.Lock()
	a.issued[o.Spec.OrderID]++
	a.mu.Unlock()
	return reconcile.Result{}, nil
}

var _ = Describe("idempotent order creation", func() {
	It("turns 50 concurrent identical requests into one order with one deposit address", func() {
		ns := newNamespace()
		keyID, secret := newPartner(ns, "busy", swapv1.PartnerSpec{RequestsPerMinute: 1000})
		issuer := &addressIssuer{client: k8sClient, issued: map[string]int{}}
		fe := startFrontend(ns, frontendOptions{reconciler: issuer})
		Eventually(func() int { return call(fe.url, "GET", "/v1/assets", keyID, secret, nil).status }).Should(Equal(http.StatusOK))

		const n = 50
		results := make([]response, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				defer GinkgoRecover()
				results[i] = call(fe.url, "POST", "/v1/order", keyID, secret, orderBody(), "Idempotency-Key", "checkout-42")
			})
		}
		wg.Wait()

		id := results[0].body["id"]
		for i, r := range results {
			Expect(r.status).To(Equal(http.StatusCreated), fmt.Sprintf("request %d: %v", i, r.body))
			Expect(r.body["id"]).To(Equal(id))
			Expect(r.body["depositAddress"]).To(Equal("0xdeposit-" + id.(string)))
		}
		var orders swapv1.SwapOrderList
		Expect(k8sClient.List(context.Background(), &orders, client.InNamespace(ns))).To(Succeed())
		Expect(orders.Items).To(HaveLen(1))
		issuer.mu.Lock()
		Expect(issuer.issued).To(Equal(map[string]int{id.(string): 1}))
		issuer.mu.Unlock()

		By("the same key with another body is refused; GET reads the order back")
		reused := call(fe.url, "POST", "/v1/order", keyID, secret, with(orderBody(), "amount", "7"), "Idempotency-Key", "checkout-42")
		Expect(reused.status).To(Equal(http.StatusUnprocessableEntity))
		got := call(fe.url, "GET", "/v1/order/"+id.(string), keyID, secret, nil)
		Expect(got.status).To(Equal(http.StatusOK))
		Expect(got.body["depositAddress"]).To(Equal("0xdeposit-" + id.(string)))
	})
})
