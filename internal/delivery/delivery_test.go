package delivery

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

func testOrder() *swapv1.SwapOrder {
	o := &swapv1.SwapOrder{}
	o.Name, o.Namespace, o.UID = "ord-abcdefghijklmnopqrstuvwxyz", "partners", types.UID("uid-1")
	o.Spec.OrderID = "ord_abcdefghijklmnopqrstuvwxyz"
	o.Spec.Partner = "acme"
	o.Spec.ProviderID = swapv1.ProviderRouteA
	o.Status.InTxHashes = []string{"0xin"}
	return o
}

func TestNewDelivery(t *testing.T) {
	order := testOrder()
	at := swapv1.NewPreciseTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	ev := EventFor(order, swapv1.StatusTransition{Seq: 2, Status: swapv1.OrderProcessing, PreviousStatus: swapv1.OrderPending, At: at})

	d, err := NewDelivery(order, ev, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantID := webhooks.EventID(order.Spec.OrderID, string(order.UID), 2)
	if d.Name != strings.ReplaceAll(wantID, "_", "-") || d.Namespace != "partners" {
		t.Fatalf("name %s/%s", d.Namespace, d.Name)
	}
	if d.Spec.EventID != wantID || d.Spec.Partner != "acme" || d.Spec.OrderID != order.Spec.OrderID || d.Spec.Sequence != 2 || d.Spec.Redelivery != 0 {
		t.Fatalf("spec %+v", d.Spec)
	}
	if len(d.OwnerReferences) != 1 || d.OwnerReferences[0].UID != order.UID || d.OwnerReferences[0].Kind != "SwapOrder" || !*d.OwnerReferences[0].Controller {
		t.Fatalf("owner %+v", d.OwnerReferences)
	}
	var back webhooks.Event
	if err := json.Unmarshal([]byte(d.Spec.Payload), &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != wantID || back.Type != webhooks.EventType || back.Version != webhooks.EventVersion ||
		back.Status != "PROCESSING" || back.PreviousStatus != "PENDING" || back.ProviderID != "route_A" ||
		back.Sequence != 2 || !back.OccurredAt.Equal(at.Time) || len(back.InTxHashes) != 1 || back.OutTxHashes == nil {
		t.Fatalf("payload %s", d.Spec.Payload)
	}

	again, _ := NewDelivery(order, ev, 0)
	if again.Name != d.Name || again.Spec.Payload != d.Spec.Payload {
		t.Fatal("NewDelivery is not deterministic")
	}
	r3, err := NewDelivery(order, ev, 3)
	if err != nil || r3.Name != d.Name+"-r3" || r3.Spec.Payload != d.Spec.Payload {
		t.Fatalf("redelivery 3: %v %s", err, r3.Name)
	}
}

func TestNewDeliveryRejectsInconsistentEvents(t *testing.T) {
	order := testOrder()
	good := EventFor(order, swapv1.StatusTransition{Seq: 1, Status: swapv1.OrderPending})
	tests := map[string]func(e *webhooks.Event) int32{
		"other order":    func(e *webhooks.Event) int32 { e.OrderID = "ord_bbcdefghijklmnopqrstuvwxyz"; return 0 },
		"seq 0":          func(e *webhooks.Event) int32 { e.Sequence = 0; return 0 },
		"id not derived": func(e *webhooks.Event) int32 { e.ID = "evt_abc"; return 0 },
		"negative redel": func(e *webhooks.Event) int32 { return -1 },
		"too large":      func(e *webhooks.Event) int32 { e.InTxHashes = []string{strings.Repeat("a", maxPayloadLen)}; return 0 },
	}
	for name, mutate := range tests {
		e := good
		redelivery := mutate(&e)
		if _, err := NewDelivery(order, e, redelivery); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewDelivery(order, good, 0); err != nil {
		t.Fatalf("good event refused: %v", err)
	}
}

func TestRedeliver(t *testing.T) {
	order := testOrder()
	orig, err := NewDelivery(order, EventFor(order, swapv1.StatusTransition{Seq: 1, Status: swapv1.OrderPending}), 0)
	if err != nil {
		t.Fatal(err)
	}
	orig.Status.Phase = swapv1.DeliveryFailed
	n := NextRedelivery([]swapv1.WebhookDelivery{*orig})
	if n != 1 {
		t.Fatalf("NextRedelivery = %d", n)
	}
	r, err := Redeliver(orig, n)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != orig.Name+"-r1" || r.Spec.EventID != orig.Spec.EventID || r.Spec.Payload != orig.Spec.Payload ||
		r.Spec.Redelivery != 1 || r.Status.Phase != "" || r.OwnerReferences[0].UID != order.UID {
		t.Fatalf("redelivery %+v", r)
	}
	if NextRedelivery([]swapv1.WebhookDelivery{*orig, *r}) != 2 {
		t.Fatal("NextRedelivery after r1")
	}
	if _, err := Redeliver(orig, 0); err == nil {
		t.Fatal("redelivery 0 accepted")
	}
}
