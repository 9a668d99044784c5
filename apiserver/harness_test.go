package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/routing"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

const (
	testNS = "swap"
	eth    = "eip155:1/slip44:60"
	usdc   = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
	sol    = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	trx    = "tron:0x2b6653dc/slip44:195"
	// unroutable is in the asset list but no provider routes it anywhere.
	unroutable = "near:mainnet/slip44:397"
)

// fakeCatalog is a fixed asset list with the providers of each pair.
type fakeCatalog struct {
	assets []catalog.Asset
	pairs  map[[2]string][]swapv1.ProviderID
	// outage is a provider failing with none of its assets known (Outage).
	outage error
	// unheard are providers the catalog has not heard from (Known).
	unheard map[swapv1.ProviderID]bool
}

func (c *fakeCatalog) Outage() (swapv1.ProviderID, error) {
	if c.outage == nil {
		return "", nil
	}
	return swapv1.ProviderRouteA, c.outage
}

func (c *fakeCatalog) Known(id swapv1.ProviderID) bool { return !c.unheard[id] }

func (c *fakeCatalog) List(chain, search string) []catalog.Asset {
	var out []catalog.Asset
	for _, a := range c.assets {
		if (chain == "" || a.Chain == chain) && (search == "" || strings.Contains(strings.ToLower(a.Symbol+" "+a.Name), strings.ToLower(search))) {
			out = append(out, a)
		}
	}
	return out
}

func (c *fakeCatalog) Lookup(id string) (catalog.Asset, bool) {
	for _, a := range c.assets {
		if a.AssetID == id {
			return a, true
		}
	}
	return catalog.Asset{}, false
}

func (c *fakeCatalog) SwappableTargets(from string) []string {
	var out []string
	for pair := range c.pairs {
		if pair[0] == from {
			out = append(out, pair[1])
		}
	}
	return out
}

func (c *fakeCatalog) ProvidersFor(origin, destination string) []swapv1.ProviderID {
	return c.pairs[[2]string{origin, destination}]
}

func newFakeCatalog() *fakeCatalog {
	ab := []swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB}
	return &fakeCatalog{
		assets: []catalog.Asset{
			{AssetID: eth, Chain: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18, Providers: ab},
			{AssetID: usdc, Chain: "eth", Symbol: "USDC", Name: "USD Coin", Decimals: 6, Providers: ab},
			{AssetID: sol, Chain: "sol", Symbol: "SOL", Name: "Solana", Decimals: 9, Providers: ab},
			{AssetID: trx, Chain: "tron", Symbol: "TRX", Name: "Tron", Decimals: 6, Providers: ab[1:]},
			{AssetID: unroutable, Chain: "near", Symbol: "NEAR", Name: "Near", Decimals: 24, Providers: ab[:1]},
		},
		pairs: map[[2]string][]swapv1.ProviderID{
			{eth, usdc}: ab, {eth, sol}: ab, {eth, trx}: ab[1:], {usdc, sol}: ab, {sol, trx}: ab[1:],
		},
	}
}

// fakeRouter answers each pair with a fixed routing.Result (the zero Result: nobody routes it).
type fakeRouter struct {
	mu      sync.Mutex
	results map[[2]string]routing.Result
	calls   []provider.QuoteRequest
}

func (f *fakeRouter) Quote(_ context.Context, req provider.QuoteRequest) routing.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, req)
	return f.results[[2]string{req.OriginAsset, req.DestinationAsset}]
}

func (f *fakeRouter) Rates(ctx context.Context, base provider.QuoteRequest, targets []string) []routing.Rate {
	out := make([]routing.Rate, len(targets))
	for i, to := range targets {
		req := base
		req.DestinationAsset = to
		out[i] = routing.Rate{To: to, Result: f.Quote(ctx, req)}
	}
	return out
}

func (f *fakeRouter) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func candidate(id swapv1.ProviderID, in, out string) swapv1.QuoteCandidate {
	return swapv1.QuoteCandidate{ProviderID: id, AmountIn: in, AmountOut: out, MinAmountOut: out,
		EstimatedTimeSeconds: 60, Limits: &swapv1.QuoteLimits{MinAmountIn: "1000", MaxAmountIn: "999999999"}}
}

func newFakeRouter() *fakeRouter {
	a := candidate(swapv1.ProviderRouteA, "5000", "900")
	b := candidate(swapv1.ProviderRouteB, "5000", "950")
	upstream := &provider.Upstream{Status: 503, Path: "POST /v0/quote"}
	return &fakeRouter{results: map[[2]string]routing.Result{
		{eth, usdc}: {Candidates: []provider.Quote{a, b}, Best: &b,
			Errors: nil},
		{eth, sol}: {Errors: []routing.ProviderError{
			{ProviderID: swapv1.ProviderRouteA, Err: &provider.Error{Provider: swapv1.ProviderRouteA, Kind: provider.KindAmountTooLow, Limit: "1000"}},
			{ProviderID: swapv1.ProviderRouteB, Err: &provider.Error{Provider: swapv1.ProviderRouteB, Kind: provider.KindTimeout}},
		}},
		{eth, trx}: {Errors: []routing.ProviderError{
			{ProviderID: swapv1.ProviderRouteB, Err: &provider.Error{Provider: swapv1.ProviderRouteB, Kind: provider.KindUpstream, Detail: "provider answered 503", Upstream: upstream}},
		}},
		{usdc, sol}: {Candidates: []provider.Quote{a}, Best: &a, Errors: []routing.ProviderError{
			{ProviderID: swapv1.ProviderRouteB, Err: &provider.Error{Provider: swapv1.ProviderRouteB, Kind: provider.KindTimeout}},
		}},
		{sol, trx}: {Errors: []routing.ProviderError{
			{ProviderID: swapv1.ProviderRouteB, Err: &provider.Error{Provider: swapv1.ProviderRouteB, Kind: provider.KindAmountTooHigh, Limit: "5000"}},
		}},
		{sol, eth}: {Errors: []routing.ProviderError{
			{ProviderID: swapv1.ProviderRouteA, Err: &provider.Error{Provider: swapv1.ProviderRouteA, Kind: provider.KindTimeout, Upstream: &provider.Upstream{Path: "POST /v0/quote"}}},
		}},
	}}
}

// Partners of the handler tests: acme (the caller unless a test says otherwise) and globex.
const (
	acmeKey     = "acme-key-1"
	acmeSecret  = "sk_acme_secret"
	globexKey   = "globex-key-1"
	globexSec   = "sk_globex_secret"
	acmeOrigin  = "https://app.acme.example"
	expiredKey  = "acme-key-old"
	limitedKey  = "tiny-key-1"
	limitedSec  = "sk_tiny_secret"
	quotaKey    = "quota-key-1"
	quotaSecret = "sk_quota_secret"
)

func partnerObj(name string, spec swapv1.PartnerSpec) *swapv1.Partner {
	return &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS}, Spec: spec}
}

func keyFor(id string) swapv1.PartnerKey {
	return swapv1.PartnerKey{ID: id, SecretRef: swapv1.SecretKeyRef{Name: "key-" + id, Key: "sha256"}}
}

func secretFor(id, secret string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "key-" + id, Namespace: testNS},
		Data:       map[string][]byte{"sha256": []byte(auth.HashSecret(secret))},
	}
}

// harness is a Server over the fake client, catalog and router.
type harness struct {
	t      *testing.T
	srv    *Server
	client client.Client
	router *fakeRouter
	now    time.Time
	// metrics is this Server's own registry.
	metrics *prometheus.Registry

	mu sync.Mutex
	// reconcile plays the SwapOrder reconciler: called with every created order, its status
	// changes are written. nil leaves orders waiting.
	reconcile func(o *swapv1.SwapOrder)
	// failCreate makes the next SwapOrder create fail with an unexpected error (createErr
	// when set).
	failCreate bool
	createErr  error
	// created, when set, receives the name of every SwapOrder created.
	created chan string
}

// issueAddress is the usual reconciler answer: PENDING with an address.
func issueAddress(o *swapv1.SwapOrder) {
	o.Status.Status = swapv1.OrderPending
	o.Status.StatusReason = "DepositAddressIssued"
	o.Status.DepositAddress = "0xdeposit" + o.Spec.OrderID[4:12]
	o.Status.DepositDeadline = &metav1.Time{Time: time.Date(2026, 3, 10, 13, 0, 0, 0, time.UTC)}
	o.Status.LastSeq = 1
	o.Status.History = []swapv1.StatusTransition{{Seq: 1, Status: swapv1.OrderPending, Reason: "DepositAddressIssued",
		At: swapv1.NewPreciseTime(time.Date(2026, 3, 10, 12, 0, 5, 0, time.UTC))}}
}

func newHarness(t *testing.T, extra ...client.Object) *harness {
	t.Helper()
	h := &harness{t: t, router: newFakeRouter(), now: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), reconcile: issueAddress,
		metrics: prometheus.NewRegistry()}
	past := metav1.NewTime(h.now.Add(-time.Hour))
	expired := keyFor(expiredKey)
	expired.ExpiresAt = &past
	objs := []client.Object{
		partnerObj("acme", swapv1.PartnerSpec{RequestsPerMinute: 300, AllowedOrigins: []string{acmeOrigin},
			Keys:    []swapv1.PartnerKey{keyFor(acmeKey), expired},
			Webhook: &swapv1.PartnerWebhook{URL: "https://hooks.acme.example/swap", Enabled: true}}),
		partnerObj("globex", swapv1.PartnerSpec{RequestsPerMinute: 300, Keys: []swapv1.PartnerKey{keyFor(globexKey)}}),
		partnerObj("tiny", swapv1.PartnerSpec{RequestsPerMinute: 2, RequireOrigin: false, Keys: []swapv1.PartnerKey{keyFor(limitedKey)}}),
		partnerObj("quota", swapv1.PartnerSpec{MonthlyQuoteQuota: 3, Keys: []swapv1.PartnerKey{keyFor(quotaKey)}}),
		secretFor(acmeKey, acmeSecret), secretFor(expiredKey, acmeSecret), secretFor(globexKey, globexSec),
		secretFor(limitedKey, limitedSec), secretFor(quotaKey, quotaSecret),
	}
	b := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append(objs, extra...)...).
		WithStatusSubresource(&swapv1.SwapOrder{}, &swapv1.Partner{}, &swapv1.WebhookDelivery{}).
		WithInterceptorFuncs(interceptor.Funcs{Create: h.interceptCreate})
	index.Each(func(obj client.Object, field string, fn client.IndexerFunc) { b.WithIndex(obj, field, fn) })
	h.client = b.Build()

	srv, err := New(Options{
		Namespace:   testNS,
		Client:      trimmingCache{h.client},
		APIReader:   h.client,
		Catalog:     newFakeCatalog(),
		Router:      h.router,
		Log:         logr.Discard(),
		WaitTimeout: 200 * time.Millisecond,
		Now:         func() time.Time { return h.now },
		Metrics:     h.metrics,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.observed = recordObserved
	srv.ready.Store(true)
	h.srv = srv
	return h
}

// trimmingCache lists deliveries as the manager's cache holds them (delivery.CacheTransform:
// finished ones without their payload); the API reader has them whole.
type trimmingCache struct{ client.Client }

func (c trimmingCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	if l, ok := list.(*swapv1.WebhookDeliveryList); ok {
		for i := range l.Items {
			_, _ = delivery.CacheTransform(&l.Items[i])
		}
	}
	return nil
}

// interceptCreate creates the object and, for SwapOrders, lets the fake reconciler answer
// right away and wakes the waiters as the informer would.
func (h *harness) interceptCreate(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	o, isOrder := obj.(*swapv1.SwapOrder)
	h.mu.Lock()
	fail, reconcile := h.failCreate && isOrder, h.reconcile
	h.failCreate = false
	h.mu.Unlock()
	if fail {
		if h.createErr != nil {
			return h.createErr
		}
		return io.ErrUnexpectedEOF
	}
	if err := c.Create(ctx, obj, opts...); err != nil {
		return err
	}
	if isOrder && h.created != nil {
		h.created <- o.Name
	}
	if !isOrder || reconcile == nil {
		return nil
	}
	h.writeStatus(o.Name, reconcile)
	return nil
}

// writeStatus applies change to the stored order's status, as the reconciler would.
func (h *harness) writeStatus(name string, change func(*swapv1.SwapOrder)) {
	h.t.Helper()
	ctx := context.Background()
	o := &swapv1.SwapOrder{}
	if err := h.client.Get(ctx, client.ObjectKey{Namespace: testNS, Name: name}, o); err != nil {
		h.t.Fatal(err)
	}
	change(o)
	if err := h.client.Status().Update(ctx, o); err != nil {
		h.t.Fatal(err)
	}
	h.srv.NotifyOrder(name)
}

func (h *harness) setReconcile(f func(*swapv1.SwapOrder)) {
	h.mu.Lock()
	h.reconcile = f
	h.mu.Unlock()
}

// req describes one request; zero fields mean acme's key, no body, no extra headers.
type req struct {
	method, path string
	body         any
	keyID        string
	secret       string
	noAuth       bool
	headers      map[string]string
}

func (h *harness) do(r req) *httptest.ResponseRecorder {
	h.t.Helper()
	var body io.Reader
	switch b := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		body = bytes.NewReader(raw)
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	if r.body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if !r.noAuth {
		keyID, secret := r.keyID, r.secret
		if keyID == "" {
			keyID, secret = acmeKey, acmeSecret
		}
		hr.Header.Set("X-Key-Id", keyID)
		hr.Header.Set("Authorization", "Bearer "+secret)
	}
	for k, v := range r.headers {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, hr)
	validateAnswer(h.t, hr, rec)
	return rec
}

// expectError checks an error answer: status, code, and the compact shape.
func expectError(t *testing.T, rec *httptest.ResponseRecorder, code apierror.Code) map[string]any {
	t.Helper()
	if rec.Code != code.Status() {
		t.Fatalf("status %d, want %d (%s); body %s", rec.Code, code.Status(), code, rec.Body)
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("error body is not JSON: %q", rec.Body)
	}
	if body["error"] != string(code) {
		t.Fatalf("error %v, want %q; body %s", body["error"], code, rec.Body)
	}
	for k := range body {
		if k != "error" && k != "detail" && k != "upstream" && (k != "quote" || code != apierror.QuoteChanged) {
			t.Errorf("unexpected error field %q in %s", k, rec.Body)
		}
	}
	return body
}

func decode[T any](t *testing.T, rec *httptest.ResponseRecorder, want int) T {
	t.Helper()
	if rec.Code != want {
		t.Fatalf("status %d, want %d; body %s", rec.Code, want, rec.Body)
	}
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("decoding %q: %v", rec.Body, err)
	}
	return v
}

// observedCodes collects every (route, code) the handler tests provoked, checked in TestMain.
var (
	observedMu    sync.Mutex
	observedCodes = map[[2]string]bool{}
)

func recordObserved(route string, code apierror.Code) {
	observedMu.Lock()
	observedCodes[[2]string{route, string(code)}] = true
	observedMu.Unlock()
}

func orderBody() map[string]any {
	return map[string]any{
		"originAsset": eth, "destinationAsset": usdc, "amount": "5000",
		"sender": "0x1111111111111111111111111111111111111111", "recipient": "0x2222222222222222222222222222222222222222", "providerId": "route_B",
	}
}

func quoteBody(dry bool) map[string]any {
	return map[string]any{"originAsset": eth, "destinationAsset": usdc, "amount": "5000",
		"sender": "0x1111111111111111111111111111111111111111", "recipient": "0x2222222222222222222222222222222222222222", "dry": dry}
}

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}
