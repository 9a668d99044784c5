package delivery

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

func TestAuthentic(t *testing.T) {
	at := swapv1.NewPreciseTime(time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC))
	order := testOrder()
	order.Status.History = []swapv1.StatusTransition{
		{Seq: 1, Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit, At: at},
		{Seq: 2, Status: swapv1.OrderProcessing, PreviousStatus: swapv1.OrderPending, At: at},
	}
	order.Status.OutTxHashes = []string{"0xout"}
	genuine := func(seq int64) *swapv1.WebhookDelivery {
		d, err := NewDelivery(order, EventFor(order, order.Status.History[seq-1]), 0)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// edit returns seq 2's genuine delivery with its payload changed by f.
	edit := func(f func(e *webhooks.Event)) *swapv1.WebhookDelivery {
		d := genuine(2)
		var e webhooks.Event
		if err := json.Unmarshal([]byte(d.Spec.Payload), &e); err != nil {
			t.Fatal(err)
		}
		f(&e)
		b, _ := json.Marshal(e)
		d.Spec.Payload = string(b)
		return d
	}
	withSpec := func(f func(s *swapv1.WebhookDeliverySpec)) *swapv1.WebhookDelivery {
		d := genuine(2)
		f(&d.Spec)
		return d
	}
	anotherPartners := order.DeepCopy()
	anotherPartners.Spec.Partner = "mallory"

	for _, tc := range []struct {
		name  string
		order *swapv1.SwapOrder
		d     *swapv1.WebhookDelivery
		ok    bool
	}{
		{"the first event as emitted", order, genuine(1), true},
		{"the first event as older releases wrote it", order, func() *swapv1.WebhookDelivery {
			d := genuine(1)
			d.Spec.Payload = strings.Replace(d.Spec.Payload, `"previousStatus":null`, `"previousStatus":""`, 1)
			return d
		}(), true},
		{"a later event claiming no previous status", order, func() *swapv1.WebhookDelivery {
			d := genuine(2)
			d.Spec.Payload = strings.Replace(d.Spec.Payload, `"previousStatus":"PENDING"`, `"previousStatus":""`, 1)
			return d
		}(), false},
		{"a later event as emitted", order, genuine(2), true},
		{"a redelivery keeps the bytes", order, func() *swapv1.WebhookDelivery { d, _ := Redeliver(genuine(2), 3); return d }(), true},
		{"fewer hashes than the order has learned since", order, edit(func(e *webhooks.Event) { e.OutTxHashes = nil }), true},
		{"a status the history does not hold", order, edit(func(e *webhooks.Event) { e.Status = "SUCCESS" }), false},
		{"another substatus", order, edit(func(e *webhooks.Event) { e.Substatus = "SENDING" }), false},
		{"another time", order, edit(func(e *webhooks.Event) { e.OccurredAt = e.OccurredAt.Add(time.Second) }), false},
		{"a hash the order lacks", order, edit(func(e *webhooks.Event) { e.OutTxHashes = []string{"0xforged"} }), false},
		{"another client reference", order, edit(func(e *webhooks.Event) { e.ClientReference = "inv-1" }), false},
		{"a sequence the history lacks", order, withSpec(func(s *swapv1.WebhookDeliverySpec) { s.Sequence = 3 }), false},
		{"another event id", order, withSpec(func(s *swapv1.WebhookDeliverySpec) {
			s.EventID = webhooks.EventID(s.OrderID, "other-uid", 2)
		}), false},
		{"another partner's order", anotherPartners, genuine(2), false},
		{"re-encoded with other spacing", order, func() *swapv1.WebhookDelivery {
			d := genuine(2)
			d.Spec.Payload = strings.Replace(d.Spec.Payload, ",", ", ", 1)
			return d
		}(), false},
		{"not JSON", order, withSpec(func(s *swapv1.WebhookDeliverySpec) { s.Payload = "{" }), false},
		{"no such order", nil, genuine(2), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Authentic(tc.order, tc.d)
			if tc.ok && err != nil {
				t.Fatalf("refused a genuine delivery: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrNotInHistory) {
				t.Fatalf("want ErrNotInHistory, got %v", err)
			}
		})
	}
}
