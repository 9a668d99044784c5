package devenv

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/consumerapp"
	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/system"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// Options configure `swaprouter-dev`.
type Options struct {
	// DataDir keeps etcd's data, the kubeconfig and dev.env.
	DataDir string
	// Reset wipes DataDir before starting.
	Reset bool
	// Manager configures the controllers and frontend run against the local control plane.
	Manager system.Options
	// SimulatorAddr is where the provider simulator listens.
	SimulatorAddr string
	// Simulator sets its speed; zero values are the dev defaults.
	Simulator simulator.Options
	// WebhookReceiver runs a local receiver on ReceiverAddr that prints each verified event
	// (and each redelivery, as such), and points the demo partner's webhooks at it.
	WebhookReceiver bool
	ReceiverAddr    string
	// App serves the consumer swap page on AppAddr, with the demo partner's key.
	App     bool
	AppAddr string
	// Verbose prints the logs on the console instead of the data folder's log file.
	Verbose bool
}

// EphemeralManager is the manager for a suite or the benchmark in namespace: the frontend
// on a free loopback port, no metrics or probe servers (several may run on one machine), and
// its own metrics registry (several may run in one process).
func EphemeralManager(namespace string) system.Options {
	m := system.DefaultOptions()
	m.Namespace = namespace
	m.FrontendAddr = "127.0.0.1:0"
	m.MetricsAddr = "0"
	m.ProbeAddr = "0"
	m.Metrics = prometheus.NewRegistry()
	return m
}

// SpareOneClick is a second 1Click account make run's simulator serves with no RoutingProvider
// declared for it, so that adding a provider can be tried on a running system (README, "Adding
// a provider"): its own path, token and fee (20 bps; route_A's is 30).
var SpareOneClick = simulator.Instance{ID: "oneclick_b", Protocol: swapv1.ProtocolOneClick, Token: "dev-oneclick-b-token", FeeBps: new(int64(20))}

// DefaultOptions run everything on loopback with data under .swaprouter.
func DefaultOptions() Options {
	m := system.DefaultOptions()
	m.Namespace = "swaprouter-dev"
	m.FrontendAddr = "127.0.0.1:8080"
	m.MetricsAddr = "127.0.0.1:9090"
	// Loopback only, for the person running it: plain HTTP, no kube credentials needed.
	m.MetricsSecure = false
	m.ProbeAddr = "127.0.0.1:9091"
	// The local receiver is on loopback; production refuses such webhook targets.
	m.AllowLoopbackWebhooks = true
	return Options{
		DataDir:       ".swaprouter",
		Manager:       m,
		SimulatorAddr: "127.0.0.1:18080",
		Simulator: simulator.Options{RouteAToken: "dev-route-a-token", RelayAPIKey: "dev-relay-api-key",
			Instances: []simulator.Instance{SpareOneClick}},
		WebhookReceiver: true,
		ReceiverAddr:    "127.0.0.1:18090",
		App:             true,
		AppAddr:         "127.0.0.1:8088",
	}
}

// BindFlags registers the dev flags.
func (o *Options) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "folder for etcd data, kubeconfig and dev.env")
	fs.BoolVar(&o.Reset, "reset", o.Reset, "wipe the data folder before starting")
	fs.StringVar(&o.Manager.Namespace, "namespace", o.Manager.Namespace, "namespace of the dev objects")
	fs.StringVar(&o.Manager.FrontendAddr, "listen-address", o.Manager.FrontendAddr, "address of the /v1 HTTP frontend")
	fs.StringVar(&o.SimulatorAddr, "simulator-address", o.SimulatorAddr, "address of the provider simulator")
	fs.BoolVar(&o.WebhookReceiver, "webhook-receiver", o.WebhookReceiver, "run a local webhook receiver that prints each verified event, and send the demo partner's webhooks to it (--webhook-receiver=false: no webhooks)")
	fs.StringVar(&o.ReceiverAddr, "webhook-receiver-address", o.ReceiverAddr, "address of the local webhook receiver")
	fs.StringVar(&o.Manager.MetricsAddr, "metrics-bind-address", o.Manager.MetricsAddr, "address of the Prometheus metrics endpoint")
	fs.StringVar(&o.Manager.ProbeAddr, "health-probe-bind-address", o.Manager.ProbeAddr, "address of /healthz and /readyz")
	fs.StringVar(&o.Manager.PprofAddr, "pprof-bind-address", o.Manager.PprofAddr, "address of the pprof endpoints (empty disables)")
	fs.BoolVar(&o.App, "app", o.App, "serve the consumer swap page")
	fs.StringVar(&o.AppAddr, "app-address", o.AppAddr, "address of the consumer swap page")
	fs.BoolVar(&o.Verbose, "verbose", o.Verbose, "print human-readable logs here instead of to the data folder's log file")
}

// Run starts the whole local system, writes dev.env, prints a walkthrough, and blocks until
// ctx ends; then it stops every part it started.
func Run(ctx context.Context, o Options, out io.Writer) error {
	if o.Reset {
		fmt.Fprintf(out, "Wiping %s\n", o.DataDir)
		if err := os.RemoveAll(o.DataDir); err != nil {
			return err
		}
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o711); err != nil {
		return err
	}
	closeLog, err := SetupLogging(dataDir, o.Verbose, out)
	if err != nil {
		return err
	}
	defer closeLog()

	// The simulator keeps its orders and deposits beside etcd's data, so a restarted dev system
	// carries on with the orders of the previous run (the provider still knows them).
	if o.Simulator.DataDir == "" {
		o.Simulator.DataDir = filepath.Join(dataDir, "simulator")
	}
	envOpts := EnvOptions{
		DataDir: dataDir, Manager: o.Manager, SimulatorAddr: o.SimulatorAddr, Simulator: o.Simulator,
		PollMin: 10 * time.Second, PollMax: 15 * time.Second, Partner: "demo", Out: out, Redis: true,
	}
	var receiver *Receiver
	var receiverSrv *http.Server
	if o.WebhookReceiver {
		receiver = &Receiver{Out: out}
		receiverSrv = &http.Server{Addr: o.ReceiverAddr, Handler: receiver, ReadHeaderTimeout: 5 * time.Second}
		ln, err := listen(o.ReceiverAddr)
		if err != nil {
			return fmt.Errorf("webhook receiver: %w", err)
		}
		go func() { _ = receiverSrv.Serve(ln) }()
		defer receiverSrv.Close()
		envOpts.WebhookURL = "http://" + ln.Addr().String() + "/webhooks"
	}

	env, err := Start(ctx, envOpts)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(out, "\nStopping the manager, the simulator and the control plane...")
		env.Stop()
		fmt.Fprintln(out, "Stopped.")
	}()
	addrs := Addresses{API: env.FrontendURL, Simulator: env.SimulatorURL, Namespace: env.Namespace,
		EnvFile: filepath.Join(o.DataDir, "dev.env"), QuoteKey: env.Simulator.QuotePublicKey()}
	if !o.Verbose {
		addrs.LogFile = filepath.Join(o.DataDir, LogFileName)
	}
	if o.Manager.MetricsAddr != "" && o.Manager.MetricsAddr != "0" {
		addrs.Metrics = "http://" + o.Manager.MetricsAddr + "/metrics"
	}
	if receiver != nil {
		receiver.SetSecret(env.WebhookSecret)
		addrs.Receiver = envOpts.WebhookURL
	}
	if o.App {
		if addrs.App, err = startApp(ctx, o.AppAddr, env); err != nil {
			return err
		}
	}

	// The binaries beside this one (make build puts swaprouter and kubectl-swaprouter there)
	// and the kubectl built with the control plane come first on the PATH of a shell that
	// sources dev.env, so the README's commands find them.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	path := []string{filepath.Dir(self), testenv.AssetsDir()}
	if err := writeEnvFile(filepath.Join(dataDir, "dev.env"), env.EnvFile(), path); err != nil {
		return err
	}
	fmt.Fprint(out, summary(addrs))

	<-ctx.Done()
	return nil
}

// startApp serves the consumer swap page with the demo partner's key until ctx ends, its
// "Simulate deposit" button wired to the simulator, and returns its URL.
func startApp(ctx context.Context, addr string, env *Env) (string, error) {
	app, err := consumerapp.New(consumerapp.Options{
		APIURL: env.FrontendURL, Key: upstream.Key{ID: env.KeyID, Secret: env.Secret},
		SimulatorURL: env.SimulatorURL, Log: ctrl.Log.WithName("app"),
		Metrics: ctrlmetrics.Registry, // beside the controllers' and frontend's on the dev metrics port
	})
	if err != nil {
		return "", err
	}
	ln, err := listen(addr)
	if err != nil {
		return "", fmt.Errorf("swap app: %w", err)
	}
	go func() { _ = app.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), nil
}

func ensureNamespace(ctx context.Context, c client.Client, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeEnvFile writes export lines a shell can `source` (values single-quoted), and one that
// puts dirs before the shell's own PATH.
func writeEnvFile(path string, env map[string]string, dirs []string) error {
	quote := func(v string) string { return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'" }
	var b strings.Builder
	for _, k := range sortedKeys(env) {
		fmt.Fprintf(&b, "export %s=%s\n", k, quote(env[k]))
	}
	fmt.Fprintf(&b, "export PATH=%s:\"$PATH\"\n", quote(strings.Join(dirs, ":")))
	return os.WriteFile(path, []byte(b.String()), 0o600)
}
