package devenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swaprouter/swaprouter/internal/scheme"
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
}

// DefaultOptions run everything on loopback with data under .swaprouter.
func DefaultOptions() Options {
	m := system.DefaultOptions()
	m.Namespace = "swaprouter-dev"
	m.MetricsAddr = "127.0.0.1:9090"
	m.ProbeAddr = "127.0.0.1:9091"
	return Options{DataDir: ".swaprouter", Manager: m}
}

// BindFlags registers the dev flags.
func (o *Options) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "folder for etcd data, kubeconfig and dev.env")
	fs.BoolVar(&o.Reset, "reset", o.Reset, "wipe the data folder before starting")
	fs.StringVar(&o.Manager.Namespace, "namespace", o.Manager.Namespace, "namespace of the dev objects")
	fs.StringVar(&o.Manager.MetricsAddr, "metrics-bind-address", o.Manager.MetricsAddr, "address of the Prometheus metrics endpoint")
	fs.StringVar(&o.Manager.ProbeAddr, "health-probe-bind-address", o.Manager.ProbeAddr, "address of /healthz and /readyz")
	fs.StringVar(&o.Manager.PprofAddr, "pprof-bind-address", o.Manager.PprofAddr, "address of the pprof endpoints (empty disables)")
}

// Run starts the whole local system, writes dev.env, and blocks until ctx ends; then it
// stops every part it started, children included.
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
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	if err := EnsureBinaries(out); err != nil {
		return err
	}
	plane, err := StartControlPlane(dataDir, out)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(out, "Stopping the control plane...")
		if err := plane.Stop(); err != nil {
			fmt.Fprintln(out, "warning: stopping the control plane:", err)
		}
	}()

	c, err := client.New(plane.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return err
	}
	if err := ensureNamespace(ctx, c, o.Manager.Namespace); err != nil {
		return err
	}

	mgr, err := system.NewManager(plane.Config, o.Manager)
	if err != nil {
		return err
	}
	env := map[string]string{"KUBECONFIG": plane.KubeconfigPath}
	envPath := filepath.Join(dataDir, "dev.env")
	if err := writeEnvFile(envPath, env); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nswaprouter dev is running (namespace %s). Environment, also in %s:\n", o.Manager.Namespace, envPath)
	printEnv(out, env)
	fmt.Fprintf(out, "\nTry:\n  kubectl --kubeconfig %s get swaporders,webhookdeliveries,partners,routingproviders -n %s\n\nCtrl-C stops everything.\n",
		plane.KubeconfigPath, o.Manager.Namespace)

	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("manager: %w", err)
	}
	fmt.Fprintln(out, "Manager stopped.")
	return nil
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

// writeEnvFile writes KEY=value lines a shell can `source` (values single-quoted).
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
