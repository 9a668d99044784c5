// Package reliability injects faults into a whole running system — the real order and
// delivery reconcilers, the frontend, the provider simulator over HTTP and a webhook receiver
// on 127.0.0.1, against a real kube-apiserver (envtest) — and proves that orders converge to
// the provider's truth, that each order has exactly one deposit address, that no transition
// and no webhook event is lost, and that duplicates stay within at-least-once.
//
// `go test` runs a bounded form. RELIABILITY_LONG=1 runs more orders, more crashes and longer
// fault windows (hack/reliability.sh, `make reliability`). RELIABILITY_REPORT=<file> writes the
// figures of every scenario: Markdown when the file ends in .md, JSON otherwise.
package reliability

import (
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

var (
	testEnv   *envtest.Environment
	cfg       *rest.Config
	k8sClient client.Client
	// long is the `make reliability` form.
	long = os.Getenv("RELIABILITY_LONG") != ""
)

// scale picks the bounded or the long figure.
func scale(bounded, longer int) int {
	if long {
		return longer
	}
	return bounded
}

func TestReliability(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reliability suite")
}

var _ = BeforeSuite(func() {
	SetDefaultEventuallyTimeout(30 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	plane, err := testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(plane.Env.Stop)
	testEnv, cfg, k8sClient = plane.Env, plane.Config, plane.Client
})

var _ = AfterSuite(func() {
	if path := os.Getenv("RELIABILITY_REPORT"); path != "" {
		Expect(writeReport(path)).To(Succeed())
	}
})
