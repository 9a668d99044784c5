package apiserver

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/orderid"
)

// createdID is the order id of a 201 answer to POST /v1/order or a dry:false quote.
func createdID(t *testing.T, path string, rec *httptest.ResponseRecorder) string {
	t.Helper()
	if path == "/v1/quote" {
		return decode[struct{ Order wire.Order }](t, rec, http.StatusCreated).Order.ID
	}
	return decode[wire.Order](t, rec, http.StatusCreated).ID
}

// A request refused before its order exists reserves neither its clientReference nor its
// Idempotency-Key: the same request with the fault fixed, under both, creates the order.
func TestRefusedOrderRequestLeavesNoTrace(t *testing.T) {
	const ref, key = "checkout-7", "checkout-7"
	solRecipient := "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	tests := []struct {
		name, path string
		// refused and fixed are the two requests' bodies; setup runs first and may change both.
		refused, fixed map[string]any
		want           apierror.Code
		setup          func(h *harness, refused, fixed map[string]any)
		// partner's key, when not acme's
		keyID, secret, partner string
	}{
		{name: "screening", path: "/v1/order", want: apierror.AddressNotAllowed,
			refused: with(orderBody(), "refundTo", listedAddress), fixed: orderBody()},
		{name: "screening, dry:false", path: "/v1/quote", want: apierror.AddressNotAllowed,
			refused: with(quoteBody(false), "recipient", listedAddress), fixed: quoteBody(false)},
		{name: "quote mismatch", path: "/v1/order", want: apierror.QuoteMismatch,
			refused: with(orderBody(), "amount", "5001"), fixed: orderBody(),
			setup: func(h *harness, refused, fixed map[string]any) {
				b := dryQuoteIDs(h.t, h, "", "")[swapv1.ProviderRouteB]
				refused["quoteId"], fixed["quoteId"] = b, b
			}},
		{name: "quote expired, dry:false", path: "/v1/quote", want: apierror.QuoteExpired,
			refused: quoteBody(false), fixed: quoteBody(false),
			setup: func(h *harness, refused, fixed map[string]any) {
				refused["quoteId"] = dryQuoteIDs(h.t, h, "", "")[swapv1.ProviderRouteB]
				h.now = h.now.Add(defaultQuoteTTL)
				fixed["quoteId"] = dryQuoteIDs(h.t, h, "", "")[swapv1.ProviderRouteB]
			}},
		{name: "amount below every provider's minimum, dry:false", path: "/v1/quote", want: apierror.AmountTooLow,
			refused: with(quoteBody(false), "destinationAsset", sol, "recipient", solRecipient), fixed: quoteBody(false)},
		{name: "an address that does not fit its chain", path: "/v1/order", want: apierror.InvalidRequest,
			refused: with(orderBody(), "recipient", solRecipient), fixed: orderBody()},
		{name: "monthly quote quota", path: "/v1/quote", want: apierror.QuotaExceeded,
			refused: quoteBody(false), fixed: quoteBody(false), keyID: quotaKey, secret: quotaSecret, partner: "quota",
			setup: func(h *harness, _, _ map[string]any) {
				for range 3 {
					decode[map[string]any](h.t, h.do(req{method: "POST", path: "/v1/quote", body: quoteBody(true), keyID: quotaKey, secret: quotaSecret}), http.StatusOK)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := screenedHarness(t, nil)
			arch := newMemArchive()
			h.srv.opts.Archive = arch
			partner := cmp.Or(tt.partner, "acme")
			refused, fixed := with(tt.refused, "clientReference", ref), with(tt.fixed, "clientReference", ref)
			if tt.setup != nil {
				tt.setup(h, refused, fixed)
			}
			send := func(body map[string]any) *httptest.ResponseRecorder {
				return h.do(req{method: "POST", path: tt.path, body: body, keyID: tt.keyID, secret: tt.secret,
					headers: map[string]string{"Idempotency-Key": key}})
			}
			expectError(t, send(refused), tt.want)
			if held := arch.holding(partner, ref); held.OrderID != "" || h.orderCount() != 0 {
				t.Fatalf("the refusal left reservation %+v and %d orders", held, h.orderCount())
			}
			if tt.want == apierror.QuotaExceeded {
				h.now = h.now.AddDate(0, 1, 0) // the fault fixed: a new month
			}
			id := createdID(t, tt.path, send(fixed))
			if want := orderid.ForIdempotencyKey(testNS, partner, key); id != want {
				t.Errorf("order %s, want the key's %s", id, want)
			}
			if held := arch.holding(partner, ref); held.OrderID != id {
				t.Errorf("the reference is held by %+v, want order %s", held, id)
			}
			if again := createdID(t, tt.path, send(fixed)); again != id || h.orderCount() != 1 {
				t.Errorf("the retry answered order %s (%d orders), want %s again", again, h.orderCount(), id)
			}
		})
	}
}

// A create that reserved its key and reference and never created its order (it crashed)
// holds them only until its reservation is stale: then, its order not being in etcd, a new
// request takes them over. Until then a duplicate is refused, as it must be while that
// create may still be under way.
func TestAbandonedReservationIsTakenOver(t *testing.T) {
	h, arch := archiveHarness(t)
	ctx := context.Background()
	crashed := orderid.New()
	if _, err := arch.Reserve(ctx, archive.Reservation{OrderID: crashed, Partner: "acme", ClientReference: "inv-1"}); err != nil {
		t.Fatal(err)
	}
	withRef := with(orderBody(), "clientReference", "inv-1")
	body := decode[map[string]any](t, h.do(req{method: "POST", path: "/v1/order", body: withRef}), http.StatusConflict)
	if body["orderId"] != crashed {
		t.Fatalf("a fresh reservation answered %v, want 409 naming %s", body, crashed)
	}
	arch.age(crashed)
	id := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: withRef}), http.StatusCreated).ID
	if held := arch.holding("acme", "inv-1"); held.OrderID != id {
		t.Errorf("the reference is held by %+v, want the new order %s", held, id)
	}

	// Requests racing for a reference an abandoned reservation holds: one order, the rest 409.
	raced := orderid.New()
	if _, err := arch.Reserve(ctx, archive.Reservation{OrderID: raced, Partner: "acme", ClientReference: "inv-race"}); err != nil {
		t.Fatal(err)
	}
	arch.age(raced)
	codes := make(chan int, 8)
	var wg sync.WaitGroup
	for range cap(codes) {
		wg.Go(func() {
			codes <- h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "clientReference", "inv-race")}).Code
		})
	}
	wg.Wait()
	close(codes)
	answered := map[int]int{}
	for c := range codes {
		answered[c]++
	}
	if answered[http.StatusCreated] != 1 || answered[http.StatusConflict] != cap(codes)-1 {
		t.Errorf("racing requests answered %v, want one 201 and the rest 409", answered)
	}

	// The same for an Idempotency-Key whose crashed request had another body.
	keyed := orderid.ForIdempotencyKey(testNS, "acme", "k-crash")
	if _, err := arch.Reserve(ctx, archive.Reservation{OrderID: keyed, Partner: "acme", IdempotencyKeyHash: "another request"}); err != nil {
		t.Fatal(err)
	}
	idem := map[string]string{"Idempotency-Key": "k-crash"}
	expectError(t, h.do(req{method: "POST", path: "/v1/order", body: orderBody(), headers: idem}), apierror.IdempotencyKeyReused)
	arch.age(keyed)
	if got := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody(), headers: idem}), http.StatusCreated); got.ID != keyed {
		t.Errorf("order %s, want the key's %s", got.ID, keyed)
	}
	if n := testutil.ToFloat64(h.srv.metrics.reservationsReleased.WithLabelValues("abandoned")); n != 3 {
		t.Errorf("%v abandoned reservations counted, want 3", n)
	}

	// A stale reservation whose order is in etcd is that order's: never abandoned.
	for _, tt := range []struct {
		r    archive.Reservation
		want bool
	}{
		{archive.Reservation{OrderID: id, Stale: true}, false},
		{archive.Reservation{OrderID: orderid.New(), Stale: true}, true},
		{archive.Reservation{OrderID: orderid.New()}, false},
	} {
		if got, err := h.srv.abandoned(ctx, tt.r); got != tt.want || err != nil {
			t.Errorf("abandoned(%+v) = %v, %v; want %v", tt.r, got, err, tt.want)
		}
	}
}

// A create the API server refuses outright releases its reservation at once; one whose outcome
// is unknown (a timeout) keeps it, since the order may exist.
func TestRefusedCreateReleasesItsReservation(t *testing.T) {
	h, arch := archiveHarness(t)
	withRef := with(orderBody(), "clientReference", "inv-1")
	idem := map[string]string{"Idempotency-Key": "k-1"}
	gr := schema.GroupResource{Group: swapv1.GroupVersion.Group, Resource: "swaporders"}

	h.failCreate, h.createErr = true, apierrors.NewForbidden(gr, "x", errors.New("denied by admission policy"))
	if rec := h.do(req{method: "POST", path: "/v1/order", body: withRef, headers: idem}); rec.Code < 500 {
		t.Fatalf("a refused create answered %d %s", rec.Code, rec.Body)
	}
	if held := arch.holding("acme", "inv-1"); held.OrderID != "" {
		t.Fatalf("the refused create left reservation %+v", held)
	}
	if n := testutil.ToFloat64(h.srv.metrics.reservationsReleased.WithLabelValues("refused")); n != 1 {
		t.Errorf("%v refused reservations counted, want 1", n)
	}

	h.failCreate, h.createErr = true, apierrors.NewTimeoutError("the create timed out", 1)
	if rec := h.do(req{method: "POST", path: "/v1/order", body: withRef, headers: idem}); rec.Code < 500 {
		t.Fatalf("a timed-out create answered %d %s", rec.Code, rec.Body)
	}
	held := arch.holding("acme", "inv-1")
	if held.OrderID != orderid.ForIdempotencyKey(testNS, "acme", "k-1") {
		t.Fatalf("a create that may have succeeded released its reservation: %+v", held)
	}
	// Its retry goes on under the reservation; another order cannot take the reference.
	decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: withRef, headers: idem}), http.StatusCreated)
	decode[map[string]any](t, h.do(req{method: "POST", path: "/v1/order", body: withRef}), http.StatusConflict)
}

func TestCreateRefused(t *testing.T) {
	gr := schema.GroupResource{Group: swapv1.GroupVersion.Group, Resource: "swaporders"}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{apierrors.NewForbidden(gr, "x", errors.New("denied")), true},
		{apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: "SwapOrder"}, "x", nil), true},
		{apierrors.NewBadRequest("bad"), true},
		{apierrors.NewTooManyRequests("slow down", 1), true},
		{apierrors.NewAlreadyExists(gr, "x"), false},
		{apierrors.NewTimeoutError("timeout", 1), false},
		{apierrors.NewInternalError(errors.New("etcd")), false},
		{apierrors.NewServiceUnavailable("down"), false},
		{io.ErrUnexpectedEOF, false},
		{context.DeadlineExceeded, false},
	} {
		if got := createRefused(tt.err); got != tt.want {
			t.Errorf("createRefused(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
