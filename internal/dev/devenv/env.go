package devenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/postgres"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/redis"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/receipt"
	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/system"
	"github.com/swaprouter/swaprouter/internal/tiers"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// Env is a running whole system: control plane, simulator, manager (controllers and
// frontend), RoutingProviders (route_A, route_B and relay unless EnvOptions.Providers says
// otherwise), a demo partner with a fresh key and a sample sanctions list.
// `swaprouter-dev`, the whole-journey suites and the benchmarks all start it through Start.
type Env struct {
	Plane *ControlPlane
	// tempDir is the data folder Start created (no EnvOptions.DataDir); Stop removes it.
	tempDir string
	// Postgres is the order archive's local server (data under DataDir/postgres).
	Postgres   *postgres.Server
	ArchiveDSN string
	// Redis holds the frontend's per-key rate limits when EnvOptions.Redis asked for it.
	Redis     *redis.Server
	stopRedis func()
	Client    client.Client
	System    *system.System
	Simulator *simulator.Simulator
	Namespace string

	FrontendURL  string
	SimulatorURL string
	// Partner is the demo partner's name; KeyID and Secret its fresh API key.
	Partner, KeyID, Secret string
	// WebhookSecret signs the demo partner's webhooks (whsec_...).
	WebhookSecret string

	// pollMin and pollMax are the RoutingProviders' poll interval; declared are the names of
	// the RoutingProviders Start applied (it waits until they are Ready; one an operator
	// applied beside them may be down, or disabled, without holding the start).
	pollMin, pollMax time.Duration
	declared         []string

	cancel  context.CancelFunc
	done    chan error
	servers []*http.Server
}

// EnvOptions configure Start.
type EnvOptions struct {
	// DataDir keeps etcd data and the kubeconfig; a temporary folder when empty.
	DataDir string
	Manager system.Options
	// SimulatorAddr is where the simulator listens (":0" style addresses pick a free port).
	SimulatorAddr string
	Simulator     simulator.Options
	// PollMin and PollMax are the RoutingProviders' status poll interval.
	PollMin, PollMax time.Duration
	// Providers are the RoutingProviders declared at the start; nil: DefaultProviders (route_A,
	// route_B and relay).
	Providers []Provider
	// Partner names the demo partner.
	Partner string
	// PartnerRequestsPerMinute is the demo partner's per-key limit; 0 keeps make run's 300. A
	// suite that polls through the partner's key states one its own pace cannot reach.
	PartnerRequestsPerMinute int32
	// WebhookURL, when set, receives the demo partner's webhooks.
	WebhookURL string
	// Out receives progress lines.
	Out io.Writer
	// Redis starts a local throw-away Redis and points the frontend's --redis-url at it, as
	// config/default does (`swaprouter-dev`); off, the rate limits stay in process.
	Redis bool
}

// Start brings the whole system up and returns when the frontend answers and every declared
// provider is ready. Stop ends it.
func Start(ctx context.Context, o EnvOptions) (env *Env, err error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	tempDir := ""
	if o.DataDir == "" {
		if o.DataDir, err = os.MkdirTemp("", "swaprouter-env-"); err != nil {
			return nil, err
		}
		tempDir = o.DataDir
		defer func() {
			if env == nil {
				_ = os.RemoveAll(tempDir) // failed before there was an Env to Stop
			}
		}()
	}
	if err := EnsureBinaries(o.Out); err != nil {
		return nil, err
	}
	// Others may pass through (not read) the data folder: PostgreSQL runs as its own user
	// when we are root.
	if err := os.Chmod(o.DataDir, 0o711); err != nil {
		return nil, err
	}
	plane, err := StartControlPlane(o.DataDir, o.Manager.Namespace, o.Out)
	if err != nil {
		return nil, err
	}
	env = &Env{Plane: plane, Namespace: o.Manager.Namespace, done: make(chan error, 1), tempDir: tempDir,
		pollMin: o.PollMin, pollMax: o.PollMax}
	for _, p := range o.providers() {
		env.declared = append(env.declared, p.Name)
	}
	defer func() {
		if err != nil {
			env.Stop()
			env = nil
		}
	}()
	// Its own lifetime: Stop ends it after the manager, never before (Ctrl-C cancels ctx).
	if env.Postgres, err = postgres.Start(context.Background(), postgres.Options{DataDir: filepath.Join(o.DataDir, "postgres")}); err != nil {
		return env, err
	}
	if env.ArchiveDSN, err = env.Postgres.CreateDatabase(ctx, "swaprouter"); err != nil {
		return env, err
	}
	o.Manager.ArchiveDSN = env.ArchiveDSN
	fmt.Fprintf(o.Out, "PostgreSQL (order archive) on %s, data in %s.\n", env.Postgres.Addr, env.Postgres.DataDir())
	if o.Redis {
		if env.Redis, env.stopRedis, err = redis.StartThrowaway(context.Background(), nil); err != nil {
			return env, err
		}
		o.Manager.RedisURL = env.Redis.URL()
		fmt.Fprintf(o.Out, "Redis (shared rate limits) on %s.\n", env.Redis.Addr)
	}

	if env.Client, err = client.New(plane.Config, client.Options{Scheme: scheme.New()}); err != nil {
		return env, err
	}
	if err = ensureNamespace(ctx, env.Client, env.Namespace); err != nil {
		return env, err
	}

	if env.Simulator, err = simulator.Open(o.Simulator); err != nil {
		return env, err
	}
	simAddr, err := env.serve(o.SimulatorAddr, env.Simulator.Handler())
	if err != nil {
		return env, fmt.Errorf("simulator: %w", err)
	}
	env.SimulatorURL = "http://" + simAddr
	fmt.Fprintf(o.Out, "Provider simulator on %s (%s).\n", env.SimulatorURL, describe(o.providers(), o.Simulator.Instances))
	if o.Manager.ScreeningURL == "" {
		// The simulator's sanctions screening API (nothing listed until PUT /control/sanctioned).
		o.Manager.ScreeningURL, o.Manager.ScreeningAPIKey = env.SimulatorURL+"/sanctions", o.Simulator.SanctionsAPIKey
	}

	if err = env.applyProviders(ctx, o); err != nil {
		return env, err
	}
	if err = env.applyPartner(ctx, o); err != nil {
		return env, err
	}
	if err = ApplySanctionsList(ctx, env.Client, env.Namespace); err != nil {
		return env, err
	}
	// The key survives restarts with the data folder: receipts issued before stay verifiable.
	if _, err = receipt.EnsureSecret(ctx, env.Client, env.Namespace); err != nil {
		return env, fmt.Errorf("receipt signing key: %w", err)
	}

	if env.System, err = system.New(plane.Config, o.Manager); err != nil {
		return env, err
	}
	mgrCtx, cancel := context.WithCancel(context.Background())
	env.cancel = cancel
	go func() { env.done <- env.System.Manager.Start(mgrCtx) }()

	if err = env.waitReady(ctx); err != nil {
		return env, err
	}
	return env, nil
}

// listen binds addr; a port in use gets a message naming the flag to change.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w (is another swaprouter-dev running? pick another address with its flag)", err)
	}
	return ln, nil
}

// serve runs h on addr until Stop and returns the bound address.
func (e *Env) serve(addr string, h http.Handler) (string, error) {
	ln, err := listen(addr)
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	e.servers = append(e.servers, srv)
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), nil
}

func (e *Env) applyProviders(ctx context.Context, o EnvOptions) error {
	for _, p := range o.providers() {
		if err := e.ApplyProvider(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// applyPartner creates or updates the demo partner and keeps its webhook secret and API key
// across runs.
func (e *Env) applyPartner(ctx context.Context, o EnvOptions) error {
	e.Partner = o.Partner
	whName := o.Partner + "-webhook"
	wh := &corev1.Secret{}
	switch err := e.Client.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: whName}, wh); {
	case apierrors.IsNotFound(err):
		secret, err := webhooks.NewSecret()
		if err != nil {
			return err
		}
		wh = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: whName, Namespace: e.Namespace},
			Data:       map[string][]byte{"secret": []byte(secret)},
		}
		if err := e.Client.Create(ctx, wh); err != nil {
			return fmt.Errorf("webhook secret: %w", err)
		}
	case err != nil:
		return err
	}
	e.WebhookSecret = string(wh.Data["secret"])

	p := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: o.Partner, Namespace: e.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, e.Client, p, func() error {
		p.Spec.DisplayName = "Demo partner"
		p.Spec.Tier = tiers.DefaultTier
		switch {
		case o.PartnerRequestsPerMinute > 0:
			p.Spec.RequestsPerMinute = o.PartnerRequestsPerMinute
		case p.Spec.RequestsPerMinute == 0:
			p.Spec.RequestsPerMinute = 300
		}
		p.Spec.Webhook = nil
		if o.WebhookURL != "" {
			p.Spec.Webhook = &swapv1.PartnerWebhook{
				URL: o.WebhookURL, Enabled: true, SecretRef: swapv1.SecretKeyRef{Name: whName, Key: "secret"},
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("partner %s: %w", o.Partner, err)
	}
	keyID, secret, err := demoKey(ctx, e.Client, o.DataDir, e.Namespace, o.Partner)
	if err != nil {
		return fmt.Errorf("partner key: %w", err)
	}
	e.KeyID, e.Secret = keyID, secret
	return nil
}

// waitReady returns once the frontend answers /readyz, the declared providers are Ready and the
// archive is migrated (PostgreSQL is ours and up: a first keyed order must not meet a 503).
func (e *Env) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-e.done:
			e.done <- err
			return fmt.Errorf("manager stopped while starting: %w", err)
		case <-ctx.Done():
			return errors.New("the system did not become ready within 2 minutes")
		case <-tick.C:
		}
		if e.FrontendURL == "" && e.System.Frontend != nil {
			if addr := e.System.Frontend.Addr(); addr != "" {
				e.FrontendURL = "http://" + addr
			}
		}
		if e.FrontendURL != "" && e.frontendReady(ctx) && e.providersReady(ctx) && e.archiveReady(ctx) {
			return nil
		}
	}
}

func (e *Env) frontendReady(ctx context.Context) bool {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.FrontendURL+"/readyz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (e *Env) archiveReady(ctx context.Context) bool {
	return e.System.Archive == nil || e.System.Archive.Ready(ctx) == nil
}

func (e *Env) providersReady(ctx context.Context) bool {
	for _, name := range e.declared {
		var rp swapv1.RoutingProvider
		if err := e.Client.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: name}, &rp); err != nil ||
			!meta.IsStatusConditionTrue(rp.Status.Conditions, swapv1.ConditionReady) {
			return false
		}
	}
	return true
}

// Stop ends the manager (draining the frontend), the simulator and the control plane.
func (e *Env) Stop() {
	if e.cancel != nil {
		e.cancel()
		select {
		case <-e.done:
		case <-time.After(40 * time.Second):
		}
	}
	var wg sync.WaitGroup
	for _, srv := range e.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(ctx)
		}()
	}
	wg.Wait()
	if e.Postgres != nil {
		e.Postgres.Stop()
	}
	if e.stopRedis != nil {
		e.stopRedis()
	}
	if e.Plane != nil {
		_ = e.Plane.Stop()
	}
	if e.tempDir != "" {
		// A bench run's archive alone is gigabytes.
		_ = os.RemoveAll(e.tempDir)
	}
}

// EnvFile is what dev.env holds.
func (e *Env) EnvFile() map[string]string {
	m := map[string]string{
		"SWAPROUTER_URL":         e.FrontendURL,
		"SWAPROUTER_KEY_ID":      e.KeyID,
		"SWAPROUTER_API_SECRET":  e.Secret,
		"SIMULATOR_URL":          e.SimulatorURL,
		"KUBECONFIG":             e.Plane.KubeconfigPath,
		"SWAPROUTER_NAMESPACE":   e.Namespace,
		"SWAPROUTER_ARCHIVE_DSN": e.ArchiveDSN,
		"SWAPROUTER_PARTNER":     e.Partner,
	}
	if e.Redis != nil {
		m["SWAPROUTER_REDIS_URL"] = e.Redis.URL()
	}
	return m
}
