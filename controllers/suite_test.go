package controllers

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/testing/testclock"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// Shared by every suite in this package: one control plane, one direct client. Each Describe
// starts its own manager with only the reconcilers it tests, and stops it after.
var (
	testEnv   *envtest.Environment
	cfg       *rest.Config
	k8sClient client.Client
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	// Gomega's 1 s default is too tight for a shared 2-core machine; specs that need a
	// bound of their own set it with WithTimeout.
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(50 * time.Millisecond)
	RunSpecs(t, "Controllers Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	plane, err := testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	testEnv, cfg, k8sClient = plane.Env, plane.Config, plane.Client
})

var _ = AfterSuite(func() {
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})

// newTestManager returns a manager for one spec's reconcilers: no metrics or probe servers,
// and controller names may repeat across specs.
func newTestManager() ctrl.Manager { return newTestManagerFor(cfg) }

// newNamespacedTestManager is newTestManager caching only namespace: specs that count what
// the cache holds see only their own objects.
func newNamespacedTestManager(namespace string) ctrl.Manager {
	return newTestManagerWith(cfg, func(o *ctrl.Options) {
		o.Cache.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	})
}

// newTestManagerFor is newTestManager talking to the control plane through c (e.g. a config
// whose transport counts requests).
func newTestManagerFor(c *rest.Config) ctrl.Manager { return newTestManagerWith(c, nil) }

// newTestManagerWith is newTestManagerFor with its options adjusted by adjust (nil: none).
func newTestManagerWith(c *rest.Config, adjust func(*ctrl.Options)) ctrl.Manager {
	o := ctrl.Options{
		Scheme:                 scheme.New(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if adjust != nil {
		adjust(&o)
	}
	mgr, err := ctrl.NewManager(c, o)
	Expect(err).NotTo(HaveOccurred())
	return mgr
}

// runTestManager starts mgr and returns a stop that cancels it and waits for it to end. Stop
// is also registered as cleanup; calling it twice is harmless (specs stop a manager mid-way
// to play a crash).
func runTestManager(mgr ctrl.Manager) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
	stop = func() {
		cancel()
		Eventually(done).WithTimeout(30 * time.Second).Should(BeClosed())
	}
	DeferCleanup(stop)
	return stop
}

// Timers. A reconciler under test reads the time from a testclock.Clock its spec owns (its
// Now); the clock runs with the wall clock, so the timers compressed to milliseconds (polls,
// retry backoffs) keep running by themselves. A spec never waits for a timer the reconciler
// is told about (a deposit deadline, a watch bound, a TTL, a retention, a retry's due time):
// it moves the clock past it (Advance, AdvanceTo) and then wakes the objects waiting on it
// through the reconciler's Wake source (waker.wake), because a RequeueAfter already queued
// keeps its wall-clock delay. That is the one way specs here skip a timer. Periodic loops
// (the OrderTTLSweeper's tick) see the moved clock at their next tick without a wake.
//
// A negative check ("nothing happens") first proves that the reconciler looked after the
// move: passes.await wakes the object and returns once a pass that read the moved clock has
// ended. Only then is the absence asserted, so a slow reconciler fails the spec instead of
// passing it.

// timers are a reconciler's clock, its Wake and the count of its passes over each T.
type timers[T client.Object] struct {
	clock  *testclock.Clock
	wake   waker
	passes passes[T]
}

// newTimers are timers on clock (nil: a clock of their own).
func newTimers[T client.Object](clock *testclock.Clock) *timers[T] {
	if clock == nil {
		clock = &testclock.Clock{}
	}
	return &timers[T]{clock: clock}
}

// client is c counting the reconciler's passes.
func (t *timers[T]) client(c client.Client) client.WithWatch { return t.passes.wrap(noWatch{c}) }

// advanceTo moves the clock forward to at and wakes objs.
func (t *timers[T]) advanceTo(at time.Time, objs ...client.Object) {
	GinkgoHelper()
	t.clock.AdvanceTo(at)
	t.wake.wake(objs...)
}

// look moves the clock forward by d and returns once a pass over o that read the moved
// clock has ended (passes.await).
func (t *timers[T]) look(o client.Object, d time.Duration) {
	GinkgoHelper()
	t.clock.Advance(d)
	t.passes.await(&t.wake, o)
}

// waker is a spec's Wake source: wake queues a request for each object in every controller
// started with one of its sources (a spec may restart its manager) and not stopped since;
// woken while none runs (a manager still starting), the objects are queued at its start.
type waker struct {
	mu      sync.Mutex
	queues  []workqueue.TypedRateLimitingInterface[reconcile.Request]
	pending []reconcile.Request
}

// source is a Wake source for one controller.
func (w *waker) source() source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		w.mu.Lock()
		w.queues = append(w.queues, q)
		for _, r := range w.pending {
			q.Add(r)
		}
		w.pending = nil
		w.mu.Unlock()
		go func() {
			<-ctx.Done()
			w.mu.Lock()
			defer w.mu.Unlock()
			w.queues = slices.DeleteFunc(w.queues, func(r workqueue.TypedRateLimitingInterface[reconcile.Request]) bool { return r == q })
		}()
		return nil
	})
}

// wake reconciles objs now.
func (w *waker) wake(objs ...client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range objs {
		r := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)}
		if len(w.queues) == 0 {
			w.pending = append(w.pending, r)
		}
		for _, q := range w.queues {
			q.Add(r)
		}
	}
}

// passes counts the passes of a reconciler over each object of kind T, through its client:
// every pass begins by reading its object, once.
type passes[T client.Object] struct {
	mu sync.Mutex
	n  map[types.NamespacedName]int
}

// wrap is c counting the reads of T objects.
func (p *passes[T]) wrap(c client.WithWatch) client.WithWatch {
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(T); ok {
				p.mu.Lock()
				if p.n == nil {
					p.n = map[types.NamespacedName]int{}
				}
				p.n[key]++
				p.mu.Unlock()
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
}

func (p *passes[T]) of(key types.NamespacedName) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n[key]
}

// await wakes o and returns once a pass over it that began now has ended: passes over one
// object never overlap, so it wakes o again and waits for the next pass to begin. A clock
// moved before await is the one that pass read.
func (p *passes[T]) await(w *waker, o client.Object) {
	GinkgoHelper()
	key := client.ObjectKeyFromObject(o)
	n := p.of(key)
	w.wake(o)
	Eventually(p.of).WithArguments(key).Should(BeNumerically(">", n), "a pass over %s began", key)
	w.wake(o)
	Eventually(p.of).WithArguments(key).Should(BeNumerically(">", n+1), "the pass over %s ended", key)
}
