// Package system assembles the swaprouter manager: the scheme, the cache indexes, the
// controllers and the /v1 frontend, switched by Options. `swaprouter manager`, `swaprouter-dev`,
// the whole-system tests and the benchmarks all build the service through here.
package system

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver"
	"github.com/swaprouter/swaprouter/controllers"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/eventsink"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/intern"
	"github.com/swaprouter/swaprouter/internal/leaderfence"
	"github.com/swaprouter/swaprouter/internal/netguard"
	"github.com/swaprouter/swaprouter/internal/provider/budget"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	"github.com/swaprouter/swaprouter/internal/providerset"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
	"github.com/swaprouter/swaprouter/internal/ratelimit/redislimit"
	"github.com/swaprouter/swaprouter/internal/restmapping"
	"github.com/swaprouter/swaprouter/internal/routing"
	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/chainalysis"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
	"github.com/swaprouter/swaprouter/internal/streamslots"
	"github.com/swaprouter/swaprouter/internal/tiers"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
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

	MetricsAddr string
	// MetricsSecure serves metrics over HTTPS, each scrape authenticated (TokenReview) and
	// authorized (SubjectAccessReview: get on the /metrics non-resource URL, the
	// metrics-reader ClusterRole) against the kube-apiserver, as kubebuilder scaffolds it.
	// Off only for the local dev system.
	MetricsSecure bool
	// MetricsCertDir holds MetricsCertName and MetricsKeyName (reloaded when they change);
	// empty or missing files: a self-signed certificate generated at start.
	MetricsCertDir  string
	MetricsCertName string
	MetricsKeyName  string
	// EnableHTTP2 lets the metrics server speak HTTP/2; off by default against the HTTP/2
	// Rapid Reset and Stream Cancellation CVEs (kubebuilder's default).
	EnableHTTP2    bool
	ProbeAddr      string
	PprofAddr      string
	LeaderElection bool
	// LeaderElectionNamespace defaults to Namespace.
	LeaderElectionNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod time the leader election (client-go's
	// 15 s, 10 s, 2 s by default): a dead leader is replaced within about LeaseDuration +
	// RetryPeriod, a leader that cannot renew for RenewDeadline steps down.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Metrics is where the service's own metrics are registered; nil: controller-runtime's
	// registry, which the metrics server serves. A process that builds several systems (test
	// suites, the benchmark) gives each its own.
	Metrics prometheus.Registerer

	// FrontendAddr is the /v1 listen address (":0" picks a free port).
	FrontendAddr string
	// OrderWaitTimeout bounds how long order creation waits for the deposit address.
	OrderWaitTimeout time.Duration
	// QuotaFlushInterval is how often quote counts are written to Partner status.
	QuotaFlushInterval time.Duration
	// APIShutdownTimeout bounds the drain of in-flight requests (below the manager's 30 s).
	APIShutdownTimeout time.Duration
	// RedisURL, when set, keeps the per-key rate limits in that Redis, shared by every
	// frontend replica; empty keeps them per replica.
	RedisURL string
	// QuoteKeysFile is the Tink JSON keyset that seals quoteIds, listing cursors and event
	// stream tokens (`swaprouter quote-keys`; the primary key seals, every key opens); empty:
	// a random key, so these tokens only open in this process.
	QuoteKeysFile string
	// TiersFile is the tier table (tier → requestsPerMinute, monthlyQuoteQuota); empty: the
	// built-in one (internal/tiers).
	TiersFile string
	// EventsHeartbeat and EventsVisibilityLag are apiserver.Options' (0: its defaults).
	EventsHeartbeat, EventsVisibilityLag time.Duration

	// OrderConcurrency is the number of orders reconciled in parallel.
	OrderConcurrency int
	// ProviderConcurrency caps concurrent order calls to one provider. It must stay below
	// OrderConcurrency so one slow provider can never hold every worker; 0 means half of it.
	ProviderConcurrency int
	// OrderTTL keeps archived terminal orders this long in etcd.
	OrderTTL time.Duration
	// ArchiveDSN is the PostgreSQL order archive (empty: no archive, terminal orders are
	// never deleted from etcd). ArchiveRetention deletes archived orders that ended longer
	// ago (0 keeps them forever; their ids are kept forever either way).
	ArchiveDSN       string
	ArchiveRetention time.Duration
	// DepositExpiryGrace is added to a provider's deposit deadline before DepositExpired.
	DepositExpiryGrace time.Duration
	// UnknownAfter is the number of "order not found" answers in a row before an order is
	// UNKNOWN (provider-wide failures never make an order UNKNOWN).
	UnknownAfter int
	// OrderCreateBound fails a new order without a deposit address after this long
	// (NoDepositAddress); OrderWatchBound stops polling an order its provider gave no usable
	// answer for after this long (Stalled WatchStopped).
	OrderCreateBound, OrderWatchBound time.Duration
	// ProviderIssueAfter is how long a provider must fail an order as a whole before the
	// order's conditions say so (shorter outages show on the RoutingProvider only).
	ProviderIssueAfter time.Duration

	// WebhookConcurrency is the number of delivery workers (attempts in flight, all partners).
	WebhookConcurrency int
	// WebhookPerPartner caps one partner's attempts in flight, so a slow or dead endpoint
	// holds at most this many workers.
	WebhookPerPartner int
	// DeliveryRetention keeps delivered and failed deliveries this long.
	DeliveryRetention time.Duration
	// AllowLoopbackWebhooks lets deliveries reach 127.0.0.0/8 and ::1 (dev and tests only).
	AllowLoopbackWebhooks bool
	// WebhookSchedule is the delay before each delivery attempt (entry 0 before the first,
	// entry n after the n-th failure; its length is the number of attempts). Empty means the
	// design's; tests and the topology rig compress it so retries land within a bounded run.
	WebhookSchedule []time.Duration

	// ScreeningURL is an HTTP screening service speaking the Chainalysis public sanctions API
	// (empty: only the sanctions list ConfigMap screens); ScreeningAPIKey its X-API-Key and
	// ScreeningTimeout the bound of one order's screening by it.
	ScreeningURL, ScreeningAPIKey string
	ScreeningTimeout              time.Duration
	// ReviewBound fails an order screening held for review that nobody decided within it.
	ReviewBound time.Duration
}

// DefaultOptions are the production defaults.
func DefaultOptions() Options {
	return Options{
		Namespace:       "swaprouter-system",
		Controllers:     true,
		Frontend:        true,
		MetricsAddr:     ":8443",
		MetricsSecure:   true,
		MetricsCertName: "tls.crt",
		MetricsKeyName:  "tls.key",
		ProbeAddr:       ":8081",
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     2 * time.Second,

		FrontendAddr:       ":8080",
		OrderWaitTimeout:   apiserver.DefaultWaitTimeout,
		QuotaFlushInterval: apiserver.DefaultQuotaFlushInterval,
		APIShutdownTimeout: apiserver.DefaultShutdownTimeout,
		OrderConcurrency:   controllers.DefaultMaxConcurrentReconciles,
		OrderTTL:           controllers.DefaultOrderTTL,
		DepositExpiryGrace: controllers.DefaultExpiryGrace,
		UnknownAfter:       controllers.DefaultUnknownAfter,
		OrderCreateBound:   controllers.DefaultCreateBound,
		OrderWatchBound:    controllers.DefaultWatchBound,
		ProviderIssueAfter: controllers.DefaultProviderIssueAfter,
		WebhookConcurrency: controllers.DefaultDeliveryConcurrency,
		WebhookPerPartner:  delivery.DefaultMaxInFlight,
		DeliveryRetention:  controllers.DefaultDeliveryRetention,
		ScreeningTimeout:   chainalysis.DefaultTimeout,
		ReviewBound:        controllers.DefaultReviewBound,
	}
}

// BindFlags registers the options as command-line flags.
func (o *Options) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "namespace holding partners, providers, orders and deliveries")
	fs.BoolVar(&o.Controllers, "controllers", o.Controllers, "run the controllers (leader-elected)")
	fs.BoolVar(&o.Frontend, "frontend", o.Frontend, "run the /v1 HTTP frontend")
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr, "address of the Prometheus metrics endpoint (0 disables)")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, "serve metrics over HTTPS to callers the kube-apiserver authenticates and authorizes (false: plain HTTP to anyone)")
	fs.StringVar(&o.MetricsCertDir, "metrics-cert-path", o.MetricsCertDir, "directory with the metrics server's certificate and key (empty: self-signed)")
	fs.StringVar(&o.MetricsCertName, "metrics-cert-name", o.MetricsCertName, "certificate file name in --metrics-cert-path")
	fs.StringVar(&o.MetricsKeyName, "metrics-cert-key", o.MetricsKeyName, "key file name in --metrics-cert-path")
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", o.EnableHTTP2, "let the metrics server speak HTTP/2")
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", o.ProbeAddr, "address of /healthz and /readyz")
	fs.StringVar(&o.PprofAddr, "pprof-bind-address", o.PprofAddr, "address of the pprof endpoints (empty disables)")
	fs.BoolVar(&o.LeaderElection, "leader-elect", o.LeaderElection, "elect one active controller replica")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", o.LeaseDuration, "how long standbys wait after the last renewal before taking the lease")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", o.RenewDeadline, "how long the leader keeps trying to renew before it steps down")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", o.RetryPeriod, "how often leader election is tried and renewed")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace, "namespace of the leader election lease (default: --namespace)")

	fs.StringVar(&o.FrontendAddr, "listen-address", o.FrontendAddr, "address of the /v1 HTTP frontend")
	fs.DurationVar(&o.OrderWaitTimeout, "order-wait-timeout", o.OrderWaitTimeout, "how long order creation waits for the deposit address")
	fs.DurationVar(&o.QuotaFlushInterval, "quota-flush-interval", o.QuotaFlushInterval, "how often quote counts are written to Partner status")
	fs.DurationVar(&o.APIShutdownTimeout, "api-shutdown-timeout", o.APIShutdownTimeout, "how long in-flight requests may finish on shutdown")
	fs.StringVar(&o.RedisURL, "redis-url", os.Getenv("SWAPROUTER_REDIS_URL"), "Redis holding the per-key rate limits shared by all frontend replicas, e.g. redis://redis:6379/0 (default $SWAPROUTER_REDIS_URL; empty keeps them per replica)")
	fs.StringVar(&o.QuoteKeysFile, "quote-keys-file", os.Getenv("SWAPROUTER_QUOTE_KEYS_FILE"), "Tink JSON keyset that seals quoteIds, listing cursors and event stream tokens, made with \"swaprouter quote-keys create\"; its primary key seals, all its keys open (default $SWAPROUTER_QUOTE_KEYS_FILE; empty: a random key per process, so these tokens only open on the replica that issued them)")
	fs.StringVar(&o.TiersFile, "tiers-file", os.Getenv("SWAPROUTER_TIERS_FILE"), "YAML table of Partner tiers → default requestsPerMinute and monthlyQuoteQuota (default $SWAPROUTER_TIERS_FILE; empty: free 60/10000, standard 300/unlimited, enterprise 3000/unlimited)")
	fs.DurationVar(&o.EventsHeartbeat, "events-heartbeat", o.EventsHeartbeat, "how often an idle GET /v1/events stream sends a heartbeat comment (0: 15s)")
	fs.DurationVar(&o.EventsVisibilityLag, "events-visibility-lag", o.EventsVisibilityLag, "the longest a status transition takes to reach every frontend replica after its time, clock skew included: event stream resumes are exact within it (0: 10s)")
	fs.IntVar(&o.OrderConcurrency, "order-concurrency", o.OrderConcurrency, "orders reconciled in parallel")
	fs.IntVar(&o.ProviderConcurrency, "provider-concurrency", o.ProviderConcurrency, "concurrent order calls per provider, below --order-concurrency (0: half of it); an order whose provider is at the cap is requeued, never waits in a worker")
	fs.DurationVar(&o.OrderTTL, "order-ttl", o.OrderTTL, "how long an archived terminal order stays in etcd")
	fs.StringVar(&o.ArchiveDSN, "archive-dsn", os.Getenv("SWAPROUTER_ARCHIVE_DSN"), "PostgreSQL DSN of the order archive (default $SWAPROUTER_ARCHIVE_DSN; empty keeps terminal orders in etcd)")
	fs.DurationVar(&o.ArchiveRetention, "archive-retention", o.ArchiveRetention, "delete archived orders that ended longer ago (0 keeps them forever)")
	fs.DurationVar(&o.DepositExpiryGrace, "deposit-expiry-grace", o.DepositExpiryGrace, "grace after the deposit deadline before an order fails with DepositExpired")
	fs.IntVar(&o.UnknownAfter, "unknown-after", o.UnknownAfter, "consecutive \"order not found\" answers of a provider before an order becomes UNKNOWN (provider-wide outages never do)")
	fs.DurationVar(&o.OrderCreateBound, "order-create-bound", o.OrderCreateBound, "fail a new order that got no deposit address within this long (NoDepositAddress)")
	fs.DurationVar(&o.OrderWatchBound, "order-watch-bound", o.OrderWatchBound, "stop polling an order its provider gave no usable answer for after this long (Stalled WatchStopped)")
	fs.DurationVar(&o.ProviderIssueAfter, "provider-issue-after", o.ProviderIssueAfter, "how long a provider-wide outage lasts before each affected order's conditions say so (one status write per order on the way in and one out)")
	fs.IntVar(&o.WebhookConcurrency, "webhook-concurrency", o.WebhookConcurrency, "webhook deliveries attempted in parallel")
	fs.IntVar(&o.WebhookPerPartner, "webhook-partner-concurrency", o.WebhookPerPartner, "webhook deliveries attempted in parallel to one partner")
	fs.DurationVar(&o.DeliveryRetention, "delivery-retention", o.DeliveryRetention, "how long delivered and failed webhook deliveries are kept")
	fs.BoolVar(&o.AllowLoopbackWebhooks, "allow-loopback-webhooks", o.AllowLoopbackWebhooks, "let webhook deliveries reach loopback addresses (dev and tests only)")
	fs.StringVar(&o.ScreeningURL, "screening-url", os.Getenv("SWAPROUTER_SCREENING_URL"), "base URL of a screening service speaking the Chainalysis public sanctions API (GET /api/v1/address/{address}); default $SWAPROUTER_SCREENING_URL; empty: only the swaprouter-sanctions ConfigMap screens")
	fs.StringVar(&o.ScreeningAPIKey, "screening-api-key", os.Getenv("SWAPROUTER_SCREENING_API_KEY"), "X-API-Key of --screening-url (default $SWAPROUTER_SCREENING_API_KEY)")
	fs.DurationVar(&o.ScreeningTimeout, "screening-timeout", o.ScreeningTimeout, "bound of one order's screening by --screening-url; past it the service counts as down (the partner's onUnavailable decides)")
	fs.DurationVar(&o.ReviewBound, "review-bound", o.ReviewBound, "fail an order screening held for review after this long without approve or reject (ReviewExpired)")
	fs.DurationSliceVar(&o.WebhookSchedule, "webhook-retry-schedule", o.WebhookSchedule, "delay before each webhook delivery attempt, comma-separated: the first before attempt 1, each next after a failed attempt; the count is the number of attempts (empty: the design's 0s,5s,5m,30m,2h,5h,10h,10h; shorter for tests only)")
}

// Validate reports option combinations that cannot work.
func (o Options) Validate() error {
	if o.Namespace == "" {
		return fmt.Errorf("--namespace must not be empty")
	}
	if !o.Controllers && !o.Frontend {
		return fmt.Errorf("nothing to run: enable --controllers, --frontend or both")
	}
	// A standby controller replica would serve quotes without providers: run a leader-elected
	// controller process and a separate frontend process instead.
	if o.Controllers && o.Frontend && o.LeaderElection {
		return fmt.Errorf("--leader-elect needs --frontend=false: run the frontend as its own deployment")
	}
	if o.OrderConcurrency > 1 && o.ProviderConcurrency >= o.OrderConcurrency {
		return fmt.Errorf("--provider-concurrency (%d) must be below --order-concurrency (%d): one slow provider would hold every worker",
			o.ProviderConcurrency, o.OrderConcurrency)
	}
	for _, d := range o.WebhookSchedule {
		if d < 0 {
			return fmt.Errorf("--webhook-retry-schedule: negative delay %s", d)
		}
	}
	return nil
}

// System is a manager with every part o switched on added to it.
type System struct {
	Manager   manager.Manager
	Providers *providerset.Set
	Catalog   *catalog.Catalog
	// Frontend is nil unless Options.Frontend.
	Frontend *apiserver.Server
	// Archive is nil without Options.ArchiveDSN.
	Archive *archive.Postgres

	// fence checks the leader lease before deposit creation (nil without leader election).
	fence *leaderfence.Fence
}

// Frontend replicas run the RoutingProvider reconciler read-only (ReadOnly: true) to build
// their own adapters; these are the permissions that takes beyond the apiserver package's
// (provider tokens live in auth.FrontendSecret, the only Secret the frontend may read).
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=routingproviders,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,resourceNames=swaprouter-frontend-credentials,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,resourceNames=swaprouter-sanctions,verbs=get;list;watch

// New builds the manager and adds the controllers and frontend that o switches on. Start it
// with Manager.Start.
func New(cfg *rest.Config, o Options) (*System, error) {
	mgr, fence, err := newManager(cfg, o)
	if err != nil {
		return nil, err
	}
	sys := &System{Manager: mgr, Providers: providerset.New(), Catalog: catalog.New(o.Metrics), fence: fence}
	log := ctrl.Log.WithName("setup")
	if err := sys.addArchive(o); err != nil {
		return nil, err
	}

	// Events written in bounded memory (eventsink's header says why not client-go's sink).
	eventsClient, err := eventsv1client.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("events client: %w", err)
	}
	sink, err := eventsink.New(eventsClient, ctrl.Log.WithName("events"), o.Metrics)
	if err != nil {
		return nil, fmt.Errorf("event sink: %w", err)
	}
	if err := mgr.Add(sink); err != nil {
		return nil, fmt.Errorf("event sink: %w", err)
	}
	recorder := func(name string) events.EventRecorder { return sink.Recorder(mgr.GetScheme(), name) }

	// Every process needs the live providers: the controllers to track orders, the frontend
	// to quote. Only the controllers write RoutingProvider status.
	breakers := health.NewTracker(o.Metrics)
	// What this process measured of its provider calls: the frontend answers GET
	// /v1/providers with its quotes' share, the controllers publish theirs to status.calls.
	calls := &callstats.Window{}
	// The order reconciler's measure of settled orders, published beside the calls: the
	// frontends' speed and reliability preferences read it from status.calls.settlement.
	settlements := &callstats.Window{Bounds: &callstats.SettleBounds}
	providers := &controllers.RoutingProviderReconciler{
		Recorder:  recorder(controllers.RoutingProviderEventSource),
		Providers: sys.Providers, Catalog: sys.Catalog, ReadOnly: !o.Controllers,
		HTTPClient: ProviderHTTPClient(),
		// Each process judges providers from its own calls: quotes skip a failing provider
		// fast, orders keep their status while it fails.
		Health: breakers,
		Calls:  calls,
		// One budget per provider per process: the frontend's quotes and the order
		// reconciler's calls draw from it when both run here.
		Budgets: budget.New(o.Metrics),
		Metrics: o.Metrics,
	}
	if err := providers.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("routing provider controller: %w", err)
	}
	tierTable := tiers.Default()
	if o.TiersFile != "" {
		if tierTable, err = tiers.Load(o.TiersFile); err != nil {
			return nil, err
		}
	}
	if o.Controllers {
		if err := (&controllers.PartnerReconciler{Tiers: tierTable}).SetupWithManager(mgr); err != nil {
			return nil, fmt.Errorf("partner controller: %w", err)
		}
		if err := mgr.Add(&controllers.ProviderCallsPublisher{Client: mgr.GetClient(), Calls: calls, Settlements: settlements}); err != nil {
			return nil, err
		}
		orders := &controllers.SwapOrderReconciler{
			Recorder:                recorder(controllers.SwapOrderEventSource),
			Providers:               sys.Providers,
			Assets:                  sys.Catalog.Lookup,
			ExpiryGrace:             o.DepositExpiryGrace,
			UnknownAfter:            int32(o.UnknownAfter),
			CreateBound:             o.OrderCreateBound,
			WatchBound:              o.OrderWatchBound,
			ProviderIssueAfter:      o.ProviderIssueAfter,
			Health:                  breakers,
			Settlements:             settlements,
			MaxConcurrentReconciles: o.OrderConcurrency,
			ProviderConcurrency:     o.ProviderConcurrency,
			Metrics:                 o.Metrics,
			ReviewBound:             o.ReviewBound,
		}
		if sys.fence != nil {
			// Not a nil *Fence in the interface: that would be a non-nil Leader whose every
			// check fails, and no order would ever get a deposit address.
			orders.Leader = sys.fence
		}
		if sys.Archive != nil {
			orders.Archive = sys.Archive
			if err := (&controllers.OrderTTLSweeper{
				Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Archive: sys.Archive,
				Recorder:  mgr.GetEventRecorder(controllers.SwapOrderEventSource),
				Namespace: o.Namespace, TTL: o.OrderTTL, Log: ctrl.Log.WithName("order-ttl"), Metrics: o.Metrics,
			}).SetupWithManager(mgr); err != nil {
				return nil, err
			}
		}
		if err := orders.SetupWithManager(mgr); err != nil {
			return nil, fmt.Errorf("order controller: %w", err)
		}
		deliveries := &controllers.WebhookDeliveryReconciler{
			Recorder:                recorder(controllers.WebhookDeliveryEventSource),
			Guard:                   netguard.Options{AllowLoopback: o.AllowLoopbackWebhooks},
			Retention:               o.DeliveryRetention,
			MaxConcurrentReconciles: o.WebhookConcurrency,
			Endpoints:               delivery.NewEndpoints(delivery.EndpointOptions{MaxInFlight: o.WebhookPerPartner, Metrics: o.Metrics}),
			Metrics:                 o.Metrics,
		}
		if len(o.WebhookSchedule) > 0 {
			deliveries.Policy = delivery.DefaultPolicy()
			deliveries.Policy.Schedule = o.WebhookSchedule
		}
		redeliveries := &controllers.RedeliveryRequestReconciler{Recorder: recorder(controllers.RedeliveryRequestEventSource)}
		if sys.Archive != nil {
			deliveries.Archive, redeliveries.Archive = sys.Archive, sys.Archive
		}
		if err := deliveries.SetupWithManager(mgr); err != nil {
			return nil, fmt.Errorf("webhook delivery controller: %w", err)
		}
		if err := redeliveries.SetupWithManager(mgr); err != nil {
			return nil, fmt.Errorf("redelivery request controller: %w", err)
		}
	}
	if o.Frontend {
		router := &routing.Router{Providers: sys.Providers, Catalog: sys.Catalog}
		limiter, err := rateLimiter(o)
		if err != nil {
			return nil, err
		}
		keys, err := quoteKeys(o)
		if err != nil {
			return nil, err
		}
		screener, err := addScreening(mgr, o)
		if err != nil {
			return nil, err
		}
		slots, err := streamSlots(o)
		if err != nil {
			return nil, err
		}
		srv, err := apiserver.New(apiserver.Options{
			QuoteKeys:   keys,
			Tiers:       tierTable,
			Addr:        o.FrontendAddr,
			Namespace:   o.Namespace,
			Client:      mgr.GetClient(),
			APIReader:   mgr.GetAPIReader(),
			Informers:   mgr.GetCache(),
			Catalog:     sys.Catalog,
			Router:      router,
			Calls:       calls,
			Log:         ctrl.Log.WithName("apiserver"),
			Metrics:     o.Metrics,
			WaitTimeout: o.OrderWaitTimeout,
			Archive:     frontendArchive(sys.Archive),
			Screener:    screener,
			RateLimiter: limiter,
			StreamSlots: slots,

			QuotaFlushInterval:  o.QuotaFlushInterval,
			ShutdownTimeout:     o.APIShutdownTimeout,
			EventsHeartbeat:     o.EventsHeartbeat,
			EventsVisibilityLag: o.EventsVisibilityLag,
		})
		if err != nil {
			return nil, fmt.Errorf("frontend: %w", err)
		}
		if err := mgr.Add(srv); err != nil {
			return nil, err
		}
		if err := mgr.AddReadyzCheck("catalog", srv.CatalogReady); err != nil {
			return nil, err
		}
		sys.Frontend = srv
	}
	log.Info("system assembled", "namespace", o.Namespace, "controllers", o.Controllers, "frontend", o.Frontend)
	return sys, nil
}

// rateLimiter is the Redis-backed limiter with --redis-url, else nil (the frontend's own
// per-replica buckets).
func rateLimiter(o Options) (ratelimit.Allower, error) {
	if o.RedisURL == "" {
		ctrl.Log.WithName("setup").Info("no --redis-url: rate limits are per frontend replica")
		return nil, nil
	}
	fallback := ratelimit.InProcess{Limiter: ratelimit.New(), Now: time.Now}
	return redislimit.New(o.RedisURL, fallback, ctrl.Log.WithName("ratelimit"), o.Metrics)
}

// streamSlots counts event streams in Redis with --redis-url (like the rate limits), else nil
// (per replica).
func streamSlots(o Options) (streamslots.Slots, error) {
	if o.RedisURL == "" {
		return nil, nil
	}
	return redislimit.NewSlots(o.RedisURL, streamslots.NewInProcess(), ctrl.Log.WithName("streamslots"), o.Metrics)
}

// quoteKeys loads --quote-keys-file; without it, a random key (fine for one process).
func quoteKeys(o Options) (*tokenkeys.Keys, error) {
	if o.QuoteKeysFile == "" {
		ctrl.Log.WithName("setup").Info("no --quote-keys-file: quoteIds, listing cursors and event stream tokens are sealed with a random key and only open in this process")
		return tokenkeys.Random(), nil
	}
	return tokenkeys.Load(o.QuoteKeysFile)
}

// addArchive opens the archive (without connecting: the service starts while PostgreSQL is
// down), migrates it in the background on every replica and prunes it on the leader.
func (sys *System) addArchive(o Options) error {
	if o.ArchiveDSN == "" {
		ctrl.Log.WithName("setup").Info("no --archive-dsn: terminal orders stay in etcd and partners list live orders only")
		return nil
	}
	a, err := archive.Open(o.ArchiveDSN)
	if err != nil {
		return err
	}
	sys.Archive = a
	m := archive.NewMetrics(o.Metrics)
	if err := sys.Manager.Add(&archive.Upkeep{Archive: a, Metrics: m, Log: ctrl.Log.WithName("archive")}); err != nil {
		return err
	}
	if o.Controllers && o.ArchiveRetention > 0 {
		return sys.Manager.Add(&archive.Pruner{Archive: a, Metrics: m, Retention: o.ArchiveRetention, Log: ctrl.Log.WithName("archive-retention")})
	}
	return nil
}

// addScreening builds the frontend's screening sources: the sanctions list, kept in step with
// its ConfigMap by a watch on every replica (which is not ready before it has read it), and
// the HTTP screening service when configured.
func addScreening(mgr manager.Manager, o Options) (screening.Sources, error) {
	list, err := screening.NewSanctions(o.Metrics, time.Now)
	if err != nil {
		return nil, fmt.Errorf("sanctions list: %w", err)
	}
	watch := &sdnwatch.Watch{Informers: mgr.GetCache(), Namespace: o.Namespace, List: list, Log: ctrl.Log.WithName("sanctions-list")}
	if err := mgr.Add(watch); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("sanctions-list", watch.Ready); err != nil {
		return nil, err
	}
	sources := screening.Sources{list}
	if o.ScreeningURL != "" {
		sources = append(sources, &chainalysis.Client{BaseURL: o.ScreeningURL, APIKey: o.ScreeningAPIKey,
			HTTP: &http.Client{}, Timeout: o.ScreeningTimeout})
	}
	return sources, nil
}

// frontendArchive keeps a nil *Postgres from becoming a non-nil interface.
func frontendArchive(a *archive.Postgres) apiserver.Archive {
	if a == nil {
		return nil
	}
	return a
}

// newManager builds a manager with the shared scheme, cache scope, indexes and probes, and
// with leader election the fence on its lease.
func newManager(cfg *rest.Config, o Options) (manager.Manager, *leaderfence.Fence, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	leNamespace := o.LeaderElectionNamespace
	if leNamespace == "" {
		leNamespace = o.Namespace
	}
	var fence *leaderfence.Fence
	if o.LeaderElection && o.Controllers {
		// The lease lock controller-runtime would build, built here so the fence knows its
		// identity; requests bounded as controller-runtime bounds them.
		lock, err := leaderfence.NewLeaseLock(cfg, leNamespace, leaderElectionID, max(o.RenewDeadline/2, time.Second))
		if err != nil {
			return nil, nil, fmt.Errorf("leader election lock: %w", err)
		}
		fence = &leaderfence.Fence{Lock: lock, LeaseDuration: o.LeaseDuration}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme.New(),
		// The service keeps all its objects in one namespace; caching only it keeps memory
		// proportional to the service's own objects.
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{o.Namespace: {}},
			ByObject:          cacheByObject(o),
			// Managed fields stripped, repeated strings and label sets shared.
			DefaultTransform: intern.CacheTransform,
		},
		Client:                              client.Options{Cache: &client.CacheOptions{Unstructured: false}},
		MapperProvider:                      restmapping.NewProvider,
		Metrics:                             metricsOptions(o),
		HealthProbeBindAddress:              o.ProbeAddr,
		PprofBindAddress:                    o.PprofAddr,
		LeaderElection:                      o.LeaderElection && o.Controllers,
		LeaderElectionID:                    leaderElectionID,
		LeaderElectionNamespace:             leNamespace,
		LeaderElectionResourceLockInterface: fenceLock(fence),
		LeaseDuration:                       &o.LeaseDuration,
		RenewDeadline:                       &o.RenewDeadline,
		RetryPeriod:                         &o.RetryPeriod,
		// Step down promptly on shutdown so a rolling update hands over fast.
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       ptr(30 * time.Second),
		// controller-runtime refuses a controller name seen before in the process, which would
		// refuse every manager after the first a process builds (suites, the benchmark). The
		// names here are fixed and distinct, so the check can never catch anything in them.
		Controller: config.Controller{SkipNameValidation: ptr(true)},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("creating manager: %w", err)
	}
	if err := index.Register(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return nil, nil, fmt.Errorf("registering field indexes: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, nil, err
	}
	// Ready once the informers have synced: before that the frontend would answer 401/404
	// for partners and orders it simply has not seen yet.
	if err := mgr.AddReadyzCheck("informers", func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), time.Second)
		defer cancel()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return fmt.Errorf("informer caches not synced")
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	return mgr, fence, nil
}

// leaderElectionID names the controllers' Lease.
const leaderElectionID = "swaprouter-controllers.swap.swaprouter.dev"

// fenceLock is the fence's lock, or nil for controller-runtime's default.
func fenceLock(f *leaderfence.Fence) resourcelock.Interface {
	if f == nil {
		return nil
	}
	return f.Lock
}

// metricsOptions serves metrics the kubebuilder way: HTTPS behind controller-runtime's
// authentication and authorization filter unless MetricsSecure is off.
func metricsOptions(o Options) metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.MetricsAddr}
	if !o.MetricsSecure {
		return m
	}
	m.SecureServing = true
	m.FilterProvider = filters.WithAuthenticationAndAuthorization
	m.CertDir, m.CertName, m.KeyName = o.MetricsCertDir, o.MetricsCertName, o.MetricsKeyName
	if !o.EnableHTTP2 {
		m.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	}
	return m
}

// cacheByObject narrows what the cache holds of some kinds.
func cacheByObject(o Options) map[client.Object]cache.ByObject {
	byObject := map[client.Object]cache.ByObject{
		// Live orders only: an archived order leaves the cache, so memory follows the live
		// orders, not the TTL window or an archive outage's backlog.
		&swapv1.SwapOrder{}: {Label: liveOrders()},
		// Finished deliveries (one per transition, kept for days) without their payload:
		// only a redelivery reads it, through the API reader.
		&swapv1.WebhookDelivery{}: {Transform: delivery.CacheTransform},
	}
	// The sanctions list is the only ConfigMap the service reads (and its RBAC allows).
	byObject[&corev1.ConfigMap{}] = cache.ByObject{Field: fields.OneTermEqualSelector("metadata.name", sdnwatch.ConfigMapName)}
	if !o.Controllers {
		// A frontend process holds (and its RBAC lets it read) the one Secret it needs, never
		// the webhook signing secrets the controllers read.
		byObject[&corev1.Secret{}] = cache.ByObject{Field: fields.OneTermEqualSelector("metadata.name", auth.FrontendSecret)}
	}
	return byObject
}

// liveOrders selects SwapOrders not yet archived.
func liveOrders() labels.Selector {
	req, err := labels.NewRequirement(swapv1.LabelArchived, selection.NotEquals, []string{"true"})
	if err != nil {
		panic(err) // a constant, valid requirement
	}
	return labels.NewSelector().Add(*req)
}

func ptr[T any](v T) *T { return &v }

// ProviderHTTPClient is the client every provider adapter shares (the benchmarks' direct
// baselines use one like it). Go's default transport keeps two idle connections per host,
// so concurrent quotes and polls would dial (and tear down) a TCP connection for almost
// every call; the benchmark profile showed 20 % of CPU doing that.
// Timeouts are per call, from the RoutingProvider, through the request context.
func ProviderHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 512
	t.MaxIdleConnsPerHost = 256
	t.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: t}
}
