// Package apiserver is the /v1 HTTP frontend partners call: it authenticates keys, applies the
// rate limit and quote quota, answers quotes directly from the providers (through the router)
// and turns orders into SwapOrder objects whose reconciler does every provider side effect.
// It runs in the manager as a Runnable on every replica (no leader election) and reads through
// the manager's informer cache.
package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/keyuse"
	"github.com/swaprouter/swaprouter/internal/livebook"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	"github.com/swaprouter/swaprouter/internal/quota"
	"github.com/swaprouter/swaprouter/internal/quotebind"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
	"github.com/swaprouter/swaprouter/internal/routing"
	"github.com/swaprouter/swaprouter/internal/streamslots"
	"github.com/swaprouter/swaprouter/internal/tiers"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// Catalog is what the frontend needs of *catalog.Catalog.
type Catalog interface {
	List(chain, search string) []catalog.Asset
	Lookup(assetID string) (catalog.Asset, bool)
	SwappableTargets(from string) []string
	ProvidersFor(origin, destination string) []swapv1.ProviderID
	// Outage is the failure of a provider whose assets are not known yet (nil when none).
	Outage() (swapv1.ProviderID, error)
	// Known reports whether the catalog has heard from a provider (its assets or a failure).
	Known(id swapv1.ProviderID) bool
}

// Router is what the frontend needs of *routing.Router.
type Router interface {
	Quote(ctx context.Context, req provider.QuoteRequest) routing.Result
	Rates(ctx context.Context, base provider.QuoteRequest, targets []string) []routing.Rate
}

// Defaults of the Options a deployment tunes.
const (
	DefaultWaitTimeout        = 20 * time.Second
	DefaultQuotaFlushInterval = 5 * time.Second
	DefaultShutdownTimeout    = 25 * time.Second
)

// Options configure a Server. Client, APIReader, Catalog, Router and Namespace are required.
type Options struct {
	// Addr is the listen address, e.g. ":8080" (":0" picks a free port; see Server.Addr).
	Addr string
	// Namespace holds the Partners, their key Secrets, SwapOrders and WebhookDeliveries.
	Namespace string
	// Client reads through the informer cache (with the index package's field indexes) and
	// writes to the API server: the manager's GetClient().
	Client client.Client
	// APIReader reads around the cache where a stale read would be wrong (an order created a
	// moment ago by another replica, a Partner after a write conflict): GetAPIReader().
	APIReader client.Reader
	// Informers is the manager's cache. Order creation waits on its SwapOrder events; nil
	// (handler tests) means waits end only through NotifyOrder or their timeout.
	Informers cache.Informers
	Catalog   Catalog
	Router    Router
	// Calls is what this process measured of its provider calls (its quotes, for GET
	// /v1/providers); nil: none measured.
	Calls *callstats.Window
	// Archive holds terminal orders that left etcd; nil when the service runs without one.
	Archive Archive
	// Screener screens the addresses of every new order; nil screens nothing.
	Screener Screener
	// RateLimiter holds the per-key buckets; nil keeps them in this process (each replica
	// then admits the whole limit), redislimit shares them across replicas.
	RateLimiter ratelimit.Allower
	// Log receives the request log and errors; name it at the caller (e.g. "apiserver").
	Log logr.Logger
	// Metrics is where the Server's metrics are registered; nil: controller-runtime's
	// registry. Servers given the same registry count into the same series.
	Metrics prometheus.Registerer
	// QuoteKeys seal quoteIds, listing cursors and event stream tokens and positions (each
	// purpose its own associated data); every replica needs the same keyset. nil: a random
	// key, so these tokens only open in this process (dev, tests).
	QuoteKeys *tokenkeys.Keys
	// Tiers maps Partner.spec.tier to default limits; nil: tiers.Default().
	Tiers tiers.Table
	// StreamSlots caps each partner's concurrent event streams (its tier's eventStreams); nil
	// counts in this process, redislimit's Slots across replicas.
	StreamSlots streamslots.Slots
	// EventsHeartbeat is how often an idle event stream sends a comment (default 15s).
	EventsHeartbeat time.Duration
	// EventsVisibilityLag bounds how long after its occurredAt a transition reaches every
	// replica's cache (clock skew, status write, watch): what resuming an event stream
	// without a gap or a duplicate assumes (internal/eventcursor). Default 10s.
	EventsVisibilityLag time.Duration

	// WaitTimeout bounds how long order creation waits for the deposit address (DefaultWaitTimeout).
	WaitTimeout time.Duration
	// QuotaFlushInterval is how often quote counts and keys' last use are written to Partner
	// status (DefaultQuotaFlushInterval).
	QuotaFlushInterval time.Duration
	// ShutdownTimeout bounds the drain of in-flight requests on stop (DefaultShutdownTimeout).
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout and ReadTimeout guard against slow clients (defaults 5s and 15s).
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// IdleTimeout closes idle keep-alive connections (default 90s).
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds request headers (default 16 KiB).
	MaxHeaderBytes int
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

func (o *Options) defaults() {
	if o.QuoteKeys == nil {
		o.QuoteKeys = tokenkeys.Random()
	}
	if o.Tiers == nil {
		o.Tiers = tiers.Default()
	}
	if o.WaitTimeout <= 0 {
		o.WaitTimeout = DefaultWaitTimeout
	}
	if o.QuotaFlushInterval <= 0 {
		o.QuotaFlushInterval = DefaultQuotaFlushInterval
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 5 * time.Second
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 15 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 90 * time.Second
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 16 << 10
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Calls == nil {
		o.Calls = &callstats.Window{Now: o.Now}
	}
	if o.StreamSlots == nil {
		o.StreamSlots = streamslots.NewInProcess()
	}
	if o.EventsHeartbeat <= 0 {
		o.EventsHeartbeat = 15 * time.Second
	}
	if o.EventsVisibilityLag <= 0 {
		o.EventsVisibilityLag = 10 * time.Second
	}
	if o.RateLimiter == nil {
		o.RateLimiter = ratelimit.InProcess{Limiter: ratelimit.New(), Now: o.Now}
	}
}

// Server is the /v1 frontend.
type Server struct {
	opts    Options
	log     logr.Logger
	auth    *auth.Authenticator
	limiter ratelimit.Allower
	metrics *metrics
	quota   *quota.Counter
	// keyUse records when each key was last used (Partner status, coarsely).
	keyUse *keyuse.Recorder
	waiter *orderWaiter
	// quoteIDs issues and verifies quoteIds; cursors seals the listings' nextCursor.
	quoteIDs *quotebind.Issuer
	cursors  *tokenkeys.Tokens
	// eventTokens seals POST /v1/events/token's tokens; positions the event streams' ids.
	eventTokens, positions *tokenkeys.Tokens
	streamSlots            streamslots.Slots
	// hub passes order events to the open event streams (nil without Informers).
	hub *eventHub
	// stopping is closed when the server stops: open streams end, so shutdown does not wait
	// for them.
	stopping chan struct{}
	// book is the partners' live orders in listing order (nil without Informers).
	book    *livebook.Book
	handler http.Handler

	ready atomic.Bool
	// catalogLoaded latches once every enabled RoutingProvider was heard from (readyz).
	catalogLoaded atomic.Bool
	addr          atomic.Pointer[string]
	// observed, when set, sees the error code of every answered error (tests).
	observed func(route string, code apierror.Code)
}

var (
	_ manager.Runnable               = (*Server)(nil)
	_ manager.LeaderElectionRunnable = (*Server)(nil)
)

// The frontend reads partners, key hashes (auth.FrontendSecret, no other Secret), orders and
// deliveries through the cache, creates orders and redeliveries, patches deposit hints onto
// orders and quote counts and keys' last use onto partners.
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=partners,verbs=get;list;watch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=partners/status,verbs=get;patch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=swaporders,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=webhookdeliveries,verbs=get;list;watch
// +kubebuilder:rbac:groups=swap.swaprouter.dev,resources=redeliveryrequests,verbs=create
// +kubebuilder:rbac:groups="",resources=secrets,resourceNames=swaprouter-frontend-credentials,verbs=get;list;watch

// New builds a Server; Start serves it.
func New(opts Options) (*Server, error) {
	opts.defaults()
	switch {
	case opts.Client == nil || opts.APIReader == nil:
		return nil, errors.New("apiserver: Client and APIReader are required")
	case opts.Catalog == nil || opts.Router == nil:
		return nil, errors.New("apiserver: Catalog and Router are required")
	case opts.Namespace == "":
		return nil, errors.New("apiserver: Namespace is required")
	}
	s := &Server{
		opts:    opts,
		log:     opts.Log,
		auth:    auth.NewAuthenticator(opts.Client, opts.Namespace, opts.Now),
		limiter: opts.RateLimiter,
		metrics: newMetrics(opts.Metrics),
		quota:   quota.NewCounter(opts.Client, opts.APIReader, opts.Log.WithName("quota")),
		keyUse:  keyuse.NewRecorder(opts.Client, opts.Log.WithName("keyuse")),
		waiter:  newOrderWaiter(),

		quoteIDs: quotebind.NewIssuer(opts.QuoteKeys),
		cursors:  opts.QuoteKeys.For("listing cursor"),

		eventTokens: opts.QuoteKeys.For("event stream token"),
		positions:   opts.QuoteKeys.For("event stream position"),
		streamSlots: opts.StreamSlots,
		stopping:    make(chan struct{}),
	}
	if opts.Informers != nil {
		s.book = livebook.New(opts.Namespace)
		s.hub = newEventHub()
	}
	s.handler = s.routes()
	return s, nil
}

// Handler is the complete HTTP handler (routing, auth, limits, logging, metrics).
func (s *Server) Handler() http.Handler { return s.handler }

// NeedLeaderElection is false: every replica serves.
func (s *Server) NeedLeaderElection() bool { return false }

// Addr is the address the server listens on once Start has bound it, "" before.
func (s *Server) Addr() string {
	if a := s.addr.Load(); a != nil {
		return *a
	}
	return ""
}

// NotifyOrder wakes requests waiting on the SwapOrder of that name; the informer does this
// for every SwapOrder event.
func (s *Server) NotifyOrder(name string) { s.waiter.notify(name) }

// Start serves until ctx ends, then stops accepting, lets in-flight requests finish (within
// ShutdownTimeout) and writes the last quote counts.
func (s *Server) Start(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("apiserver: listen %s: %w", s.opts.Addr, err)
	}
	addr := ln.Addr().String()
	s.addr.Store(&addr)

	if err := s.watchCache(ctx); err != nil {
		_ = ln.Close()
		return err
	}

	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		// Order creation may wait WaitTimeout for the reconciler; leave room to answer.
		WriteTimeout:   s.opts.WaitTimeout + 15*time.Second,
		IdleTimeout:    s.opts.IdleTimeout,
		MaxHeaderBytes: s.opts.MaxHeaderBytes,
	}

	flushCtx, stopFlushing := context.WithCancel(context.Background())
	var flushers sync.WaitGroup
	flushers.Go(func() { s.quota.Run(flushCtx, s.opts.QuotaFlushInterval) })
	// Its last flush, when flushCtx ends, writes the uses of the requests drained below.
	flushers.Go(func() { s.keyUse.Run(flushCtx, s.opts.QuotaFlushInterval) })

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s.ready.Store(true)
	s.log.Info("serving /v1", "addr", addr)

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	s.ready.Store(false)
	close(s.stopping)

	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		s.log.Error(err, "in-flight requests did not finish in time")
	}
	stopFlushing()
	flushers.Wait()
	// Every request that could count a quote has finished; persist the rest and give back the
	// unspent allowance so the other replicas can answer it.
	if err := s.quota.Release(shutdownCtx); err != nil {
		s.log.Error(err, "final quote count flush")
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("apiserver: %w", serveErr)
	}
	return nil
}

// watchCache starts the informers the handlers read, hooks order events to the waiter and
// waits until they are synced, so the first requests do not each pay for an informer start.
func (s *Server) watchCache(ctx context.Context) error {
	if s.opts.Informers == nil {
		return nil
	}
	for _, obj := range []client.Object{&swapv1.Partner{}, &corev1.Secret{}, &swapv1.WebhookDelivery{}} {
		if _, err := s.opts.Informers.GetInformer(ctx, obj); err != nil {
			return fmt.Errorf("apiserver: informer for %T: %w", obj, err)
		}
	}
	inf, err := s.opts.Informers.GetInformer(ctx, &swapv1.SwapOrder{})
	if err != nil {
		return fmt.Errorf("apiserver: SwapOrder informer: %w", err)
	}
	// The book first: a request the waiter wakes lists what it waited for.
	reg, err := inf.AddEventHandler(s.book.Handler(s.waiter.eventHandler()))
	if err != nil {
		return fmt.Errorf("apiserver: SwapOrder event handler: %w", err)
	}
	hubReg, err := inf.AddEventHandler(s.hub.handler())
	if err != nil {
		return fmt.Errorf("apiserver: SwapOrder event handler: %w", err)
	}
	if !s.opts.Informers.WaitForCacheSync(ctx) || !toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced, hubReg.HasSynced) {
		return errors.New("apiserver: cache did not sync")
	}
	return nil
}
