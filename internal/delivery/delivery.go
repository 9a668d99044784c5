package delivery

import (
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// maxPayloadLen is the CRD's bound on spec.payload.
const maxPayloadLen = 16384

// EventFor builds the event reporting transition t of order. The hash lists are the order's
// current ones: the best knowledge at emission time.
func EventFor(order *swapv1.SwapOrder, t swapv1.StatusTransition) webhooks.Event {
	return webhooks.Event{
		Version:         webhooks.EventVersion,
		ID:              webhooks.EventID(order.Spec.OrderID, string(order.UID), t.Seq),
		Type:            webhooks.EventType,
		OrderID:         order.Spec.OrderID,
		ProviderID:      string(order.Spec.ProviderID),
		Status:          string(t.Status),
		Substatus:       string(t.Substatus),
		PreviousStatus:  string(t.PreviousStatus),
		InTxHashes:      order.Status.InTxHashes,
		OutTxHashes:     order.Status.OutTxHashes,
		OccurredAt:      t.At.UTC(),
		Sequence:        t.Seq,
		ClientReference: order.Spec.ClientReference,
	}
}

// DeliveryName is the WebhookDelivery name of an event: the event id with '_' turned into
// '-', plus "-r<N>" for the N-th redelivery. Deterministic, so creating twice is harmless
// (the second Create gets AlreadyExists).
func DeliveryName(eventID string, redelivery int32) string {
	name := strings.ReplaceAll(eventID, "_", "-")
	if redelivery > 0 {
		name += fmt.Sprintf("-r%d", redelivery)
	}
	return name
}

// NewDelivery returns the WebhookDelivery of event for order (namespace, partner, owner),
// ready to Create: deterministic name, spec.payload holding the exact bytes every attempt
// sends and signs. redelivery is 0 for the first delivery of an event. The event must be
// about order and carry the id EventID(order id, order UID, sequence); empty Version and Type are
// filled in.
func NewDelivery(order *swapv1.SwapOrder, event webhooks.Event, redelivery int32) (*swapv1.WebhookDelivery, error) {
	if event.Version == "" {
		event.Version = webhooks.EventVersion
	}
	if event.Type == "" {
		event.Type = webhooks.EventType
	}
	switch {
	case event.OrderID != order.Spec.OrderID:
		return nil, fmt.Errorf("event order %q is not order %q", event.OrderID, order.Spec.OrderID)
	case event.Sequence < 1:
		return nil, fmt.Errorf("event sequence %d: must be at least 1", event.Sequence)
	case event.ID != webhooks.EventID(event.OrderID, string(order.UID), event.Sequence):
		return nil, fmt.Errorf("event id %q is not the id of %s seq %d", event.ID, event.OrderID, event.Sequence)
	case redelivery < 0:
		return nil, fmt.Errorf("redelivery %d: must not be negative", redelivery)
	}
	payload, err := json.Marshal(event)
	if err != nil {
		return nil, fmt.Errorf("encoding event %s: %w", event.ID, err)
	}
	if len(payload) > maxPayloadLen {
		return nil, fmt.Errorf("event %s payload is %d bytes, over %d", event.ID, len(payload), maxPayloadLen)
	}
	return &swapv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{
			Name:      DeliveryName(event.ID, redelivery),
			Namespace: order.Namespace,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: swapv1.GroupVersion.String(),
				Kind:       "SwapOrder",
				Name:       order.Name,
				UID:        order.UID,
				Controller: ptr.To(true),
			}},
		},
		Spec: swapv1.WebhookDeliverySpec{
			Partner:    order.Spec.Partner,
			OrderID:    order.Spec.OrderID,
			EventID:    event.ID,
			Sequence:   event.Sequence,
			Payload:    string(payload),
			Redelivery: redelivery,
		},
	}, nil
}

// Redeliver returns a new delivery of orig's event, for a partner's redeliver request: same
// partner, owner, webhook-id and payload bytes, a fresh status, name DeliveryName(event,
// redelivery). Use NextRedelivery to pick redelivery.
func Redeliver(orig *swapv1.WebhookDelivery, redelivery int32) (*swapv1.WebhookDelivery, error) {
	if redelivery < 1 {
		return nil, fmt.Errorf("redelivery %d: must be at least 1", redelivery)
	}
	spec := orig.Spec
	spec.Redelivery = redelivery
	return &swapv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{
			Name:            DeliveryName(spec.EventID, redelivery),
			Namespace:       orig.Namespace,
			OwnerReferences: append([]metav1.OwnerReference(nil), orig.OwnerReferences...),
		},
		Spec: spec,
	}, nil
}

// NextRedelivery is the redelivery number after the highest among existing, the deliveries
// of one event (e.g. listed through the spec.eventId index).
func NextRedelivery(existing []swapv1.WebhookDelivery) int32 {
	var highest int32
	for _, d := range existing {
		highest = max(highest, d.Spec.Redelivery)
	}
	return highest + 1
}

// Enabled reports whether partner p wants status webhooks.
func Enabled(p *swapv1.Partner) bool { return p.Spec.Webhook != nil && p.Spec.Webhook.Enabled }
