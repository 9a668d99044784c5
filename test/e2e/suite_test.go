// Package e2e runs whole journeys over real HTTP against the running system: a real
// kube-apiserver and etcd, the manager with every controller and the /v1 frontend, the
// provider simulator on 127.0.0.1, and a partner's webhook receiver on 127.0.0.1.
package e2e

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

func TestWholeJourneys(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(30 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "whole-system journeys")
}

var (
	env      *devenv.Env
	receiver *devenv.Receiver
	partner  *partnerapi.Client
	// metrics is the registry the system's own metrics are registered with.
	metrics *prometheus.Registry
)

// Test speeds: the simulator settles in a couple of seconds and providers are polled every
// second, so a journey takes seconds; the logic is the production one.
const (
	pollMin = 1 * time.Second
	pollMax = 1500 * time.Millisecond
)

var _ = BeforeSuite(func(ctx context.Context) {
	receiver = &devenv.Receiver{}
	hook := httptest.NewServer(receiver)
	DeferCleanup(hook.Close)

	opts := devenv.EphemeralManager("e2e")
	metrics = prometheus.NewRegistry()
	opts.Metrics = metrics
	opts.AllowLoopbackWebhooks = true
	opts.QuotaFlushInterval = 500 * time.Millisecond
	opts.WebhookSchedule = []time.Duration{0, 200 * time.Millisecond, 500 * time.Millisecond, time.Second}

	var err error
	env, err = devenv.Start(ctx, devenv.EnvOptions{
		Manager:       opts,
		SimulatorAddr: "127.0.0.1:0",
		Simulator: simulator.Options{
			StepDelay:     300 * time.Millisecond,
			RefundDelay:   time.Second,
			DepositWindow: time.Minute,
			RouteAToken:   "e2e-route-a-token",
			RelayAPIKey:   "e2e-relay-api-key",
			// An account no RoutingProvider names at the start: a spec declares it live.
			Instances: []simulator.Instance{secondOneClick},
		},
		PollMin: pollMin, PollMax: pollMax,
		Partner: "acme",
		// The specs poll through this key: a limit of 300 a minute is reached on a fast run.
		PartnerRequestsPerMinute: 100000,
		WebhookURL:               hook.URL + "/hooks",
		Out:                      GinkgoWriter,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	receiver.SetSecret(env.WebhookSecret)
	partner = partnerapi.New(env.FrontendURL, env.KeyID, env.Secret)
}, NodeTimeout(5*time.Minute))
