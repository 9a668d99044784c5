// Package consumerapp is the consumer swap app: a web page (embedded, see package web) and its
// same-origin backend under /api/. The backend is a client of /v1 like any partner: it holds
// the partner key (the browser never sees it), throttles each end user so one cannot exhaust
// the partner's budget, retries as the contract says, and pushes order status to the page
// with server-sent events.
package consumerapp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
	"github.com/swaprouter/swaprouter/internal/consumerapp/web"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
	"github.com/swaprouter/swaprouter/pkg/client"
)

// Options configure the app. Zero values of the limits and intervals take the defaults.
type Options struct {
	// APIURL is the /v1 frontend's base URL; Key the partner key the app calls it with (a
	// KeyDir follows a mounted Secret through a rotation).
	APIURL string
	Key    upstream.Keys
	// SimulatorURL, set only in the dev system, enables the page's "Simulate deposit".
	SimulatorURL string
	// ExplorerLinks links transactions to the chains' public explorers; set it only when
	// the providers are real (never in the dev system, whose transactions are simulated).
	ExplorerLinks bool
	// PerSession and PerClientAddress are each end user's requests per minute: a session's,
	// and a client address's (an IPv6 /64) shared by its sessions, sized for one household.
	PerSession, PerClientAddress int
	// TrustedProxies are the reverse proxies (an ingress) whose X-Forwarded-For and
	// X-Forwarded-Proto name the client's address and scheme.
	TrustedProxies []netip.Prefix
	// ThrottleClock is the throttle's time (time.Now when nil); a test holds it still so a
	// spent budget stays spent however slowly the test runs.
	ThrottleClock func() time.Time
	// PollMin and PollMax bound the /v1 status poll of an order that pages follow (the
	// contract asks for 10–15 s); one poll serves every page following the order.
	PollMin, PollMax time.Duration
	// StreamsPerSession and StreamsPerOrder cap open status streams.
	StreamsPerSession, StreamsPerOrder int
	// AssetsTTL is how long the asset list is reused before /v1 is asked again.
	AssetsTTL time.Duration
	Log       logr.Logger
	// Metrics receives the app's metrics (requests by route and code, durations); nil keeps
	// them unregistered.
	Metrics prometheus.Registerer
	// HTTPClient calls /v1 and the simulator.
	HTTPClient *http.Client
}

// The defaults of the end-user limits. A token bucket lets a client spend up to twice its
// per-minute rate within one minute, so the requests of one client address cost the app's
// key at most 50 /v1 calls a minute: under 2 % of the enterprise tier's 3,000, the tier
// config/app's Partner is on.
const (
	DefaultPerSession        = 20
	DefaultPerClientAddress  = 25
	DefaultStreamsPerSession = 4
	DefaultStreamsPerOrder   = 8
)

func (o Options) withDefaults() Options {
	if o.PerSession <= 0 {
		o.PerSession = DefaultPerSession
	}
	if o.PerClientAddress <= 0 {
		o.PerClientAddress = DefaultPerClientAddress
	}
	if o.PollMin <= 0 {
		o.PollMin = 10 * time.Second
	}
	if o.PollMax < o.PollMin {
		o.PollMax = max(o.PollMin, 15*time.Second)
	}
	if o.StreamsPerSession <= 0 {
		o.StreamsPerSession = DefaultStreamsPerSession
	}
	if o.StreamsPerOrder <= 0 {
		o.StreamsPerOrder = DefaultStreamsPerOrder
	}
	if o.ThrottleClock == nil {
		o.ThrottleClock = time.Now
	}
	if o.AssetsTTL <= 0 {
		o.AssetsTTL = time.Minute
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 45 * time.Second}
	}
	return o
}

// Server is the app's HTTP handler.
type Server struct {
	opts     Options
	api      *client.ClientWithResponses
	retrier  *upstream.Retrier // sends /v1 calls and the simulated chain's deposits
	key      []byte            // signs session cookies and CSRF tokens
	proxies  proxies
	throttle *throttle
	assets   *assetCache
	// providers are the routes' display names and health notices by provider id.
	providers *cached[providerBoard]
	recent    *recentOrders
	feeds     *feeds
	events    *orderEvents
	handler   http.Handler
}

// New builds the app.
func New(o Options) (*Server, error) {
	o = o.withDefaults()
	if o.APIURL == "" || o.Key == nil || o.Key.Current().ID == "" || o.Key.Current().Secret == "" {
		return nil, errors.New("the app needs the /v1 URL and a partner key")
	}
	s := &Server{
		opts:    o,
		retrier: &upstream.Retrier{HTTP: o.HTTPClient, Log: o.Log.WithName("upstream")},
		key:     make([]byte, 32),
		proxies: o.TrustedProxies,
		recent:  newRecentOrders(),
	}
	var err error
	s.api, err = upstream.New(o.APIURL, o.Key, s.retrier, func(ctx context.Context, r *http.Request) error {
		r.Header.Set("X-Request-Id", requestID(ctx))
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.feeds = newFeeds(s.readFeed, s.pollInterval, o.StreamsPerSession, o.StreamsPerOrder)
	transport := o.HTTPClient.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	events, err := newOrderEvents(o.APIURL, func(r *http.Request) { o.Key.Current().Authorize(r) },
		transport, s.retryEvents, o.Log.WithName("events"))
	if err != nil {
		return nil, err
	}
	events.wake, events.wakeAll = s.feeds.pokeOrder, s.feeds.pokeAll
	s.feeds.events, s.events = events, events
	_, _ = rand.Read(s.key)
	s.throttle = &throttle{limiter: ratelimit.New(), perSession: o.PerSession, perClientAddress: o.PerClientAddress,
		now: o.ThrottleClock, client: s.proxies.client}
	s.assets = &assetCache{cached[[]client.Asset]{ttl: o.AssetsTTL, fetch: s.fetchAssets}}
	s.providers = &cached[providerBoard]{ttl: providersTTL, fetch: s.fetchProviders}

	mux := http.NewServeMux()
	api := func(pattern string, h func(http.ResponseWriter, *http.Request, string)) {
		mux.Handle(pattern, s.guarded(h))
	}
	api("GET /api/session", s.sessionInfo)
	api("GET /api/assets", s.listAssets)
	api("POST /api/rates", s.rates)
	api("POST /api/quote", s.quote)
	api("GET /api/address-check", s.addressCheck)
	api("GET /api/orders", s.listOrders)
	api("POST /api/orders", s.createOrder)
	api("GET /api/orders/{id}", s.getOrder)
	api("GET /api/orders/{id}/events", s.orderEvents)
	api("GET /api/orders/{id}/qr.png", s.qrCode)
	api("GET /api/orders/{id}/receipt", s.orderReceipt)
	api("POST /api/orders/{id}/deposit", s.depositHint)
	api("POST /api/orders/{id}/simulate-deposit", s.simulateDeposit)
	mux.Handle("/api/", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeProblem(w, http.StatusNotFound, Problem{Code: "not found", Message: "No such page.", Action: "Reload the app."})
	}))
	mux.Handle("GET /order/{id}", web.Page())
	mux.Handle("/", web.Handler())
	s.handler = logged(o.Log, newMetrics(o.Metrics), secured(mux))
	return s, nil
}

// ServeHTTP serves the page and /api/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// The server's timeouts, as /v1's: a slow or idle client cannot hold a connection. A request
// may wait for /v1's order creation, so writes get /v1's own bound and a margin; a status
// stream extends the write deadline for each event.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 50 * time.Second
	idleTimeout       = 90 * time.Second
)

// Serve answers on ln until ctx ends, then drains in-flight requests briefly (live status
// streams end with ctx).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// guarded gives a handler the user's session, and refuses what the throttle or the CSRF check
// refuses before any /v1 budget is spent.
func (s *Server) guarded(h func(http.ResponseWriter, *http.Request, string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := s.session(w, r)
		w.Header().Set("Cache-Control", "no-store")
		if r.Method == http.MethodPost && !sameOrigin(r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site"), r.Host,
			r.Header.Get(csrfHeader), csrfToken(s.key, sid)) {
			writeProblem(w, http.StatusForbidden, Problem{Code: "csrf", Message: "This request did not come from the swap page.", Action: "Reload the page and try again."})
			return
		}
		if ok, d := s.throttle.allow(sid, r); !ok {
			w.Header().Set("Retry-After", strconv.FormatInt(d.RetryAfterSeconds(), 10))
			p := explain("too many requests", "", http.StatusTooManyRequests)
			p.Action = "Wait " + strconv.FormatInt(d.RetryAfterSeconds(), 10) + " seconds and try again."
			writeProblem(w, http.StatusTooManyRequests, p)
			return
		}
		h(w, r, sid)
	})
}

// sessionInfo is what the page needs first: its CSRF token and what this deployment offers.
func (s *Server) sessionInfo(w http.ResponseWriter, r *http.Request, sid string) {
	writeJSON(w, http.StatusOK, map[string]any{
		"csrfToken":   csrfToken(s.key, sid),
		"simulator":   s.opts.SimulatorURL != "",
		"pollSeconds": s.opts.PollMin.Seconds(),
	})
}

// answer is what every generated /v1 response tells.
type answer interface {
	StatusCode() int
	GetBody() []byte
}

// refused turns a /v1 call's outcome (after the contract's retries) into what the page hears:
// nil for a 2xx answer, else the Problem to show and the status to answer the page with.
func refused(ctx context.Context, op string, resp answer, err error) (*Problem, int) {
	if err != nil {
		code := "upstream error" // an answer that is not the document's
		if _, transport := errors.AsType[*url.Error](err); transport {
			code = "unreachable"
		}
		logr.FromContextOrDiscard(ctx).Error(err, "/v1 call failed", "call", op)
		p := explain(code, "", http.StatusBadGateway)
		return &p, http.StatusBadGateway
	}
	status := resp.StatusCode()
	if status >= 200 && status < 300 {
		return nil, status
	}
	var e client.Error
	_ = json.Unmarshal(resp.GetBody(), &e)
	code, detail := string(e.Error), deref(e.Detail)
	if status >= 500 || status == http.StatusUnauthorized || status == http.StatusForbidden {
		// The partner key or the service is at fault, not the user: log it, say "busy".
		logr.FromContextOrDiscard(ctx).Info("/v1 refused", "call", op, "status", status, "error", code, "detail", detail)
		status, code = http.StatusBadGateway, "upstream error"
	}
	p := explain(code, detail, status)
	return &p, status
}

// pollInterval is the wait before a followed order is read again: none while the partner's
// event stream tells each change, else a poll delay drawn uniformly from [PollMin, PollMax].
func (s *Server) pollInterval() time.Duration {
	if s.events.up() {
		return 0
	}
	return s.retryEvents()
}

// retryEvents draws a delay uniformly from [PollMin, PollMax]: the poll interval, and the
// wait before the event stream is tried again.
func (s *Server) retryEvents() time.Duration {
	return s.opts.PollMin + time.Duration(mrand.Int64N(int64(s.opts.PollMax-s.opts.PollMin)+1))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeProblem(w http.ResponseWriter, status int, p Problem) { writeJSON(w, status, p) }

// decodeBody reads a small JSON body into v, answering 400 itself when it cannot.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeProblem(w, http.StatusBadRequest, explain("invalid request", "the form could not be read", http.StatusBadRequest))
		return false
	}
	return true
}
