package delivery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// ErrNotInHistory marks a delivery whose payload the order's recorded history does not hold:
// it is never signed.
var ErrNotInHistory = errors.New("payload not in the order's history")

// Authentic reports whether d's payload is exactly what the order's recorded history says
// about transition d.spec.sequence: the bytes EventFor makes of that history entry, for the
// partner the order belongs to. The one latitude is the hash lists: a delivery carries the
// hashes known when it was made, so each list must be drawn from the order's current one
// (an event may name fewer hashes than the order has since learned, never one it lacks).
// order is nil when the order is in neither etcd nor the archive.
func Authentic(order *swapv1.SwapOrder, d *swapv1.WebhookDelivery) error {
	if order == nil {
		return fmt.Errorf("%w: order %s not found", ErrNotInHistory, d.Spec.OrderID)
	}
	if order.Spec.OrderID != d.Spec.OrderID || order.Spec.Partner != d.Spec.Partner {
		return fmt.Errorf("%w: order %s does not belong to partner %q", ErrNotInHistory, d.Spec.OrderID, d.Spec.Partner)
	}
	i := slices.IndexFunc(order.Status.History, func(t swapv1.StatusTransition) bool { return t.Seq == d.Spec.Sequence })
	if i < 0 {
		return fmt.Errorf("%w: no transition seq %d", ErrNotInHistory, d.Spec.Sequence)
	}
	want := EventFor(order, order.Status.History[i])
	if d.Spec.EventID != want.ID {
		return fmt.Errorf("%w: event id %s is not seq %d's", ErrNotInHistory, d.Spec.EventID, d.Spec.Sequence)
	}
	var sent struct {
		InTxHashes  []string `json:"inTxHashes"`
		OutTxHashes []string `json:"outTxHashes"`
	}
	if err := json.Unmarshal([]byte(d.Spec.Payload), &sent); err != nil {
		return fmt.Errorf("%w: payload is not an event: %v", ErrNotInHistory, err)
	}
	if !subset(sent.InTxHashes, want.InTxHashes) || !subset(sent.OutTxHashes, want.OutTxHashes) {
		return fmt.Errorf("%w: a transaction hash the order does not have", ErrNotInHistory)
	}
	want.InTxHashes, want.OutTxHashes = sent.InTxHashes, sent.OutTxHashes
	encoded, err := json.Marshal(want)
	if err != nil {
		return fmt.Errorf("encoding event %s: %w", want.ID, err)
	}
	if !bytes.Equal(encoded, []byte(d.Spec.Payload)) && !bytes.Equal(legacyFirst(encoded, want), []byte(d.Spec.Payload)) {
		return fmt.Errorf("%w: payload differs from seq %d as recorded", ErrNotInHistory, d.Spec.Sequence)
	}
	return nil
}

// legacyFirst is encoded as releases before null previous statuses wrote a first event
// (`"previousStatus":""`), so such deliveries still retrying at an upgrade go out; nil when
// the event has a previous status.
func legacyFirst(encoded []byte, e webhooks.Event) []byte {
	if e.PreviousStatus != "" {
		return nil
	}
	return bytes.Replace(encoded, []byte(`"previousStatus":null`), []byte(`"previousStatus":""`), 1)
}

func subset(sent, known []string) bool {
	return !slices.ContainsFunc(sent, func(h string) bool { return !slices.Contains(known, h) })
}
