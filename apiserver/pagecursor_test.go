package apiserver

import (
	"net/url"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/archive"
)

// TestPageCursor: both listings' cursors round-trip through the one codec, and a cursor of one
// listing, a forged one or an over-long id is refused by the other.
func TestPageCursor(t *testing.T) {
	order := orderCursorAt(archive.Position{CreatedAt: time.Unix(1_700_000_000, 0).UTC(), OrderID: "ord_x"})
	delivery := deliveryPos{OrderID: "ord_x", Sequence: 3, Redelivery: 1}
	if got, ok := decodeCursor[orderCursor](encodeCursor(order)); !ok || got != order {
		t.Errorf("order cursor round trip: %+v %v", got, ok)
	}
	if got, ok := decodeCursor[deliveryPos](encodeCursor(delivery)); !ok || got != delivery {
		t.Errorf("delivery cursor round trip: %+v %v", got, ok)
	}
	if _, ok := decodeCursor[deliveryPos](encodeCursor(order)); ok {
		t.Error("an order cursor accepted by the deliveries listing")
	}
	long := deliveryPos{OrderID: string(make([]byte, 65))}
	for _, bad := range []string{"", "!!!", "bm90LWpzb24", "e30", encodeCursor(orderCursor{ID: long.OrderID})} {
		if _, ok := decodeCursor[orderCursor](bad); ok {
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
		{"limit=7&cursor=" + url.QueryEscape(encodeCursor(delivery)), 7, true, true},
		{"limit=0", 0, false, false},
		{"limit=101", 0, false, false},
		{"cursor=e30", 0, false, false},
	} {
		v, _ := url.ParseQuery(tc.query)
		limit, after, err := parsePage[deliveryPos](v, 20)
		if (err == nil) != tc.ok || (tc.ok && (limit != tc.limit || (after != nil) != tc.withAfter)) {
			t.Errorf("parsePage(%q) = %d, %v, %v", tc.query, limit, after, err)
		}
	}
}
