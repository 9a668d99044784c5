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

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swaprouter/swaprouter/internal/simulator"
	"github.com/swaprouter/swaprouter/internal/system"
)

// Options configure `swaprouter dev`.
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
	// WebhookReceiver runs a local receiver on ReceiverAddr that prints each verified event.
	WebhookReceiver bool
	ReceiverAddr    string
}

// DefaultOptions run everything on loopback with data under .swaprouter.
func DefaultOptions() Options {
	m := system.DefaultOptions()
	m.Namespace = "swaprouter-dev"
	m.FrontendAddr = "127.0.0.1:8080"
	m.MetricsAddr = "127.0.0.1:9090"
	m.ProbeAddr = "127.0.0.1:9091"
	// The local receiver is on loopback; production refuses such webhook targets.
	m.AllowLoopbackWebhooks = true
	return Options{
		DataDir:       ".swaprouter",
		Manager:       m,
		SimulatorAddr: "127.0.0.1:18080",
		Simulator:     simulator.Options{RouteAToken: "dev-route-a-token"},
		ReceiverAddr:  "127.0.0.1:18090",
	}
}

// BindFlags registers the dev flags.
func (o *Options) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "folder for etcd data, kubeconfig and dev.env")
	fs.BoolVar(&o.Reset, "reset", o.Reset, "wipe the data folder before starting")
	fs.StringVar(&o.Manager.Namespace, "namespace", o.Manager.Namespace, "namespace of the dev objects")
	fs.StringVar(&o.Manager.FrontendAddr, "listen-address", o.Manager.FrontendAddr, "address of the /v1 HTTP frontend")
	fs.StringVar(&o.SimulatorAddr, "simulator-address", o.SimulatorAddr, "address of the provider simulator")
	fs.BoolVar(&o.WebhookReceiver, "webhook-receiver", o.WebhookReceiver, "run a local webhook receiver that prints each verified event")
	fs.StringVar(&o.ReceiverAddr, "webhook-receiver-address", o.ReceiverAddr, "address of the local webhook receiver")
	fs.StringVar(&o.Manager.MetricsAddr, "metrics-bind-address", o.Manager.MetricsAddr, "address of the Prometheus metrics endpoint")
	fs.StringVar(&o.Manager.ProbeAddr, "health-probe-bind-address", o.Manager.ProbeAddr, "address of /healthz and /readyz")
	fs.StringVar(&o.Manager.PprofAddr, "pprof-bind-address", o.Manager.PprofAddr, "address of the pprof endpoints (empty disables)")
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

	envOpts := EnvOptions{
		DataDir: dataDir, Manager: o.Manager, SimulatorAddr: o.SimulatorAddr, Simulator: o.Simulator,
		PollMin: 10 * time.Second, PollMax: 15 * time.Second, Partner: "demo", Out: out,
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
	if receiver != nil {
		receiver.SetSecret(env.WebhookSecret)
		fmt.Fprintf(out, "Webhook receiver on %s verifies and prints every event.\n", envOpts.WebhookURL)
	}

	vars := env.EnvFile()
	envPath := filepath.Join(dataDir, "dev.env")
	if err := writeEnvFile(envPath, vars); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nswaprouter dev is running. Environment (also in %s):\n", envPath)
	printEnv(out, vars)
	fmt.Fprint(out, walkthrough(envPath))

	<-ctx.Done()
	return nil
}

// walkthrough is the newcomer's first five minutes, printed at start.
func walkthrough(envPath string) string {
	return strings.ReplaceAll(`
Walkthrough (in another shell):
  source ENV
  auth=(-H "X-Key-Id: $SWAPROUTER_KEY_ID" -H "Authorization: Bearer $SWAPROUTER_API_SECRET")
  curl -s "${auth[@]}" "$SWAPROUTER_URL/v1/assets?chain=eth"
  curl -s "${auth[@]}" -H 'Content-Type: application/json' "$SWAPROUTER_URL/v1/quote" \
    -d '{"originAsset":"eip155:1/slip44:60","destinationAsset":"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501","amount":"100000000000000000","dry":true}'
  curl -s "${auth[@]}" -H 'Content-Type: application/json' "$SWAPROUTER_URL/v1/order" \
    -d '{"originAsset":"eip155:1/slip44:60","destinationAsset":"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501","amount":"100000000000000000","sender":"0x1111111111111111111111111111111111111111","recipient":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin","providerId":"route_A"}'
  # send the deposit on the simulated chain (use the order's depositAddress):
  curl -s -H 'Content-Type: application/json' "$SIMULATOR_URL/chain/deposits" \
    -d '{"depositAddress":"<depositAddress>","amount":"100000000000000000"}'
  # poll every 10-15 s until SUCCESS:
  curl -s "${auth[@]}" "$SWAPROUTER_URL/v1/order/<id>"
  kubectl get swaporders -n "$SWAPROUTER_NAMESPACE"

Ctrl-C stops everything.
`, "ENV", envPath)
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

// writeEnvFile writes export lines a shell can `source` (values single-quoted).
func writeEnvFile(path string, env map[string]string) error {
	var b strings.Builder
	for _, k := range sortedKeys(env) {
		fmt.Fprintf(&b, "export %s='%s'\n", k, strings.ReplaceAll(env[k], "'", `'\''`))
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

func printEnv(out io.Writer, env map[string]string) {
	for _, k := range sortedKeys(env) {
		fmt.Fprintf(out, "  %s=%s\n", k, env[k])
	}
}
