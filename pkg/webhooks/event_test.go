package webhooks

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"
	"unicode/utf8"
)

// eventIDPattern is the WebhookDelivery CRD's validation pattern for spec.eventId.
// pinnedEventID is EventID("ord_aaaaaaaaaaaaaaaaaaaaaaaaaa", "", 1).
const pinnedEventID = "evt_6pcmtiwuwuylzfop3yvri3l2f4"

var eventIDPattern = regexp.MustCompile(`^evt_[a-z0-9]{1,64}$`)

func TestEventID(t *testing.T) {
	const order = "ord_abcdefghijklmnopqrstuvwxyz"
	seen := map[string]bool{}
	for _, c := range []struct {
		order string
		seq   int64
	}{{order, 1}, {order, 2}, {order, 10}, {"ord_bbcdefghijklmnopqrstuvwxyz", 1}, {order + "1", 1}} {
		id := EventID(c.order, "", c.seq)
		if !eventIDPattern.MatchString(id) || len(id) != len("evt_")+eventIDLen {
			t.Fatalf("EventID(%q, %d) = %q does not match the CRD pattern", c.order, c.seq, id)
		}
		if EventID(c.order, "", c.seq) != id {
			t.Fatalf("EventID(%q, %d) is not deterministic", c.order, c.seq)
		}
		if seen[id] {
			t.Fatalf("EventID(%q, %d) = %q collides", c.order, c.seq, id)
		}
		seen[id] = true
	}
	// Pinned so a change of derivation (which would change the webhook-id of re-sent
	// events) cannot go unnoticed.
	if got := EventID("ord_aaaaaaaaaaaaaaaaaaaaaaaaaa", "", 1); got != pinnedEventID {
		t.Fatalf("EventID changed: %q, pinned %q", got, pinnedEventID)
	}
}

// An order id that comes back (its order deleted, its Idempotency-Key reused) must not bring
// back its event ids: receivers deduplicating on webhook-id would drop the new order's events.
func TestEventIDDiffersPerIncarnation(t *testing.T) {
	const order = "ord_abcdefghijklmnopqrstuvwxyz"
	first, second := EventID(order, "uid-1", 1), EventID(order, "uid-2", 1)
	if first == second || first == EventID(order, "", 1) {
		t.Fatalf("the same order id in two objects yields %q and %q", first, second)
	}
	if !eventIDPattern.MatchString(second) || EventID(order, "uid-2", 1) != second {
		t.Fatalf("EventID with an incarnation: %q", second)
	}
}

func TestEventJSONShape(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 30, 0, 0, time.FixedZone("CEST", 2*3600))
	first := Event{
		Version: EventVersion, ID: "evt_x", Type: EventType, OrderID: "ord_y", ProviderID: "route_A",
		Status: "PENDING", OccurredAt: at, Sequence: 1,
	}
	later := first
	later.Status, later.PreviousStatus, later.Sequence = "PROCESSING", "PENDING", 2
	for _, tt := range []struct {
		event Event
		want  string
	}{
		// The first event has no status before it: null, as in the order's history.
		{first, `{"version":"1","id":"evt_x","type":"order.status_changed","orderId":"ord_y","providerId":"route_A",` +
			`"status":"PENDING","previousStatus":null,"inTxHashes":[],"outTxHashes":[],"occurredAt":"2026-05-01T10:30:00Z","sequence":1}`},
		{later, `{"version":"1","id":"evt_x","type":"order.status_changed","orderId":"ord_y","providerId":"route_A",` +
			`"status":"PROCESSING","previousStatus":"PENDING","inTxHashes":[],"outTxHashes":[],"occurredAt":"2026-05-01T10:30:00Z","sequence":2}`},
	} {
		b, err := json.Marshal(tt.event)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Fatalf("payload\n got %s\nwant %s", b, tt.want)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil || !back.OccurredAt.Equal(at) || back.Sequence != tt.event.Sequence ||
			back.PreviousStatus != tt.event.PreviousStatus {
			t.Fatalf("round trip: %+v, %v", back, err)
		}
	}
}

// Whatever the other fields hold (previousStatus's own JSON among them), an event's JSON says
// previousStatus null exactly when it has none, and every field reads back as it was.
func FuzzEventJSON(f *testing.F) {
	f.Add("PENDING", "", "checkout-42", "ord_y")
	f.Add("PENDING", "", `"previousStatus":""`, `","previousStatus":"`)
	f.Add("SUCCESS", "PROCESSING", `\"previousStatus\":\"\"`, "")
	f.Fuzz(func(t *testing.T, status, previous, reference, orderID string) {
		for _, s := range []string{status, previous, reference, orderID} {
			if !utf8.ValidString(s) {
				return // encoding/json replaces invalid bytes: no string of ours reads back
			}
		}
		e := Event{Version: EventVersion, ID: "evt_x", Type: EventType, OrderID: orderID, Status: status,
			PreviousStatus: previous, Sequence: 1, ClientReference: reference}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if got, ok := fields["previousStatus"]; !ok || (previous == "" && got != nil) || (previous != "" && got != previous) {
			t.Fatalf("previousStatus %q sent as %v in %s", previous, got, b)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Status != e.Status || back.PreviousStatus != e.PreviousStatus || back.ClientReference != e.ClientReference || back.OrderID != e.OrderID {
			t.Fatalf("round trip of %+v: %+v", e, back)
		}
	})
}
