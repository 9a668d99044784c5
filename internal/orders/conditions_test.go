package orders

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestSetConditions(t *testing.T) {
	stalled := Issue{Reason: ReasonProviderNotConfigured, Message: "provider route_A is not configured", Stalled: true}
	retrying := Issue{Reason: "ProviderRetrying", Message: "provider route_A: upstream error"}
	tests := []struct {
		name                          string
		status                        swapv1.OrderStatus
		issue                         Issue
		ready, reconciling, isStalled bool
		readyReason, stalledReason    string
	}{
		{"new", "", Issue{}, false, true, false, "DepositAddressPending", "Progressing"},
		{"new, provider missing", "", stalled, false, false, true, "DepositAddressPending", ReasonProviderNotConfigured},
		{"pending", pending, Issue{}, true, true, false, "Pending", "Progressing"},
		{"processing, retrying", processing, retrying, true, true, false, "Processing", "Progressing"},
		{"unknown", unknown, Issue{}, false, true, false, "Unknown", "Progressing"},
		{"success", success, Issue{}, true, false, false, "Success", "Terminal"},
		{"refunded", refunded, Issue{}, false, false, false, "Refunded", "Terminal"},
		{"failed ignores issue", failed, stalled, false, false, false, "Failed", "Terminal"},
	}
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := swapv1.SwapOrderStatus{Status: tt.status}
			SetConditions(&st, 7, tt.issue, now)
			check := func(typ string, want bool) *metav1.Condition {
				c := meta.FindStatusCondition(st.Conditions, typ)
				if c == nil {
					t.Fatalf("%s missing", typ)
				}
				if (c.Status == metav1.ConditionTrue) != want || c.ObservedGeneration != 7 {
					t.Errorf("%s = %s (gen %d), want %v (gen 7)", typ, c.Status, c.ObservedGeneration, want)
				}
				return c
			}
			if r := check(swapv1.ConditionReady, tt.ready); r.Reason != tt.readyReason {
				t.Errorf("Ready reason %q, want %q", r.Reason, tt.readyReason)
			}
			check(swapv1.ConditionReconciling, tt.reconciling)
			if s := check(swapv1.ConditionStalled, tt.isStalled); s.Reason != tt.stalledReason {
				t.Errorf("Stalled reason %q, want %q", s.Reason, tt.stalledReason)
			}
		})
	}
}

// Repeating the same state must not change the conditions at all, or every poll would write.
func TestSetConditionsIsStable(t *testing.T) {
	st := swapv1.SwapOrderStatus{Status: pending, StatusReason: "AwaitingDeposit"}
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	SetConditions(&st, 1, Issue{}, t0)
	before := st.DeepCopy()
	SetConditions(&st, 1, Issue{}, metav1.NewTime(t0.Add(time.Hour)))
	for i := range before.Conditions {
		if before.Conditions[i] != st.Conditions[i] {
			t.Fatalf("condition changed on repeat: %+v -> %+v", before.Conditions[i], st.Conditions[i])
		}
	}
}
