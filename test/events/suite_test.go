// Package events runs GET /v1/events against the whole system `make run` starts (control
// plane, PostgreSQL, simulator, manager with every controller and the /v1 frontend) plus a
// second frontend replica with its own cache: clients that drop the connection and resume
// at random points and at either replica, after orders were archived and left etcd, other
// partners' streams, and the per-tier stream cap.
package events

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/system"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

func TestEvents(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(90 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "order event stream")
}

// orderTTL is how long an archived order stays in etcd here (an hour by default).
const orderTTL = 2 * time.Second

var (
	env *devenv.Env
	// replicaURL is the second frontend replica: its own manager and cache, no controllers.
	replicaURL string
	partner    *partnerapi.Client
)

var _ = BeforeSuite(func(ctx context.Context) {
	// Both replicas seal stream positions and tokens with the same keys, as a deployment's do.
	keyset, err := tokenkeys.Create()
	Expect(err).NotTo(HaveOccurred())
	keys := filepath.Join(GinkgoT().TempDir(), "keys.json")
	Expect(os.WriteFile(keys, keyset, 0o600)).To(Succeed())

	opts := devenv.EphemeralManager("events")
	opts.OrderTTL = orderTTL
	opts.QuoteKeysFile = keys
	opts.EventsHeartbeat = 200 * time.Millisecond
	// Resumes are exact while a transition reaches every replica within the visibility lag.
	// The suite shares a loaded CI machine with other suites, where a watch can stall for
	// seconds: it states a lag no stall reaches, since exactness, not the lag, is under test.
	opts.EventsVisibilityLag = time.Minute
	env, err = devenv.Start(ctx, devenv.EnvOptions{
		Manager:       opts,
		SimulatorAddr: "127.0.0.1:0",
		Simulator:     simulator.Options{StepDelay: 300 * time.Millisecond, RefundDelay: time.Second},
		PollMin:       time.Second, PollMax: 1500 * time.Millisecond,
		Partner: "acme",
		Out:     GinkgoWriter,
		// Stream caps are shared through Redis, as the per-minute limits are.
		Redis: true,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	partner = partnerapi.New(env.FrontendURL, env.KeyID, env.Secret)

	second := opts
	second.Controllers, second.ArchiveDSN, second.RedisURL = false, env.ArchiveDSN, env.Redis.URL()
	sys, err := system.New(env.Plane.Config, second)
	Expect(err).NotTo(HaveOccurred())
	mgrCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sys.Manager.Start(mgrCtx) }()
	DeferCleanup(func() { stop(); <-done })
	Eventually(sys.Frontend.Addr).ShouldNot(BeEmpty())
	replicaURL = "http://" + sys.Frontend.Addr()
	Eventually(func() int {
		resp, err := http.Get(replicaURL + "/readyz")
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}).Should(Equal(http.StatusOK), "the second replica is ready")
	fmt.Fprintf(GinkgoWriter, "frontend replicas: %s and %s\n", env.FrontendURL, replicaURL)
}, NodeTimeout(5*time.Minute))
