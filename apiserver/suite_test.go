package apiserver

import (
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

// The envtest suite: a real kube-apiserver and etcd with the CRDs, real managers running the
// frontend over real HTTP. Each Describe makes its own namespace and managers.
var (
	testEnv   *envtest.Environment
	cfg       *rest.Config
	k8sClient client.Client
)

func TestEnvtest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "apiserver envtest suite")
}

var _ = BeforeSuite(func() {
	// Two cores shared with other work: starting a manager's caches can take seconds.
	SetDefaultEventuallyTimeout(15 * time.Second)
	SetDefaultEventuallyPollingInterval(50 * time.Millisecond)
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
