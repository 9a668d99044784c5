package apiserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/orderid"
)

func storedDelivery(partner, orderID string, seq int64) *swapv1.WebhookDelivery {
	event := fmt.Sprintf("evt_%s%d", orderID[4:14], seq)
	return &swapv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: delivery.DeliveryName(event, 0), Namespace: testNS},
		Spec: swapv1.WebhookDeliverySpec{Partner: partner, OrderID: orderID, EventID: event, Sequence: seq,
			Payload: fmt.Sprintf(`{"id":"%s","sequence":%d}`, event, seq)},
		Status: swapv1.WebhookDeliveryStatus{Phase: swapv1.DeliveryDelivered, AttemptCount: 2, LastCode: 200,
			Attempts: []swapv1.DeliveryAttempt{
				{At: metav1.NewTime(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)), Error: "connection refused", DurationMillis: 3},
				{At: metav1.NewTime(time.Date(2026, 3, 10, 12, 0, 5, 0, time.UTC)), Code: 200, DurationMillis: 12},
			}},
	}
}

func swapOrder(partner, id string) *swapv1.SwapOrder {
	return &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: orderid.ObjectName(id), Namespace: testNS},
		Spec: swapv1.SwapOrderSpec{OrderID: id, Partner: partner, OriginAsset: eth, DestinationAsset: usdc, Amount: "1",
			Sender: "a", Recipient: "b", ProviderID: swapv1.ProviderRouteA},
	}
}

func TestDeliveries(t *testing.T) {
	acmeOrder, acmeOther, globexOrder := orderid.New(), orderid.New(), orderid.New()
	h := newHarness(t,
		swapOrder("acme", acmeOrder), swapOrder("acme", acmeOther), swapOrder("globex", globexOrder),
		storedDelivery("acme", acmeOrder, 2), storedDelivery("acme", acmeOrder, 1), storedDelivery("acme", acmeOther, 1),
		storedDelivery("globex", globexOrder, 1))

	type list struct {
		Deliveries []wire.Delivery `json:"deliveries"`
	}
	all := decode[list](t, h.do(req{method: "GET", path: "/v1/webhooks/deliveries"}), 200)
	if len(all.Deliveries) != 3 {
		t.Fatalf("%d deliveries, want acme's 3", len(all.Deliveries))
	}
	one := decode[list](t, h.do(req{method: "GET", path: "/v1/webhooks/deliveries?orderId=" + acmeOrder}), 200)
	if len(one.Deliveries) != 2 || one.Deliveries[0].Sequence != 1 || one.Deliveries[1].Sequence != 2 {
		t.Fatalf("order's deliveries %+v", one.Deliveries)
	}
	d := one.Deliveries[0]
	if d.Phase != "Delivered" || d.AttemptCount != 2 || len(d.Attempts) != 2 || *d.LastCode != 200 ||
		d.Attempts[0].Code != nil || *d.Attempts[0].Error != "connection refused" || *d.Attempts[1].Code != 200 ||
		d.Attempts[1].At != "2026-03-10T12:00:05Z" {
		t.Errorf("record %+v", d)
	}
	expectError(t, h.do(req{method: "GET", path: "/v1/webhooks/deliveries?orderId=" + globexOrder}), apierror.OrderNotFound)
	expectError(t, h.do(req{method: "GET", path: "/v1/webhooks/deliveries?orderId=bogus"}), apierror.OrderNotFound)

	// Redeliver: a request naming the event under the next number each time; the
	// controllers (absent here, played by the test) make the delivery from the order's history.
	event := d.EventID
	original := storedDelivery("acme", acmeOrder, 1)
	for want := int32(1); want <= 2; want++ {
		got := decode[wire.Delivery](t, h.do(req{method: "POST", path: "/v1/webhooks/deliveries/" + event + "/redeliver"}), 202)
		if got.EventID != event || int32(got.Redelivery) != want || got.Phase != "Pending" || got.OrderID != acmeOrder || got.Sequence != 1 {
			t.Errorf("redelivery %d: %+v", want, got)
		}
		var rq swapv1.RedeliveryRequest
		if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: got.ID}, &rq); err != nil {
			t.Fatal(err)
		}
		if rq.Spec != (swapv1.RedeliveryRequestSpec{Partner: "acme", OrderID: acmeOrder, EventID: event, Redelivery: want}) {
			t.Errorf("request %+v", rq.Spec)
		}
		made, err := delivery.Redeliver(original, want)
		if err != nil || made.Name != got.ID {
			t.Fatalf("the controllers' delivery %v: %v", made, err)
		}
		if err := h.client.Create(context.Background(), made); err != nil {
			t.Fatal(err)
		}
	}
	one = decode[list](t, h.do(req{method: "GET", path: "/v1/webhooks/deliveries?orderId=" + acmeOrder}), 200)
	if len(one.Deliveries) != 4 {
		t.Errorf("%d deliveries after 2 redeliveries", len(one.Deliveries))
	}
	// The first delivery expired before its redeliveries: the event is still found, and asked
	// for again under the next number.
	if err := h.client.Delete(context.Background(), &swapv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: d.ID}}); err != nil {
		t.Fatal(err)
	}
	got := decode[wire.Delivery](t, h.do(req{method: "POST", path: "/v1/webhooks/deliveries/" + event + "/redeliver"}), 202)
	if got.Redelivery != 3 || got.ID != delivery.DeliveryName(event, 3) {
		t.Errorf("redelivery after the first expired: %+v", got)
	}
	// A number a concurrent request took is skipped, not shared.
	if err := h.client.Create(context.Background(), delivery.NewRedeliveryRequest(testNS, "acme", acmeOrder, event, 5)); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Create(context.Background(), delivery.NewRedeliveryRequest(testNS, "acme", acmeOrder, event, 4)); err != nil {
		t.Fatal(err)
	}
	if got := decode[wire.Delivery](t, h.do(req{method: "POST", path: "/v1/webhooks/deliveries/" + event + "/redeliver"}), 202); got.Redelivery != 6 {
		t.Errorf("redelivery past two pending requests: %+v", got)
	}

	// Another partner's event is not found, exactly like a missing one.
	globexEvent := storedDelivery("globex", globexOrder, 1).Spec.EventID
	other := h.do(req{method: "POST", path: "/v1/webhooks/deliveries/" + globexEvent + "/redeliver"})
	expectError(t, other, apierror.NotFound)
	// globex has no webhook configured.
	expectError(t, h.do(req{method: "POST", path: "/v1/webhooks/deliveries/" + globexEvent + "/redeliver", keyID: globexKey, secret: globexSec}),
		apierror.InvalidRequest)
	expectError(t, h.do(req{method: "POST", path: "/v1/webhooks/deliveries/evt_nothing/redeliver"}), apierror.NotFound)
}
