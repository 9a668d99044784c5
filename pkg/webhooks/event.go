package webhooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// EventType is the only event kind the service sends.
const EventType = "order.status_changed"

// EventVersion is the payload format version carried in Event.Version.
const EventVersion = "1"

// Event is the JSON body of an order.status_changed webhook (contract section 6, plus a
// per-order sequence). Receivers update their records by OrderID and may order events of one
// order by Sequence; duplicates (same ID) are harmless.
type Event struct {
	Version    string `json:"version"`
	ID         string `json:"id"`
	Type       string `json:"type"`
	OrderID    string `json:"orderId"`
	ProviderID string `json:"providerId"`
	Status     string `json:"status"`
	// Substatus is the normalized detail of Status when it changed (what the user should do
	// or expect, e.g. INCOMPLETE_DEPOSIT, PARTIAL_REFUND); absent when there is none.
	Substatus string `json:"substatus,omitempty"`
	// PreviousStatus is the status before the change; "" on an order's first event, which
	// the JSON sends as null (there was no status before it), as the order's history does.
	PreviousStatus string    `json:"previousStatus"`
	InTxHashes     []string  `json:"inTxHashes"`
	OutTxHashes    []string  `json:"outTxHashes"`
	OccurredAt     time.Time `json:"occurredAt"`
	Sequence       int64     `json:"sequence"`
	// ClientReference is the partner's own id of the order, when it gave one.
	ClientReference string `json:"clientReference,omitempty"`
}

// MarshalJSON writes OccurredAt in UTC, empty hash lists as [] rather than null, so every
// payload has the same shape, and no previous status as null.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event // no MarshalJSON method: avoids recursion
	p := plain(e)
	p.OccurredAt = p.OccurredAt.UTC()
	if p.InTxHashes == nil {
		p.InTxHashes = []string{}
	}
	if p.OutTxHashes == nil {
		p.OutTxHashes = []string{}
	}
	b, err := json.Marshal(p)
	if err != nil || e.PreviousStatus != "" {
		return b, err
	}
	// In place, so every other byte stays as it was. The match is the field itself: a quote
	// inside any string value is escaped, and no other key is named previousStatus.
	return bytes.Replace(b, []byte(`"previousStatus":""`), []byte(`"previousStatus":null`), 1), nil
}

// eventIDLen is the number of base32 characters kept from the hash: 130 bits.
const eventIDLen = 26

var eventIDEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// EventID derives the event id of transition seq of an order: "evt_" + 26 lowercase base32
// characters of SHA-256(orderID ":" incarnation ":" seq). The same transition always gets the
// same id, so a re-sent event keeps its webhook-id and receivers can deduplicate on it.
// incarnation is something unique to this order object (its Kubernetes UID): an order id
// derived from an Idempotency-Key comes back if its order was deleted and the key reused, and
// its events must not repeat the ids of the earlier order's (receivers would drop them as
// duplicates). An empty incarnation hashes orderID ":" seq.
func EventID(orderID, incarnation string, seq int64) string {
	in := orderID + ":"
	if incarnation != "" {
		in += incarnation + ":"
	}
	sum := sha256.Sum256([]byte(in + strconv.FormatInt(seq, 10)))
	return "evt_" + strings.ToLower(eventIDEncoding.EncodeToString(sum[:]))[:eventIDLen]
}
