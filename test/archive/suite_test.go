// Package archive runs the order archive's whole journeys over real HTTP against the system
// `make run` starts (control plane, PostgreSQL, simulator, manager with every controller and
// the /v1 frontend), with a TTL of seconds: orders that end are archived, leave etcd, and
// partners still read and list them; PostgreSQL is stopped and restarted mid-run.
package archive

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

func TestArchiveJourneys(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(60 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "order archive journeys")
}

// orderTTL is how long an archived order stays in etcd here (an hour by default).
const orderTTL = 2 * time.Second

var (
	env     *devenv.Env
	partner *partnerapi.Client
)

var _ = BeforeSuite(func(ctx context.Context) {
	opts := devenv.EphemeralManager("archive")
	opts.OrderTTL = orderTTL

	var err error
	env, err = devenv.Start(ctx, devenv.EnvOptions{
		Manager:       opts,
		SimulatorAddr: "127.0.0.1:0",
		Simulator: simulator.Options{
			StepDelay:   300 * time.Millisecond,
			RefundDelay: time.Second,
			// Orders left without a deposit stay live for the whole run.
			DepositWindow: time.Hour,
		},
		PollMin: time.Second, PollMax: 1500 * time.Millisecond,
		Partner: "acme",
		// The specs poll through this key: a limit of 300 a minute is reached on a fast run.
		PartnerRequestsPerMinute: 100000,
		Out:                      GinkgoWriter,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	partner = partnerapi.New(env.FrontendURL, env.KeyID, env.Secret)
}, NodeTimeout(5*time.Minute))
