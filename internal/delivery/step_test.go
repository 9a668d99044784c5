package delivery

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestNext(t *testing.T) {
	created := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	first, retention := 2*time.Second, time.Hour
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: created.Add(d)} }
	delivery := func(st swapv1.WebhookDeliveryStatus) *swapv1.WebhookDelivery {
		return &swapv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}, Status: st}
	}
	deleting := delivery(swapv1.WebhookDeliveryStatus{})
	deleting.DeletionTimestamp = at(0)
	delivered := swapv1.WebhookDeliveryStatus{Phase: swapv1.DeliveryDelivered, CompletedAt: at(time.Minute)}
	tests := []struct {
		name     string
		d        *swapv1.WebhookDelivery
		now      time.Duration
		want     Step
		wantWait time.Duration
	}{
		{"being deleted", deleting, time.Hour, StepNone, 0},
		{"new, before its first attempt is due", delivery(swapv1.WebhookDeliveryStatus{}), time.Second, StepWait, time.Second},
		{"new, first attempt due", delivery(swapv1.WebhookDeliveryStatus{}), first, StepAttempt, 0},
		{"retry not due", delivery(swapv1.WebhookDeliveryStatus{Phase: swapv1.DeliveryPending, NextAttemptAt: at(time.Minute)}), 30 * time.Second, StepWait, 30 * time.Second},
		{"retry due", delivery(swapv1.WebhookDeliveryStatus{Phase: swapv1.DeliveryPending, NextAttemptAt: at(time.Minute)}), time.Minute, StepAttempt, 0},
		{"delivered, kept", delivery(delivered), 2 * time.Minute, StepKeep, retention - time.Minute},
		{"delivered, retention over", delivery(delivered), time.Minute + retention, StepExpire, 0},
		{"failed without a completion time: kept from its creation", delivery(swapv1.WebhookDeliveryStatus{Phase: swapv1.DeliveryFailed}), retention, StepExpire, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, wait := Next(tt.d, created.Add(tt.now), first, retention)
			if got != tt.want || wait != tt.wantWait {
				t.Errorf("Next = %s %s, want %s %s", got, wait, tt.want, tt.wantWait)
			}
		})
	}
}
