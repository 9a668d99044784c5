package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/routing"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// Fuzz targets for the /v1 frontend: every POST body, the auth headers, the Idempotency-Key,
// the amount rule, the listings' cursor and the quoteId. The server runs over the fake client with a router that quotes every pair
// and a stand-in reconciler that issues a deposit address at once, so valid input always
// succeeds and any 5xx is the frontend's own failure (a panic is answered as a 500 too).
//
// `go test` runs the seeds below and those under testdata/fuzz; hack/fuzz.sh runs each target
// with -fuzz for longer.

// okRouter quotes every pair it is asked: route_B, out = in.
type okRouter struct{}

func (okRouter) Quote(_ context.Context, req provider.QuoteRequest) routing.Result {
	c := candidate(swapv1.ProviderRouteB, req.Amount, req.Amount)
	return routing.Result{Candidates: []provider.Quote{c}, Best: &c}
}

func (r okRouter) Rates(ctx context.Context, base provider.QuoteRequest, targets []string) []routing.Rate {
	out := make([]routing.Rate, len(targets))
	for i, to := range targets {
		req := base
		req.DestinationAsset = to
		out[i] = routing.Rate{To: to, Result: r.Quote(ctx, req)}
	}
	return out
}

const (
	fuzzPartner  = "fuzz"
	fuzzKey      = "fuzz-key-1"
	fuzzSecret   = "sk_fuzz_secret"
	otherPartner = "other"
	otherKey     = "other-key-1"
	otherSecret  = "sk_other_secret"
)

// fuzzServer is one Server per fuzz worker process; the iterations of a worker run one at a
// time, so the created-orders bookkeeping needs no more than a mutex.
type fuzzServer struct {
	srv    *Server
	client client.Client
	// orderID is a PENDING order of the fuzz partner, the target of deposit hints.
	orderID string

	mu      sync.Mutex
	created []string
}

var sharedFuzzServer = sync.OnceValues(newFuzzServer)

func fuzzServerFor(tb testing.TB) *fuzzServer {
	tb.Helper()
	fs, err := sharedFuzzServer()
	if err != nil {
		tb.Fatal(err)
	}
	return fs
}

func newFuzzServer() (*fuzzServer, error) {
	fs := &fuzzServer{orderID: orderid.New()}
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	fixture := &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: orderid.ObjectName(fs.orderID), Namespace: testNS},
		Spec: swapv1.SwapOrderSpec{OrderID: fs.orderID, Partner: fuzzPartner, OriginAsset: eth,
			DestinationAsset: usdc, Amount: "5000", SwapType: swapv1.ExactInput, Sender: "0x1111111111111111111111111111111111111111", Recipient: "0x2222222222222222222222222222222222222222",
			ProviderID: swapv1.ProviderRouteB},
	}
	issueAddress(fixture)
	objs := []client.Object{
		// A limit no fuzz run reaches under the fixed clock; no quote quota.
		partnerObj(fuzzPartner, swapv1.PartnerSpec{RequestsPerMinute: 1 << 30, AllowedOrigins: []string{acmeOrigin},
			Keys: []swapv1.PartnerKey{keyFor(fuzzKey)}}),
		partnerObj(otherPartner, swapv1.PartnerSpec{RequestsPerMinute: 1 << 30, Keys: []swapv1.PartnerKey{keyFor(otherKey)}}),
		secretFor(fuzzKey, fuzzSecret), secretFor(otherKey, otherSecret),
		fixture,
	}
	b := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
		WithStatusSubresource(&swapv1.SwapOrder{}, &swapv1.Partner{}, &swapv1.WebhookDelivery{}).
		WithInterceptorFuncs(interceptor.Funcs{Create: fs.interceptCreate})
	index.Each(func(obj client.Object, field string, fn client.IndexerFunc) { b.WithIndex(obj, field, fn) })
	fs.client = b.Build()
	srv, err := New(Options{
		Namespace: testNS, Client: fs.client, APIReader: fs.client,
		Catalog: newFakeCatalog(), Router: okRouter{}, Log: logr.Discard(),
		WaitTimeout: 2 * time.Second,
		Now:         func() time.Time { return now },
	})
	if err != nil {
		return nil, err
	}
	srv.ready.Store(true)
	fs.srv = srv
	return fs, nil
}

// interceptCreate plays the order reconciler: a created SwapOrder gets its deposit address at
// once, and the waiters are woken as the informer would.
func (fs *fuzzServer) interceptCreate(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	if err := c.Create(ctx, obj, opts...); err != nil {
		return err
	}
	o, ok := obj.(*swapv1.SwapOrder)
	if !ok {
		return nil
	}
	fs.mu.Lock()
	fs.created = append(fs.created, o.Name)
	fs.mu.Unlock()
	stored := &swapv1.SwapOrder{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(o), stored); err != nil {
		return err
	}
	issueAddress(stored)
	if err := c.Status().Update(ctx, stored); err != nil {
		return err
	}
	fs.srv.NotifyOrder(o.Name)
	return nil
}

// forget deletes the orders created so far, so iterations do not depend on each other and a
// long run does not grow the fake store without bound.
func (fs *fuzzServer) forget(tb testing.TB) {
	fs.mu.Lock()
	names := fs.created
	fs.created = nil
	fs.mu.Unlock()
	for _, name := range names {
		o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS}}
		if err := fs.client.Delete(context.Background(), o); err != nil {
			tb.Fatalf("deleting order %s: %v", name, err)
		}
	}
}

func (fs *fuzzServer) createdCount() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.created)
}

type fuzzRequest struct {
	method, path string
	body         []byte
	headers      map[string]string
}

// serve sends r with the fuzz partner's credentials unless headers name others, and checks
// the answer against the OpenAPI document.
func (fs *fuzzServer) serve(tb testing.TB, r fuzzRequest) *httptest.ResponseRecorder {
	tb.Helper()
	hr := httptest.NewRequest(r.method, r.path, strings.NewReader(string(r.body)))
	hr.Header.Set("X-Key-Id", fuzzKey)
	hr.Header.Set("Authorization", "Bearer "+fuzzSecret)
	for k, v := range r.headers {
		hr.Header[k] = []string{v} // as received: no canonicalisation of the value
	}
	rec := httptest.NewRecorder()
	fs.srv.Handler().ServeHTTP(rec, hr)
	validateAnswer(tb, hr, rec)
	return rec
}

var errorFields = []string{"error", "detail", "upstream"}

// checkContract asserts the answer a partner may rely on for any input: never a 5xx (the
// router and reconciler of the fuzz server never fail), and every error the compact
// {error, detail?, upstream?} object with a code of the API, its status, and declared by the
// route that answered. It returns the error code ("" for a success).
func checkContract(t *testing.T, pattern string, rec *httptest.ResponseRecorder) apierror.Code {
	t.Helper()
	body := rec.Body.Bytes()
	if rec.Code >= 500 {
		t.Fatalf("%s answered %d for client input: %s", pattern, rec.Code, body)
	}
	if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusNoContent && ct != "application/json" {
		t.Fatalf("%s answered %d with Content-Type %q", pattern, rec.Code, ct)
	}
	if rec.Code < 400 {
		if !json.Valid(body) {
			t.Fatalf("%s answered %d with a body that is not JSON: %q", pattern, rec.Code, body)
		}
		return ""
	}
	var e map[string]json.RawMessage
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%s answered %d with a non-object error body %q", pattern, rec.Code, body)
	}
	for k := range e {
		if !slices.Contains(errorFields, k) {
			t.Fatalf("%s: error body has field %q: %s", pattern, k, body)
		}
	}
	var code apierror.Code
	if err := json.Unmarshal(e["error"], &code); err != nil || code == "" {
		t.Fatalf("%s: error body without a string error code: %s", pattern, body)
	}
	if !slices.Contains(apierror.Codes(), code) {
		t.Fatalf("%s: unknown error code %q", pattern, code)
	}
	if code.Status() != rec.Code {
		t.Fatalf("%s: code %q answered with status %d, its status is %d", pattern, code, rec.Code, code.Status())
	}
	if d, ok := e["detail"]; ok {
		var s string
		if json.Unmarshal(d, &s) != nil {
			t.Fatalf("%s: detail is not a string: %s", pattern, body)
		}
	}
	if !slices.Contains(declaredCodes(pattern), code) {
		t.Fatalf("%s answered %q, which the route table does not declare", pattern, code)
	}
	return code
}

func declaredCodes(pattern string) []apierror.Code {
	for _, rt := range routeTable {
		if rt.pattern() == pattern {
			return rt.codes()
		}
	}
	return routerCodes
}

// contentTypes are the Content-Type values a fuzz input picks from (the last slot is the
// fuzzed string itself).
var contentTypes = []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "text/plain", ""}

func pickContentType(sel uint8, fuzzed string) string {
	if int(sel)%(len(contentTypes)+1) == len(contentTypes) {
		return fuzzed
	}
	return contentTypes[int(sel)%(len(contentTypes)+1)]
}

// fuzzBody drives one POST endpoint with arbitrary bytes.
func fuzzBody(f *testing.F, pattern, path string, seeds []string) {
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0), "")
	}
	f.Add([]byte(`{}`), uint8(3), "")
	f.Add([]byte(`{"a":1}`), uint8(5), "application/json;;")
	f.Add([]byte(strings.Repeat(" ", maxBodyBytes)+`{}`), uint8(0), "")
	f.Fuzz(func(t *testing.T, body []byte, ctSel uint8, ct string) {
		fs := fuzzServerFor(t)
		defer fs.forget(t)
		rec := fs.serve(t, fuzzRequest{method: http.MethodPost, path: path, body: body,
			headers: map[string]string{"Content-Type": pickContentType(ctSel, ct)}})
		code := checkContract(t, pattern, rec)
		if len(body) > maxBodyBytes && rec.Code != http.StatusRequestEntityTooLarge &&
			code != apierror.InvalidRequest {
			t.Fatalf("a %d-byte body answered %d", len(body), rec.Code)
		}
	})
}

var (
	quoteSeeds = []string{
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","dry":false,"sender":"0x1111111111111111111111111111111111111111","recipient":"0x2222222222222222222222222222222222222222"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","swapType":"EXACT_OUTPUT","slippageToleranceBps":50}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"05000"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":5000}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","slippageToleranceBps":1e2}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","dry":"false"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","bogus":1}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000"} {}`,
		`{"originAsset":"eip155:1/slip44:60\u0000","destinationAsset":"x","amount":"1"}`,
		`null`, `[]`, `"x"`, `{`, ``,
	}
	orderSeeds = []string{
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","sender":"0x1111111111111111111111111111111111111111","recipient":"0x2222222222222222222222222222222222222222","providerId":"route_B"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","sender":"0x1111111111111111111111111111111111111111","recipient":"0x2222222222222222222222222222222222222222"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + trx + `","amount":"5000","sender":"0x1111111111111111111111111111111111111111","recipient":"0x2222222222222222222222222222222222222222","providerId":"route_A"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","sender":"0x s","recipient":"0x2222222222222222222222222222222222222222","providerId":"route_B"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","sender":"0x1111111111111111111111111111111111111111","recipient":"0x2222222222222222222222222222222222222222","refundTo":"\u2028","providerId":"route_B"}`,
		`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000","sender":"0x1111111111111111111111111111111111111111","recipient":"0x2222222222222222222222222222222222222222","providerId":"route_C"}`,
		`{"swapFields":{}}`, `{"originAsset":null}`,
	}
	depositSeeds = []string{
		`{"txHash":"0xabc"}`, `{"txHash":""}`, `{}`, `{"txHash":"0xabc","nearSenderAccount":"alice.near"}`,
		`{"txHash":["0xabc"]}`, `{"txHash":"0x\tabc"}`, `{"txHash":"0xab\u200bc"}`,
		`{"txHash":"0xabc","nearSenderAccount":"alice\u202e.near"}`,
	}
	ratesSeeds = []string{
		`{"from":"` + eth + `","amount":"5000","targets":["` + usdc + `","` + sol + `"]}`,
		`{"from":"` + eth + `","amount":"5000","targets":["` + usdc + `","nope:1/x:1",""]}`,
		`{"from":"` + eth + `","amount":"5000","targets":[]}`,
		`{"from":"` + eth + `","amount":"5000","targets":[1]}`,
		`{"from":"` + eth + `","amount":"5000","targets":["` + usdc + `","` + usdc + `"],"swapType":"EXACT_OUTPUT"}`,
		`{"from":"` + eth + `","amount":"5000","targets":"` + usdc + `"}`,
	}
)

func FuzzQuoteBody(f *testing.F) { fuzzBody(f, "POST /v1/quote", "/v1/quote", quoteSeeds) }

func FuzzOrderBody(f *testing.F) { fuzzBody(f, "POST /v1/order", "/v1/order", orderSeeds) }

func FuzzRatesBody(f *testing.F) { fuzzBody(f, "POST /v1/rates", "/v1/rates", ratesSeeds) }

func FuzzDepositBody(f *testing.F) {
	fs := fuzzServerFor(f)
	fuzzBody(f, "POST /v1/order/{id}/deposit", "/v1/order/"+fs.orderID+"/deposit", depositSeeds)
}

// FuzzRedeliverPath: the one POST without a body takes an event id in its path.
func FuzzRedeliverPath(f *testing.F) {
	for _, s := range []string{"evt_abc", "", "..", "%2F", "evt_" + strings.Repeat("a", 300), "%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, eventID string) {
		fs := fuzzServerFor(t)
		// Only what an HTTP client can put into a request line.
		path := "/v1/webhooks/deliveries/" + escapePathSegment(eventID) + "/redeliver"
		rec := fs.serve(t, fuzzRequest{method: http.MethodPost, path: path})
		checkContract(t, "POST /v1/webhooks/deliveries/{eventId}/redeliver", rec)
		if rec.Code != http.StatusNotFound {
			t.Fatalf("redelivering an event nobody has answered %d: %s", rec.Code, rec.Body)
		}
	})
}

func escapePathSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// FuzzAuthHeaders: whatever the X-Key-Id, Authorization and Origin headers hold, the answer is
// 200 (right key and secret), 403 `origin not allowed` (right key, unlisted origin) or the one
// uniform 401, byte for byte the same whatever was wrong.
func FuzzAuthHeaders(f *testing.F) {
	f.Add(fuzzKey, "Bearer "+fuzzSecret, "")
	f.Add(fuzzKey, "bearer  "+fuzzSecret+" ", acmeOrigin)
	f.Add(fuzzKey, "Bearer "+otherSecret, "")
	f.Add(otherKey, "Bearer "+fuzzSecret, "")
	f.Add("", "", "")
	f.Add(fuzzKey, "Basic Zm9vOmJhcg==", "https://evil.example")
	f.Add(strings.Repeat("k", 65), "Bearer "+fuzzSecret, "null")
	f.Add(fuzzKey+"\x00", "Bearer\t"+fuzzSecret, acmeOrigin+"/")
	f.Fuzz(func(t *testing.T, keyID, authorization, origin string) {
		fs := fuzzServerFor(t)
		headers := map[string]string{"X-Key-Id": keyID, "Authorization": authorization}
		if origin != "" {
			headers["Origin"] = origin
		}
		rec := fs.serve(t, fuzzRequest{method: http.MethodGet, path: "/v1/assets", headers: headers})
		code := checkContract(t, "GET /v1/assets", rec)
		fields := strings.Fields(authorization)
		rightCredentials := len(fields) == 2 && strings.EqualFold(fields[0], "bearer") &&
			(keyID == fuzzKey && fields[1] == fuzzSecret || keyID == otherKey && fields[1] == otherSecret)
		switch code {
		case "":
			if !rightCredentials {
				t.Fatalf("X-Key-Id %q with Authorization %q was let in", keyID, authorization)
			}
		case apierror.OriginNotAllowed:
			if !rightCredentials || origin == "" {
				t.Fatalf("403 for X-Key-Id %q, Authorization %q, Origin %q: the 401 must come first", keyID, authorization, origin)
			}
		case apierror.Unauthorized:
			if keyID == fuzzKey && authorization == "Bearer "+fuzzSecret {
				t.Fatalf("the right key and secret were refused (Origin %q)", origin)
			}
			if want := uniform401(t, fs); rec.Body.String() != want {
				t.Fatalf("401 body %q differs from the uniform %q", rec.Body, want)
			}
		default:
			t.Fatalf("unexpected %q", code)
		}
	})
}

// uniform401 is the answer to a request without credentials.
func uniform401(t *testing.T, fs *fuzzServer) string {
	t.Helper()
	rec := fs.serve(t, fuzzRequest{method: http.MethodGet, path: "/v1/assets", headers: map[string]string{"X-Key-Id": "", "Authorization": ""}})
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("no credentials answered %d", rec.Code)
	}
	return rec.Body.String()
}

// FuzzIdempotencyKey: a valid key makes a retry return the same order (same id and deposit
// address), a changed body under it is 422, and the same key of another partner is another
// order; an invalid key is 400 and creates nothing.
func FuzzIdempotencyKey(f *testing.F) {
	for _, k := range []string{"k1", "", " ", "a b", strings.Repeat("x", 255), strings.Repeat("x", 256),
		"ключ", "key\x7f", "\"quoted\"", "../../etc"} {
		f.Add(k, "5000", false)
	}
	f.Add("k1", "5000", true)
	f.Fuzz(func(t *testing.T, key, amount string, viaQuote bool) {
		fs := fuzzServerFor(t)
		defer fs.forget(t)
		if checkAmount("amount", amount) != nil {
			amount = "5000"
		}
		pattern, path, body := "POST /v1/order", "/v1/order", orderJSON(amount)
		if viaQuote {
			pattern, path, body = "POST /v1/quote", "/v1/quote", quoteJSON(amount)
		}
		send := func(keyID, secret string, body []byte) *httptest.ResponseRecorder {
			rec := fs.serve(t, fuzzRequest{method: http.MethodPost, path: path, body: body, headers: map[string]string{
				"Content-Type": "application/json", "Idempotency-Key": key,
				"X-Key-Id": keyID, "Authorization": "Bearer " + secret}})
			checkContract(t, pattern, rec)
			return rec
		}
		first := send(fuzzKey, fuzzSecret, body)
		validKey := len(key) <= 255 && !strings.ContainsFunc(key, func(r rune) bool { return r <= ' ' || r >= 0x7f })
		if !validKey {
			if first.Code != http.StatusBadRequest || !strings.Contains(first.Body.String(), "Idempotency-Key") {
				t.Fatalf("Idempotency-Key %q answered %d %s, want 400 naming the header", key, first.Code, first.Body)
			}
			if n := fs.createdCount(); n != 0 {
				t.Fatalf("a refused Idempotency-Key %q created %d orders", key, n)
			}
			return
		}
		a := createdOrder(t, first, viaQuote)
		retry := createdOrder(t, send(fuzzKey, fuzzSecret, body), viaQuote)
		if key == "" {
			if retry.ID == a.ID {
				t.Fatalf("two requests without Idempotency-Key got the same order %s", a.ID)
			}
			return
		}
		if retry.ID != a.ID || retry.DepositAddress != a.DepositAddress {
			t.Fatalf("retry under %q got order %s/%s, first %s/%s", key, retry.ID, retry.DepositAddress, a.ID, a.DepositAddress)
		}
		changed := send(fuzzKey, fuzzSecret, bytesReplace(body, `"recipient":"0x2222222222222222222222222222222222222222"`, `"recipient":"0x3333333333333333333333333333333333333333"`))
		if changed.Code != http.StatusUnprocessableEntity {
			t.Fatalf("a different body under key %q answered %d %s, want 422", key, changed.Code, changed.Body)
		}
		other := createdOrder(t, send(otherKey, otherSecret, body), viaQuote)
		if other.ID == a.ID {
			t.Fatalf("two partners using key %q share order %s", key, a.ID)
		}
	})
}

func bytesReplace(b []byte, old, new string) []byte {
	return []byte(strings.Replace(string(b), old, new, 1))
}

func orderJSON(amount string) []byte {
	b, _ := json.Marshal(with(orderBody(), "amount", amount))
	return b
}

func quoteJSON(amount string) []byte {
	b, _ := json.Marshal(with(quoteBody(false), "amount", amount))
	return b
}

type createdRecord struct {
	ID             string `json:"id"`
	DepositAddress string `json:"depositAddress"`
}

func createdOrder(t *testing.T, rec *httptest.ResponseRecorder, viaQuote bool) createdRecord {
	t.Helper()
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d, want 201: %s", rec.Code, rec.Body)
	}
	var out createdRecord
	if viaQuote {
		var wrapped struct {
			Order createdRecord `json:"order"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &wrapped); err != nil {
			t.Fatal(err)
		}
		out = wrapped.Order
	} else if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if !orderid.Valid(out.ID) || out.DepositAddress == "" {
		t.Fatalf("created order without a valid id or deposit address: %s", rec.Body)
	}
	return out
}

// crdAmount is the SwapOrder CRD's amount rule (pattern and maxLength): what the frontend
// accepts must pass it, or the kube-apiserver would refuse the create with a 500 to the partner.
var crdAmount = regexp.MustCompile(`^[1-9][0-9]*$`)

// FuzzAmount: the amount rule accepts exactly the positive integers of at most 78 digits written
// without sign, leading zeros, spaces or exponent, and what it accepts the CRD and the provider
// helpers accept too.
func FuzzAmount(f *testing.F) {
	for _, s := range []string{"1", "0", "01", "-1", "+1", "1e3", "1.0", " 1", "1 ", "١٢", "0x10",
		strings.Repeat("9", 78), strings.Repeat("9", 79), "115792089237316195423570985008687907853269984665640564039457584007913129639935"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := checkAmount("amount", s)
		n, isInt := new(big.Int).SetString(s, 10)
		canonical := isInt && n.Sign() > 0 && n.String() == s && len(s) <= 78
		if (err == nil) != canonical {
			t.Fatalf("amount %q: accepted=%v, but positive canonical integer of at most 78 digits=%v", s, err == nil, canonical)
		}
		if err != nil {
			if err.Code != apierror.InvalidRequest || !strings.HasPrefix(err.Detail, "amount: ") {
				t.Fatalf("amount %q refused with %v, want invalid request naming the field", s, err)
			}
			return
		}
		if !crdAmount.MatchString(s) || len(s) > 78 {
			t.Fatalf("accepted amount %q fails the CRD's rule", s)
		}
		if !provider.IsAmount(s) {
			t.Fatalf("accepted amount %q is not a provider amount", s)
		}
		for _, up := range []bool{false, true} {
			if _, err := provider.ApplySlippage(s, 100, up); err != nil {
				t.Fatalf("ApplySlippage(%q): %v", s, err)
			}
		}
	})
}

// FuzzListingCursor: whatever a partner passes as cursor, both listings answer a page or 400
// `invalid request`, never a 5xx; and whatever position a sealed cursor could hold, one the
// codec accepts is inside the range the archive's queries take.
func FuzzListingCursor(f *testing.F) {
	fs := fuzzServerFor(f)
	c := fs.srv.cursors
	for _, s := range []string{"", "garbage", "e30", `{"t":9999999999999,"id":"ord_x"}`, "{\"t\":1,\"id\":\"o\u0000\"}",
		`{"o":"ord_x","s":1,"r":0}`, `{"t":1700000000,"id":"ord_x","x":1}`,
		encodeCursor(c, orderCursor{T: 1_700_000_000, ID: "ord_x"}), encodeCursor(c, deliveryPos{OrderID: "ord_x", Sequence: 2})} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for pattern, path := range map[string]string{"GET /v1/orders": "/v1/orders", "GET /v1/webhooks/deliveries": "/v1/webhooks/deliveries"} {
			rec := fs.serve(t, fuzzRequest{method: http.MethodGet, path: path + "?cursor=" + url.QueryEscape(s)})
			if code := checkContract(t, pattern, rec); code != "" && code != apierror.InvalidRequest {
				t.Fatalf("%s with cursor %q answered %q", pattern, s, code)
			}
		}
		sealed := c.Seal([]byte(s))
		if p, ok := decodeCursor[orderCursor](c, sealed); ok {
			if y := p.position().CreatedAt.Year(); y < 1 || y > 9999 || !visibleASCII(p.ID) {
				t.Fatalf("order cursor %q accepted with %+v", s, p)
			}
		}
		if p, ok := decodeCursor[deliveryPos](c, sealed); ok && !validCursorID(p.OrderID) {
			t.Fatalf("delivery cursor %q accepted with %+v", s, p)
		}
	})
}

// FuzzQuoteID: an order naming a quoteId this service did not issue is refused (400 `quote
// mismatch` or `invalid request`) and creates nothing; one it issued for the same fields binds.
func FuzzQuoteID(f *testing.F) {
	fs := fuzzServerFor(f)
	issued := fs.srv.quoteIDs.Sign(fs.srv.claimsFor(fuzzPartner, swapFields{OriginAsset: eth, DestinationAsset: usdc,
		Amount: "5000", SwapType: swapv1.ExactInput}, candidate(swapv1.ProviderRouteB, "5000", "5000")))
	for _, s := range []string{"", issued, issued[:len(issued)-1], "q3." + issued, "q2.local.e30.AAAA", "q3.", "q3..",
		strings.Repeat("q", 1025), "q3.\u0000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, quoteID string) {
		defer fs.forget(t)
		body, _ := json.Marshal(with(orderBody(), "quoteId", quoteID))
		rec := fs.serve(t, fuzzRequest{method: http.MethodPost, path: "/v1/order", body: body,
			headers: map[string]string{"Content-Type": "application/json"}})
		code := checkContract(t, "POST /v1/order", rec)
		_, err := fs.srv.quoteIDs.Verify(quoteID)
		switch {
		case quoteID == "" || err == nil:
			if code != "" {
				t.Fatalf("quoteId %q refused: %s", quoteID, rec.Body)
			}
		case code != apierror.QuoteMismatch && code != apierror.InvalidRequest:
			t.Fatalf("quoteId %q answered %d %q", quoteID, rec.Code, code)
		case fs.createdCount() != 0:
			t.Fatalf("quoteId %q created an order", quoteID)
		}
	})
}
