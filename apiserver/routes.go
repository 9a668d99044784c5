package apiserver

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// route is one endpoint. The table below is the single source for the mux, the request log's
// route label and the OpenAPI completeness test. The error codes a route can answer are its
// operation's in the OpenAPI source (documentedErrors, generated from x-errors).
type route struct {
	method string
	path   string
	// public routes skip authentication and limits.
	public bool
	// streamToken routes also accept a POST /v1/events/token token in ?token= instead of
	// the key's headers.
	streamToken bool
	handle      func(s *Server, w http.ResponseWriter, r *http.Request) error
}

func (rt route) pattern() string { return rt.method + " " + rt.path }

// documentedError is an error the OpenAPI source lists for an operation, with the status of
// its response: a code, or the pattern of a code whose text depends on the installation.
type documentedError struct {
	status  int
	code    apierror.Code
	pattern *regexp.Regexp
}

func (d documentedError) matches(c apierror.Code) bool {
	if d.pattern != nil {
		return d.pattern.MatchString(string(c))
	}
	return d.code == c
}

// documents reports whether the route's operation lists code (under any status).
func (rt route) documents(code apierror.Code) bool {
	return slices.ContainsFunc(documentedErrors[rt.pattern()], func(d documentedError) bool { return d.matches(code) })
}

// routerCodes are answered by the router itself for requests that match no route.
var routerCodes = []apierror.Code{apierror.NotFound, apierror.MethodNotAllowed}

var routeTable = []route{
	{method: "GET", path: "/v1/assets", handle: (*Server).listAssets},
	{method: "POST", path: "/v1/quote", handle: (*Server).quote},
	{method: "POST", path: "/v1/order", handle: (*Server).createOrder},
	{method: "GET", path: "/v1/order/{id}", handle: (*Server).getOrder},
	{method: "GET", path: "/v1/order/{id}/receipt", handle: (*Server).orderReceipt},
	{method: "GET", path: "/v1/orders", handle: (*Server).listOrders},
	{method: "POST", path: "/v1/order/{id}/deposit", handle: (*Server).submitDeposit},
	{method: "POST", path: "/v1/rates", handle: (*Server).rates},
	{method: "GET", path: "/v1/swappable-targets", handle: (*Server).swappableTargets},
	{method: "GET", path: "/v1/webhooks/deliveries", handle: (*Server).listDeliveries},
	{method: "POST", path: "/v1/webhooks/deliveries/{eventId}/redeliver", handle: (*Server).redeliver},
	{method: "GET", path: "/v1/usage", handle: (*Server).usage},
	{method: "GET", path: "/v1/providers", handle: (*Server).listProviders},
	{method: "GET", path: "/.well-known/jwks.json", public: true, handle: (*Server).receiptKeys},
	{method: "GET", path: "/v1/events", streamToken: true, handle: (*Server).events},
	{method: "POST", path: "/v1/events/token", handle: (*Server).issueEventToken},
	{method: "GET", path: "/v1/openapi.json", public: true, handle: (*Server).openAPI},
	{method: "GET", path: "/healthz", public: true, handle: (*Server).healthz},
	{method: "GET", path: "/readyz", public: true, handle: (*Server).readyz},
}

// routes assembles the handler: request id, log and metrics around everything, CORS headers
// for allowed origins, then either a route's handler (behind authentication and limits unless
// public), the CORS preflight, or a JSON 404/405.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routeTable {
		h := s.endpoint(rt)
		if !rt.public {
			h = s.authenticated(h, rt.streamToken)
		}
		mux.Handle(rt.pattern(), h)
	}
	return s.observe(s.cors(s.dispatch(mux)))
}

// endpoint adapts an error-returning handler: *apierror.Error is written as is, anything else
// is logged and answered with `internal error`.
func (s *Server) endpoint(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := rt.handle(s, w, r)
		if err == nil {
			return
		}
		s.writeError(w, r, err)
	})
}

// preflightPattern is the route label of CORS preflights. They are answered outside the mux:
// an "OPTIONS /v1/" pattern would turn every unknown /v1 path into a 405.
const preflightPattern = "OPTIONS /v1/"

// dispatch sends CORS preflights to preflight, and answers requests no route matches with the
// API's JSON errors instead of the mux's plain-text ones, keeping the mux's 404 vs 405
// decision and its Allow header.
func (s *Server) dispatch(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && strings.HasPrefix(r.URL.Path, "/v1/") {
			r.Pattern = preflightPattern
			s.preflight(w, r)
			return
		}
		if !unmatched(mux, w, r) {
			mux.ServeHTTP(w, r)
		}
	})
}

// unmatched writes the 404 or 405 for a request no pattern matches and reports whether it did.
func unmatched(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) bool {
	h, pattern := mux.Handler(r)
	if pattern != "" {
		return false
	}
	probe := &statusProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	e := apierror.Newf(apierror.NotFound, "no route for %s %s", r.Method, r.URL.Path)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		e = apierror.Newf(apierror.MethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path)
	}
	infoFrom(r.Context()).code = e.Code
	apierror.Write(w, e)
	return true
}

// statusProbe records what the mux's own 404/405 handler would answer, discarding the body.
type statusProbe struct {
	header http.Header
	status int
}

func (p *statusProbe) Header() http.Header         { return p.header }
func (p *statusProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *statusProbe) WriteHeader(status int)      { p.status = status }
