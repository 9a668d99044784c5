package apiserver

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// testCursors seals cursors for the codec's unit tests.
var testCursors = tokenkeys.Random().For("listing cursor")

// TestPageCursor: both listings' cursors round-trip through the one codec, also between two
// replicas with the same keys, and a cursor of one listing, a forged one, another
// installation's or an over-long id is refused.
func TestPageCursor(t *testing.T) {
	raw, err := tokenkeys.Create()
	if err != nil {
		t.Fatal(err)
	}
	replica := func() *tokenkeys.Tokens {
		k, err := tokenkeys.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return k.For("listing cursor")
	}
	replicaA, replicaB := replica(), replica()
	order := orderCursorAt(archive.Position{CreatedAt: time.Unix(1_700_000_000, 0).UTC(), OrderID: "ord_x"})
	delivery := deliveryPos{OrderID: "ord_x", Sequence: 3, Redelivery: 1}
	if got, ok := decodeCursor[orderCursor](replicaB, encodeCursor(replicaA, order)); !ok || got != order {
		t.Errorf("order cursor round trip: %+v %v", got, ok)
	}
	if got, ok := decodeCursor[deliveryPos](replicaB, encodeCursor(replicaA, delivery)); !ok || got != delivery {
		t.Errorf("delivery cursor round trip: %+v %v", got, ok)
	}
	if _, ok := decodeCursor[deliveryPos](replicaA, encodeCursor(replicaA, order)); ok {
		t.Error("an order cursor accepted by the deliveries listing")
	}
	if _, ok := decodeCursor[orderCursor](testCursors, encodeCursor(replicaA, order)); ok {
		t.Error("another installation's cursor accepted")
	}
	long := deliveryPos{OrderID: string(make([]byte, 65))}
	for _, bad := range []string{"", "!!!", "bm90LWpzb24", "e30",
		encodeCursor(replicaA, orderCursor{ID: long.OrderID}),
		encodeCursor(replicaA, orderCursor{T: latestCursorTime + 1, ID: "ord_x"}),
		encodeCursor(replicaA, orderCursor{T: earliestCursorTime - 1, ID: "ord_x"}),
		encodeCursor(replicaA, orderCursor{T: 1, ID: "ord\x00x"}),
	} {
		if _, ok := decodeCursor[orderCursor](replicaA, bad); ok {
			t.Errorf("cursor %q accepted", bad)
		}
	}
	for _, tc := range []struct {
		query     string
		limit     int
		withAfter bool
		ok        bool
	}{
		{"", 20, false, true},
		{"limit=7&cursor=" + url.QueryEscape(encodeCursor(testCursors, delivery)), 7, true, true},
		{"limit=0", 0, false, false},
		{"limit=101", 0, false, false},
		{"cursor=e30", 0, false, false},
	} {
		v, _ := url.ParseQuery(tc.query)
		limit, after, err := parsePage[deliveryPos](testCursors, v, 20)
		if (err == nil) != tc.ok || (tc.ok && (limit != tc.limit || (after != nil) != tc.withAfter)) {
			t.Errorf("parsePage(%q) = %d, %v, %v", tc.query, limit, after, err)
		}
	}
}

// countingArchive counts the listings it answers.
type countingArchive struct {
	*memArchive
	lists atomic.Int32
}

func (a *countingArchive) List(ctx context.Context, q archive.Query) ([]*swapv1.SwapOrder, error) {
	a.lists.Add(1)
	return a.memArchive.List(ctx, q)
}

// TestForgedListingCursorsAre400: a cursor the service did not issue (forged, altered,
// truncated, of another listing or another installation's key) is 400 `invalid request`
// before any query; one it issued pages on.
func TestForgedListingCursorsAre400(t *testing.T) {
	h := newHarness(t)
	arch := &countingArchive{memArchive: newMemArchive()}
	h.srv.opts.Archive = arch
	for range 3 {
		decode[orderRecord](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
	}
	first := decode[orderPage](t, h.do(req{method: "GET", path: "/v1/orders?limit=1"}), http.StatusOK)
	if first.NextCursor == nil {
		t.Fatal("no nextCursor after the first of 3 orders")
	}
	issued := *first.NextCursor
	decode[orderPage](t, h.do(req{method: "GET", path: "/v1/orders?limit=1&cursor=" + url.QueryEscape(issued)}), http.StatusOK)

	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	flip := []byte(issued)
	flip[len(flip)/2] ^= 1
	other := newHarness(t)
	for range 2 {
		decode[orderRecord](t, other.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
	}
	foreign := decode[orderPage](t, other.do(req{method: "GET", path: "/v1/orders?limit=1"}), http.StatusOK).NextCursor
	forged := map[string]string{
		"year 300000":       b64(`{"t":9999999999999,"id":"ord_x"}`),
		"NUL in the id":     b64("{\"t\":1700000000,\"id\":\"ord\\u0000x\"}"),
		"before year 1":     b64(`{"t":-62135596801,"id":"ord_x"}`),
		"one bit changed":   string(flip),
		"truncated":         issued[:len(issued)-4],
		"another key":       *foreign,
		"garbage":           "garbage",
		"empty JSON":        b64(`{}`),
		"a delivery cursor": b64(`{"o":"ord_x","s":1,"r":0}`),
	}
	before := arch.lists.Load()
	for name, c := range forged {
		body := expectError(t, h.do(req{method: "GET", path: "/v1/orders?cursor=" + url.QueryEscape(c)}), apierror.InvalidRequest)
		if detail, _ := body["detail"].(string); !strings.HasPrefix(detail, "cursor") {
			t.Errorf("%s: detail %q does not name the cursor", name, detail)
		}
		expectError(t, h.do(req{method: "GET", path: "/v1/webhooks/deliveries?cursor=" + url.QueryEscape(c)}), apierror.InvalidRequest)
	}
	if n := arch.lists.Load() - before; n != 0 {
		t.Errorf("forged cursors reached the archive %d times", n)
	}
}
