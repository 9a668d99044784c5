package controllers

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/swaprouter/swaprouter/internal/scheme"
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
