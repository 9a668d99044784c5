package delivery

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestCacheTransform(t *testing.T) {
	const payload = `{"id":"evt_x","sequence":1}`
	for _, tc := range []struct {
		phase       swapv1.DeliveryPhase
		wantPayload string
	}{
		{"", payload}, // just created: still to send
		{swapv1.DeliveryPending, payload},
		{swapv1.DeliveryDelivered, ""},
		{swapv1.DeliveryFailed, ""},
	} {
		d := &swapv1.WebhookDelivery{
			ObjectMeta: metav1.ObjectMeta{Name: "evt-x", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "swaprouter"}}},
			Spec:       swapv1.WebhookDeliverySpec{EventID: "evt_x", Sequence: 1, Payload: payload},
			Status: swapv1.WebhookDeliveryStatus{Phase: tc.phase, AttemptCount: 1, LastCode: 200,
				Attempts: []swapv1.DeliveryAttempt{{Code: 200, DurationMillis: 3}}},
		}
		out, err := CacheTransform(d)
		if err != nil {
			t.Fatal(err)
		}
		got := out.(*swapv1.WebhookDelivery)
		if got.Spec.Payload != tc.wantPayload {
			t.Errorf("phase %q: payload %q, want %q", tc.phase, got.Spec.Payload, tc.wantPayload)
		}
		// What the deliveries page and the archive summary show stays.
		if got.Spec.EventID != "evt_x" || got.Spec.Sequence != 1 || len(got.Status.Attempts) != 1 || got.Status.LastCode != 200 {
			t.Errorf("phase %q: trimmed more than the payload: %+v", tc.phase, got)
		}
		if got.ManagedFields != nil {
			t.Errorf("phase %q: managed fields kept", tc.phase)
		}
	}
	// Not a delivery (a tombstone, another type): unchanged.
	o := &swapv1.SwapOrder{Spec: swapv1.SwapOrderSpec{OrderID: "ord_x"}}
	if out, err := TrimFinished(o); err != nil || out.(*swapv1.SwapOrder).Spec.OrderID != "ord_x" {
		t.Errorf("order: %v %v", out, err)
	}
}
