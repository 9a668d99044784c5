// Package system assembles the swaprouter manager: the scheme, the cache indexes, the
// controllers and the /v1 frontend, switched by Options. `swaprouter manager`, `swaprouter dev`,
// the whole-system tests and the benchmarks all build the service through here.
package system

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// Options switch the parts of the service and tune them. Zero values are not meaningful:
// start from DefaultOptions.
type Options struct {
	// Namespace is where Partners, RoutingProviders, SwapOrders and deliveries live.
	Namespace string

	// Controllers runs the reconcilers (leader-elected when LeaderElection is set).
	Controllers bool
	// Frontend runs the /v1 HTTP server on every replica (no leader election).
	Frontend bool

	MetricsAddr    string
	ProbeAddr      string
	PprofAddr      string
	LeaderElection bool
	// LeaderElectionNamespace defaults to Namespace.
	LeaderElectionNamespace string
}

// DefaultOptions are the production defaults.
func DefaultOptions() Options {
	return Options{
		Namespace:   "swaprouter-system",
		Controllers: true,
		Frontend:    true,
		MetricsAddr: ":8443",
		ProbeAddr:   ":8081",
	}
}

// BindFlags registers the options as command-line flags.
func (o *Options) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "namespace holding partners, providers, orders and deliveries")
	fs.BoolVar(&o.Controllers, "controllers", o.Controllers, "run the controllers (leader-elected)")
	fs.BoolVar(&o.Frontend, "frontend", o.Frontend, "run the /v1 HTTP frontend")
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr, "address of the Prometheus metrics endpoint (0 disables)")
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", o.ProbeAddr, "address of /healthz and /readyz")
	fs.StringVar(&o.PprofAddr, "pprof-bind-address", o.PprofAddr, "address of the pprof endpoints (empty disables)")
	fs.BoolVar(&o.LeaderElection, "leader-elect", o.LeaderElection, "elect one active controller replica")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace, "namespace of the leader election lease (default: --namespace)")
}

// Validate reports option combinations that cannot work.
func (o Options) Validate() error {
	if o.Namespace == "" {
		return fmt.Errorf("--namespace must not be empty")
	}
	if !o.Controllers && !o.Frontend {
		return fmt.Errorf("nothing to run: enable --controllers, --frontend or both")
	}
	return nil
}

// NewManager builds a manager running what o switches on.
func NewManager(cfg *rest.Config, o Options) (manager.Manager, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	leNamespace := o.LeaderElectionNamespace
	if leNamespace == "" {
		leNamespace = o.Namespace
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme.New(),
		// The service keeps all its objects in one namespace; caching only it keeps memory
		// proportional to the service's own objects.
		Cache:                   cache.Options{DefaultNamespaces: map[string]cache.Config{o.Namespace: {}}},
		Client:                  client.Options{Cache: &client.CacheOptions{Unstructured: false}},
		Metrics:                 metricsserver.Options{BindAddress: o.MetricsAddr},
		HealthProbeBindAddress:  o.ProbeAddr,
		PprofBindAddress:        o.PprofAddr,
		LeaderElection:          o.LeaderElection && o.Controllers,
		LeaderElectionID:        "swaprouter-controllers.swap.swaprouter.dev",
		LeaderElectionNamespace: leNamespace,
		// Step down promptly on shutdown so a rolling update hands over fast.
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       ptr(30 * time.Second),
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	if err := index.Register(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return nil, fmt.Errorf("registering field indexes: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	return mgr, nil
}

func ptr[T any](v T) *T { return &v }
