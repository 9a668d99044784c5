// Package bench measures swaprouter against its physical limits (issue 8): it starts the whole
// system in-process (envtest control plane, provider simulator, manager with controllers and
// frontend) and measures its scenarios, each figure a ratio of two things measured in the
// same run, with medians over repeated rounds. Run it with cmd/swaprouter-bench.
package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/registry"
	"github.com/swaprouter/swaprouter/internal/system"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
)

// Config sets what a run does and where it writes.
type Config struct {
	// Short runs a few seconds per scenario with small sizes: a smoke test of the harness.
	Short bool
	// Scenarios to run (1–ScenarioCount); all when empty.
	Scenarios []int
	// Rounds per scenario; 5 (full) or 2 (short) when zero.
	Rounds int
	// Orders is how many orders scenario 4 creates and measures; 10,000 (full) or 300 (short)
	// when zero.
	Orders int
	// Out receives progress lines.
	Out io.Writer
	// DocPath, JSONPath and ChartPath are the outputs; ProfileDir keeps CPU profiles. Empty
	// paths are not written.
	DocPath, JSONPath, ChartPath, ProfileDir string
	// AnalysisPath is hand-written analysis included verbatim in the document, when present.
	AnalysisPath string
}

func (c *Config) defaults() {
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.Rounds <= 0 {
		c.Rounds = 5
		if c.Short {
			c.Rounds = 2
		}
	}
	if c.Orders <= 0 {
		c.Orders = 10000
		if c.Short {
			c.Orders = 300
		}
	}
	if len(c.Scenarios) == 0 {
		for n := 1; n <= ScenarioCount; n++ {
			c.Scenarios = append(c.Scenarios, n)
		}
	}
}

// budget bounds a wait of the full run, which must fit its planned duration. A short run
// (the smoke test in `make test`) has no budget: its waits end when their condition holds or
// the caller's context ends, so what it produces never depends on the machine's speed.
func (c *Config) budget(full time.Duration) time.Duration {
	if c.Short {
		return unbounded
	}
	return full
}

// unbounded is a wait bounded only by the context.
const unbounded = time.Duration(1<<63 - 1)

// sized picks the full or the short value.
func (c *Config) sized(full, short time.Duration) time.Duration {
	if c.Short {
		return short
	}
	return full
}

func (c *Config) count(full, short int) int {
	if c.Short {
		return short
	}
	return full
}

// ScenarioCount is the number of scenarios; they are numbered from 1.
const ScenarioCount = 14

// Namespaces: the manager's, and one it does not watch for the raw control-plane baselines.
const (
	benchNamespace = "swaprouter-bench"
	rawNamespace   = "bench-raw"
	routeAToken    = "bench-route-a-token"
	// benchPartner is the partner every scenario's requests authenticate as.
	benchPartner = "bench"
	benchRPM     = 100000 // the API's maximum: the limiter must not shape the load
)

// harness is one running system and what the scenarios share.
type harness struct {
	cfg    Config
	env    *devenv.Env
	api    *APIClient
	recv   *Receiver
	direct map[swapv1.ProviderID]provider.Provider
	// directClient is the direct baselines' HTTP client.
	directClient *http.Client
	// relay is the RoutingProvider of the third quote provider (scenario 1 disables it for
	// its two-provider figure).
	relay   client.ObjectKey
	pollMin time.Duration
	pollMax time.Duration
	hookSrv *http.Server
	assets  []string // CAIP-19 ids the frontend lists
	// orderTTL is how long archived orders stay in etcd (scenario 8's TTL window).
	orderTTL time.Duration
	// metrics gathers this process's metrics: controller-runtime's registry and the system's.
	metrics prometheus.Gatherer
	// scenario 5's measurement at 100 orders, kept for the one at N
	smallP99   []float64
	smallCount int
	smallLoad  readLoad
}

// pollMean is the mean provider poll interval (uniform jitter between min and max).
func (h *harness) pollMean() time.Duration { return (h.pollMin + h.pollMax) / 2 }

func (h *harness) logf(format string, args ...any) {
	fmt.Fprintf(h.cfg.Out, "[%s] "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// Run starts the system, runs the scenarios and writes the outputs.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	rep := &Report{Started: time.Now(), Short: cfg.Short, Commit: Commit(), Machine: DescribeMachine()}
	h := &harness{cfg: cfg, pollMin: cfg.sized(10*time.Second, time.Second), pollMax: cfg.sized(15*time.Second, 1500*time.Millisecond)}
	h.logf("machine: %s; commit %s", rep.Machine, rep.Commit)
	if err := h.start(ctx); err != nil {
		return nil, err
	}
	defer h.stop()

	// The order matters: quote scenarios before any order exists; scenario 5 measures at 100
	// orders before scenarios 3 and 7 add theirs, and at N after scenario 4 filled the store.
	byNumber := map[int]*Scenario{}
	run := func(n int, fn func(context.Context, *Scenario) error, title string) {
		if !slices.Contains(cfg.Scenarios, n) || ctx.Err() != nil {
			return
		}
		s := byNumber[n]
		if s == nil {
			s = &Scenario{Number: n, Title: title}
			byNumber[n] = s
		}
		h.logf("scenario %d: %s", n, title)
		start := time.Now()
		if err := fn(ctx, s); err != nil {
			s.Err = err.Error()
			h.logf("scenario %d failed: %v", n, err)
		}
		s.Duration += time.Since(start)
		for _, f := range s.Figures[len(s.Figures)-countNew(s):] {
			h.logf("  %s = %s%s", f.Name, num(f.Value), targetNote(f))
		}
	}
	run(1, h.quoteLatency, "dry quotes against 50 ms providers, concurrency 1/16/64")
	run(2, h.quoteThroughput, "dry quotes against providers without latency, concurrency 64")
	run(6, h.rates, "rates with 50 targets against 50 ms providers")
	run(5, h.orderReadSmall, "GET /v1/order at 100 and at N stored orders; 401 timing")
	run(5, h.unauthorizedTiming, "")
	run(3, h.orderCreation, "order creation, concurrency 16")
	run(7, h.webhooks, "status change to verified webhook")
	run(9, h.webhookIsolation, "status change to verified webhook while another partner's endpoint hangs")
	run(10, h.providerIsolation, "one provider's orders polled and quoted while every call to the other hangs")
	run(13, h.eventStream, fmt.Sprintf("status change to event on GET /v1/events; %d streams open on one replica", cfg.count(maxBenchStreams, 50)))
	run(4, h.idlePolling, fmt.Sprintf("N active orders idle-polling (%d attempted)", cfg.Orders))
	run(5, h.orderReadLarge, "")
	run(12, h.swapPage, "the swap page's first visit in a browser: first contentful paint and transfer size")
	run(8, h.orderArchive, fmt.Sprintf("order archive: %d archived orders (COPY) next to %d live", cfg.count(1_000_000, 2_000), cfg.count(1_000, 100)))
	run(11, h.appAbuse, "one abusive swap-app client against the app key's budget")
	run(14, h.screeningCost, "POST /v1/order with a 10,000-address sanctions list against a four-address one")
	for n := 1; n <= ScenarioCount; n++ {
		if s := byNumber[n]; s != nil {
			rep.Scenarios = append(rep.Scenarios, s)
		}
	}
	rep.Duration = time.Since(rep.Started)
	if err := rep.write(cfg); err != nil {
		return rep, err
	}
	h.logf("done in %s", rep.Duration.Round(time.Second))
	return rep, ctx.Err()
}

// countNew is how many figures the last step added; run prints them. Figures are appended
// by each step, so the number printed is tracked per scenario.
func countNew(s *Scenario) int {
	n := len(s.Figures) - s.printed
	s.printed = len(s.Figures)
	return n
}

func targetNote(f Figure) string {
	if f.Info {
		if f.Unit != "" {
			return " " + f.Unit
		}
		return ""
	}
	verdict := "short"
	if f.Pass() {
		verdict = "pass"
	}
	return fmt.Sprintf(" (target %s: %s)", f.Target, verdict)
}

func (h *harness) start(ctx context.Context) error {
	h.recv = NewReceiver("")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	h.hookSrv = &http.Server{Handler: h.recv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = h.hookSrv.Serve(ln) }()

	opts := devenv.EphemeralManager(benchNamespace)
	opts.AllowLoopbackWebhooks = true
	own := prometheus.NewRegistry()
	opts.Metrics = own
	h.metrics = prometheus.Gatherers{metrics.Registry, own}
	h.orderTTL = opts.OrderTTL
	if opts.TiersFile, err = writeStreamTiers(); err != nil {
		return err
	}
	defer os.Remove(opts.TiersFile) // loaded when the manager starts

	h.logf("starting control plane, simulator and manager (poll interval %s–%s)", h.pollMin, h.pollMax)
	env, err := devenv.Start(ctx, devenv.EnvOptions{
		Manager:       opts,
		SimulatorAddr: "127.0.0.1:0",
		Simulator: simulator.Options{
			StepDelay:   h.cfg.sized(2*time.Second, 300*time.Millisecond),
			RouteAToken: routeAToken,
			Logger:      slog.New(slog.DiscardHandler),
		},
		PollMin: h.pollMin, PollMax: h.pollMax,
		Partner:    benchPartner,
		WebhookURL: "http://" + ln.Addr().String() + "/hooks",
		Out:        h.cfg.Out,
	})
	if err != nil {
		h.hookSrv.Close()
		return err
	}
	h.env = env
	h.recv.secret = env.WebhookSecret
	if h.api, err = NewAPIClient(env.FrontendURL, env.KeyID, env.Secret, NewHTTPClient(60*time.Second)); err != nil {
		return err
	}
	h.logf("system up: frontend %s, simulator %s", env.FrontendURL, env.SimulatorURL)

	if err := h.raiseLimit(ctx); err != nil {
		return err
	}
	if err := h.env.Client.Create(ctx, namespaceObject(rawNamespace)); client.IgnoreAlreadyExists(err) != nil {
		return err
	}
	// The direct baselines use the adapters the system uses, through the same registry and
	// with a client like the system's (the default transport would dial a connection for
	// most calls at concurrency 64).
	h.direct = map[swapv1.ProviderID]provider.Provider{}
	h.directClient = system.ProviderHTTPClient()
	for id, proto := range protocols {
		token := ""
		if id == swapv1.ProviderRouteA {
			token = routeAToken
		}
		p, err := registry.New(proto, provider.Config{ID: id, Endpoint: env.SimulatorURL + "/" + string(id), Token: token, Timeout: 5 * time.Second,
			QuoteSigningKey: env.Simulator.QuotePublicKey(), HTTPClient: h.directClient})
		if err != nil {
			return err
		}
		h.direct[id] = p
	}
	if err := h.ensureRelay(ctx); err != nil {
		return err
	}
	var assets struct {
		Assets []swapclient.Asset `json:"assets"`
	}
	resp, err := h.api.ListAssets(ctx, nil)
	if err := expect(resp, err, http.StatusOK, &assets); err != nil {
		return fmt.Errorf("listing assets: %w", err)
	}
	for _, a := range assets.Assets {
		h.assets = append(h.assets, a.AssetId)
	}
	return nil
}

// raiseLimit lifts the bench partner's per-minute limit to the API's maximum and waits until
// the frontend applies it.
func (h *harness) raiseLimit(ctx context.Context) error {
	p := &swapv1.Partner{}
	key := client.ObjectKey{Namespace: benchNamespace, Name: h.env.Partner}
	if err := h.env.Client.Get(ctx, key, p); err != nil {
		return err
	}
	base := p.DeepCopy()
	p.Spec.RequestsPerMinute = benchRPM
	p.Spec.MonthlyQuoteQuota = 0
	if err := h.env.Client.Patch(ctx, p, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("raising the bench partner's limit: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if limit, ok := h.api.rateLimit(ctx); ok && limit == benchRPM {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the frontend did not apply the raised rate limit within 30 s")
}

func (h *harness) stop() {
	h.logf("stopping the system")
	if h.env != nil {
		h.env.Stop()
	}
	if h.hookSrv != nil {
		h.hookSrv.Close()
	}
}

// profilePath is where a profile named name is saved: empty without a ProfileDir.
func (h *harness) profilePath(name string) string {
	if h.cfg.ProfileDir == "" {
		return ""
	}
	_ = os.MkdirAll(h.cfg.ProfileDir, 0o755)
	return filepath.Join(h.cfg.ProfileDir, name)
}

// profile starts a CPU profile for a scenario; the returned stop saves it and records the
// top functions on s.

func (h *harness) profile(s *Scenario, name string) func() Shares {
	p, err := StartProfile()
	if err != nil {
		s.Notes = append(s.Notes, "no CPU profile: "+err.Error())
		return func() Shares { return nil }
	}
	return func() Shares {
		shares, top, err := p.Stop(h.profilePath(name+".cpu.pprof"), 12)
		if err != nil {
			s.Notes = append(s.Notes, "CPU profile unreadable: "+err.Error())
			return nil
		}
		s.Profile = top
		return shares
	}
}
