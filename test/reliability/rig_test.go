package reliability

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver"
	"github.com/swaprouter/swaprouter/controllers"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/netguard"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/registry"
	"github.com/swaprouter/swaprouter/internal/providerset"
	"github.com/swaprouter/swaprouter/internal/routing"
	"github.com/swaprouter/swaprouter/internal/scheme"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// chaos is what one run of the manager suffers.
type chaos struct {
	// conflictRate is the chance that an optimistic write (update, or a patch carrying a
	// resourceVersion) is answered 409 Conflict without being applied.
	conflictRate float64
	// crashAt, when positive, kills the process at that operation (API write, provider call
	// or webhook POST, counted together from the start).
	crashAt int64
	// applyAtCrash: the fatal operation still takes effect (the API server stored the write,
	// the provider created the address, the receiver got the POST), only its answer is lost.
	applyAtCrash bool
}

var errCrashed = errors.New("process crashed (injected)")

// life is one process's fate: it counts the operations, answers conflicts, and at the crash
// point refuses everything from then on, as a dead process would.
type life struct {
	chaos
	cancel context.CancelFunc

	dead      atomic.Bool
	ops       atomic.Int64
	conflicts atomic.Int64
	writes    atomic.Int64
	crashedAt atomic.Pointer[string]

	mu  sync.Mutex
	rnd *rand.Rand
}

// step accounts for one operation of kind; crash says this is the fatal one.
func (l *life) step(kind string) (crash bool, err error) {
	if l.dead.Load() {
		return false, errCrashed
	}
	if n := l.ops.Add(1); l.crashAt > 0 && n == l.crashAt {
		l.crashedAt.Store(&kind)
		return true, nil
	}
	return false, nil
}

func (l *life) kill() {
	if l.dead.CompareAndSwap(false, true) {
		l.cancel()
	}
}

func (l *life) roll(p float64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return p > 0 && l.rnd.Float64() < p
}

// write runs one API write under the process's fate.
func (l *life) write(kind string, obj client.Object, optimistic bool, do func() error) error {
	crash, err := l.step(kind)
	if err != nil {
		return err
	}
	if crash && !l.applyAtCrash {
		l.kill()
		return errCrashed
	}
	if optimistic && l.roll(l.conflictRate) {
		l.conflicts.Add(1)
		return apierrors.NewConflict(schema.GroupResource{Group: swapv1.GroupVersion.Group, Resource: fmt.Sprintf("%T", obj)},
			obj.GetName(), errors.New("the object has been modified (injected)"))
	}
	err = do()
	l.writes.Add(1)
	if crash {
		l.kill()
		return errCrashed
	}
	return err
}

func hasResourceVersion(obj client.Object, p client.Patch) bool {
	data, err := p.Data(obj)
	return err == nil && bytes.Contains(data, []byte(`"resourceVersion"`))
}

func (l *life) funcs() interceptor.Funcs {
	name := func(verb string, obj client.Object) string { return fmt.Sprintf("api %s %T", verb, obj) }
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return l.write(name("create", obj), obj, false, func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return l.write(name("update", obj), obj, true, func() error { return c.Update(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			return l.write(name("patch", obj), obj, hasResourceVersion(obj, p), func() error { return c.Patch(ctx, obj, p, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return l.write(name("delete", obj), obj, false, func() error { return c.Delete(ctx, obj, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return l.write(name("update "+sub, obj), obj, true, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			return l.write(name("patch "+sub, obj), obj, hasResourceVersion(obj, p), func() error { return c.SubResource(sub).Patch(ctx, obj, p, opts...) })
		},
	}
}

// gatedTransport puts outbound HTTP (provider calls, webhook POSTs) under the process's fate.
type gatedTransport struct {
	l    *life
	kind string
	next http.RoundTripper
}

func (t gatedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	crash, err := t.l.step(t.kind + " " + r.Method + " " + r.URL.Path)
	if err != nil {
		return nil, err
	}
	if crash && !t.l.applyAtCrash {
		t.l.kill()
		return nil, errCrashed
	}
	resp, err := t.next.RoundTrip(r)
	if crash {
		if resp != nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		t.l.kill()
		return nil, errCrashed
	}
	return resp, err
}

// process is one running manager: controllers and frontend, under one life.
type process struct {
	life *life
	url  string
	done chan error

	stopOnce sync.Once
}

// stop kills the process (if the chaos has not already) and waits until the manager returned.
func (p *process) stop() {
	GinkgoHelper()
	p.stopOnce.Do(func() {
		p.life.kill()
		Eventually(p.done, 30*time.Second).Should(Receive())
	})
}

// rig is one namespace: the simulator, a webhook receiver, the RoutingProviders and a partner
// with a key and a webhook; processes come and go on top.
type rig struct {
	ns       string
	sim      *simulator.Simulator
	simURL   string
	receiver *receiver
	keyID    string
	secret   string
	// truth asks the providers directly, for comparison with what the orders say.
	truth map[swapv1.ProviderID]provider.Provider

	seed      uint64
	processes int
	current   atomic.Pointer[process]
}

const partnerName = "reliable"

func newRig(seed uint64, step time.Duration) *rig {
	GinkgoHelper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "reliability-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	g := &rig{ns: ns.Name, seed: seed, truth: map[swapv1.ProviderID]provider.Provider{}}

	g.sim = simulator.New(simulator.Options{
		StepDelay: step, RefundDelay: time.Second, DepositWindow: 10 * time.Minute, Seed: seed,
		Logger: slog.New(slog.NewTextHandler(GinkgoWriter, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	simSrv := httptest.NewServer(g.sim.Handler())
	DeferCleanup(simSrv.Close)
	g.simURL = simSrv.URL

	secret, err := webhooks.NewSecret()
	Expect(err).NotTo(HaveOccurred())
	g.receiver = newReceiver(secret)
	hookSrv := httptest.NewServer(g.receiver)
	DeferCleanup(hookSrv.Close)

	Expect(k8sClient.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "reliable-webhook", Namespace: g.ns},
		Data:       map[string][]byte{"secret": []byte(secret)},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: partnerName, Namespace: g.ns},
		Spec: swapv1.PartnerSpec{RequestsPerMinute: 100000, Webhook: &swapv1.PartnerWebhook{
			URL: hookSrv.URL + "/hooks", Enabled: true, SecretRef: swapv1.SecretKeyRef{Name: "reliable-webhook", Key: "secret"}}},
	})).To(Succeed())
	g.keyID, g.secret, err = auth.CreateKey(ctx, k8sClient, g.ns, partnerName)
	Expect(err).NotTo(HaveOccurred())

	for id, protocol := range map[swapv1.ProviderID]swapv1.ProviderProtocol{
		swapv1.ProviderRouteA: swapv1.ProtocolOneClick, swapv1.ProviderRouteB: swapv1.ProtocolChannel,
	} {
		endpoint := g.simURL + "/" + string(id)
		Expect(k8sClient.Create(ctx, &swapv1.RoutingProvider{
			ObjectMeta: metav1.ObjectMeta{Name: strings.ReplaceAll(strings.ToLower(string(id)), "_", "-"), Namespace: g.ns},
			Spec: swapv1.RoutingProviderSpec{
				ProviderID: id, Protocol: protocol, Endpoint: endpoint, Enabled: true, QuoteSigningKey: g.sim.QuotePublicKey(),
				Timeout: metav1.Duration{Duration: time.Second},
				PollInterval: swapv1.PollInterval{Min: metav1.Duration{Duration: 200 * time.Millisecond},
					Max: metav1.Duration{Duration: 300 * time.Millisecond}},
				AssetRefreshInterval: metav1.Duration{Duration: 10 * time.Minute},
			},
		})).To(Succeed())
		g.truth[id], err = registry.New(protocol, provider.Config{ID: id, Endpoint: endpoint, Timeout: 5 * time.Second,
			QuoteSigningKey: g.sim.QuotePublicKey()})
		Expect(err).NotTo(HaveOccurred())
	}
	DeferCleanup(func() {
		if p := g.current.Load(); p != nil {
			p.stop()
		}
	})
	return g
}

// fastPolicy retries webhook deliveries within seconds instead of hours.
func fastPolicy() delivery.Policy {
	p := delivery.DefaultPolicy()
	p.Schedule = []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, time.Second, time.Second, time.Second, time.Second, time.Second}
	p.Jitter = 0
	p.MaxRetryAfter = time.Second
	return p
}

// start runs a new process under ch and returns once its frontend serves, or once it died
// trying (a crash during startup is one of the points chaos may pick).
func (g *rig) start(ch chaos) *process {
	GinkgoHelper()
	g.processes++
	l := &life{chaos: ch, rnd: rand.New(rand.NewPCG(g.seed, uint64(g.processes)))}
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                  scheme.New(),
		Cache:                   cache.Options{DefaultNamespaces: map[string]cache.Config{g.ns: {}}},
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		Controller:              config.Controller{SkipNameValidation: ptr.To(true)},
		GracefulShutdownTimeout: ptr.To(10 * time.Second),
		NewClient: func(c *rest.Config, o client.Options) (client.Client, error) {
			base, err := client.NewWithWatch(c, o)
			if err != nil {
				return nil, err
			}
			return interceptor.NewClient(base, l.funcs()), nil
		},
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(index.Register(context.Background(), mgr.GetFieldIndexer())).To(Succeed())

	providers, cat := providerset.New(), catalog.New(nil)
	providerHTTP := &http.Client{Transport: gatedTransport{l: l, kind: "provider", next: http.DefaultTransport.(*http.Transport).Clone()}}
	Expect((&controllers.RoutingProviderReconciler{Providers: providers, Catalog: cat, HTTPClient: providerHTTP}).
		SetupWithManager(mgr)).To(Succeed())
	Expect((&controllers.SwapOrderReconciler{
		Providers: providers, ExpiryGrace: time.Minute, UnknownAfter: 3,
		RetryBase: 100 * time.Millisecond, RetryMax: time.Second, PollBackoffMax: time.Second, CallTimeout: 2 * time.Second,
		Metrics: prometheus.NewRegistry(),
	}).SetupWithManager(mgr)).To(Succeed())
	guard := netguard.Options{AllowLoopback: true}
	hooks := netguard.NewHTTPClient(guard)
	hooks.Transport = gatedTransport{l: l, kind: "webhook", next: hooks.Transport}
	Expect((&controllers.WebhookDeliveryReconciler{Guard: guard, HTTPClient: hooks, Policy: fastPolicy()}).
		SetupWithManager(mgr)).To(Succeed())
	srv, err := apiserver.New(apiserver.Options{
		Addr: "127.0.0.1:0", Namespace: g.ns,
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Informers: mgr.GetCache(),
		Catalog: cat, Router: &routing.Router{Providers: providers, Catalog: cat},
		Log:         ctrl.Log.WithName("apiserver"),
		WaitTimeout: 5 * time.Second, QuotaFlushInterval: time.Second, ShutdownTimeout: time.Second,
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(mgr.Add(srv)).To(Succeed())

	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	p := &process{life: l, done: make(chan error, 1)}
	go func() { p.done <- mgr.Start(ctx) }()
	g.current.Store(p)
	Eventually(func() bool {
		if l.dead.Load() {
			return true
		}
		if srv.Addr() == "" {
			return false
		}
		resp, err := http.Get("http://" + srv.Addr() + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			p.url = "http://" + srv.Addr()
			return true
		}
		return false
	}).Should(BeTrue())
	return p
}

// Assets of the scenarios: both providers route ETH -> USDC on Ethereum.
const (
	ethAsset  = "eip155:1/slip44:60"
	usdcAsset = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
	// amount is 0.1 ETH, inside both providers' limits.
	amount = "100000000000000000"
)

var apiClient = &http.Client{Timeout: 15 * time.Second}

// placeOrder is a partner creating an order with an Idempotency-Key, once. It returns the
// order id on 201, "" on anything else (an error, a 5xx while the system is down or slow):
// the caller retries with the same key.
func (g *rig) placeOrder(p *process, idemKey string, via swapv1.ProviderID) string {
	if p == nil || p.url == "" || p.life.dead.Load() {
		return ""
	}
	// A recipient per order: the providers' protocols carry no order id, so the simulator
	// counts addresses per recipient.
	recipient := fmt.Sprintf("0x%x", sha256.Sum256([]byte(idemKey)))[:42]
	api, err := swapclient.NewClientWithResponses(p.url, swapclient.WithHTTPClient(apiClient),
		swapclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Key-Id", g.keyID)
			r.Header.Set("Authorization", "Bearer "+g.secret)
			return nil
		}))
	if err != nil {
		return ""
	}
	resp, err := api.CreateOrderWithResponse(context.Background(), &swapclient.CreateOrderParams{IdempotencyKey: &idemKey},
		swapclient.OrderRequest{OriginAsset: ethAsset, DestinationAsset: usdcAsset, Amount: amount,
			Sender: "0x1111111111111111111111111111111111111111", Recipient: recipient, ProviderId: swapclient.ProviderId(via)})
	if err != nil {
		return ""
	}
	if resp.JSON201 == nil {
		GinkgoWriter.Printf("POST /v1/order (%s): %d %s\n", idemKey, resp.StatusCode(), resp.Body)
		return ""
	}
	return resp.JSON201.Id
}
