package controllers

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orders"
)

func TestResolveRequest(t *testing.T) {
	tests := []struct {
		name    string
		current swapv1.OrderStatus
		value   string
		wantTo  swapv1.OrderStatus
		wantErr string
	}{
		{"stalled PENDING to REFUNDED", swapv1.OrderPending, `{"status":"REFUNDED","reason":"refund tx 0xabc","by":"alice"}`, swapv1.OrderRefunded, ""},
		{"UNKNOWN to SUCCESS", swapv1.OrderUnknown, `{"status":"SUCCESS","reason":"payout 0xdef on chain","by":"bob"}`, swapv1.OrderSuccess, ""},
		{"PROCESSING to FAILED", swapv1.OrderProcessing, `{"status":"FAILED","reason":"provider confirmed loss","by":"bob"}`, swapv1.OrderFailed, ""},
		{"new order to FAILED", "", `{"status":"FAILED","reason":"provider never answered","by":"bob"}`, swapv1.OrderFailed, ""},
		{"new order cannot succeed", "", `{"status":"SUCCESS","reason":"x","by":"bob"}`, "", "never got a deposit address"},
		{"terminal stays", swapv1.OrderSuccess, `{"status":"REFUNDED","reason":"x","by":"bob"}`, "", "already SUCCESS"},
		{"not terminal", swapv1.OrderPending, `{"status":"PROCESSING","reason":"x","by":"bob"}`, "", "not terminal"},
		{"reason required", swapv1.OrderPending, `{"status":"REFUNDED","reason":"  ","by":"bob"}`, "", "reason is required"},
		{"not JSON", swapv1.OrderPending, `REFUNDED`, "", "must be JSON"},
		{"unknown field", swapv1.OrderPending, `{"status":"REFUNDED","reason":"x","by":"b","amount":"1"}`, "", "must be JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, change, err := resolveRequest(tt.current, tt.value, "alice")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if change != (orders.Change{To: tt.wantTo, Reason: ReasonOperatorResolved}) || res.Status != tt.wantTo || res.At != nil {
				t.Errorf("change %+v, resolution %+v", change, res)
			}
		})
	}
}

// Who resolved is the API server's stamp, never the "by" the value claims; without a stamp
// the request is refused.
func TestResolveRequestRecordsTheRequester(t *testing.T) {
	value := `{"status":"REFUNDED","reason":"refund tx 0xabc","by":"someone-else"}`
	res, _, err := resolveRequest(swapv1.OrderPending, value, "system:serviceaccount:ops:oncall")
	if err != nil || res.By != "system:serviceaccount:ops:oncall" {
		t.Errorf("by %q, err %v; want the stamped requester", res.By, err)
	}
	if _, _, err := resolveRequest(swapv1.OrderPending, value, " "); err == nil ||
		!strings.Contains(err.Error(), swapv1.RequestedBy(swapv1.AnnotationResolve)) {
		t.Errorf("err = %v, want a refusal naming the missing stamp", err)
	}
}

func TestHoldPaused(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	paused := operatorControls{paused: true}
	pausedPoll := operatorControls{paused: true, pollNow: true}
	tests := []struct {
		name         string
		status       swapv1.OrderStatus
		c            operatorControls
		step         orders.Step
		wantHold     bool
		wantPaused   bool
		wantConsumed bool
	}{
		{"not paused polls", swapv1.OrderPending, operatorControls{}, orders.StepPoll, false, false, false},
		{"paused holds a poll", swapv1.OrderPending, paused, orders.StepPoll, true, true, false},
		{"paused holds address creation", "", paused, orders.StepCreateDeposit, true, true, false},
		{"paused holds a hint", swapv1.OrderPending, paused, orders.StepForwardHint, true, true, false},
		{"paused still emits webhooks", swapv1.OrderPending, paused, orders.StepEmit, false, true, false},
		{"poll request passes a pause once", swapv1.OrderPending, pausedPoll, orders.StepPoll, false, true, true},
		{"poll request forwards a pending hint", swapv1.OrderPending, pausedPoll, orders.StepForwardHint, false, true, true},
		{"poll request never creates an address", "", pausedPoll, orders.StepCreateDeposit, true, true, true},
		{"poll request waits while the pass emits", swapv1.OrderPending, pausedPoll, orders.StepEmit, false, true, false},
		{"poll request without pause acts through nextPollAt", swapv1.OrderPending, operatorControls{pollNow: true}, orders.StepEmit, false, false, true},
		{"a terminal order is not paused", swapv1.OrderSuccess, paused, orders.StepArchive, false, false, false},
		{"poll request on a terminal order is dropped", swapv1.OrderSuccess, pausedPoll, orders.StepWait, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &swapv1.SwapOrderStatus{Status: tt.status}
			// A condition left from an earlier pause goes when it no longer applies.
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: swapv1.ConditionPaused, Status: metav1.ConditionTrue, Reason: "OperatorPaused"})
			c := tt.c
			if got := holdPaused(st, 1, &c, tt.step, "alice: incident", now); got != tt.wantHold {
				t.Errorf("hold = %v, want %v", got, tt.wantHold)
			}
			if got := meta.IsStatusConditionTrue(st.Conditions, swapv1.ConditionPaused); got != tt.wantPaused {
				t.Errorf("Paused condition = %v, want %v", got, tt.wantPaused)
			}
			if got := slices.Contains(c.consumed, swapv1.AnnotationPoll); got != tt.wantConsumed {
				t.Errorf("poll consumed = %v, want %v", got, tt.wantConsumed)
			}
		})
	}
}

func TestSameResolution(t *testing.T) {
	applied := &swapv1.OperatorResolution{Status: swapv1.OrderRefunded, Reason: "r", By: "a", At: &metav1.Time{}}
	if !sameResolution(applied, swapv1.OperatorResolution{Status: swapv1.OrderRefunded, Reason: "r", By: "a"}) {
		t.Error("the applied request is not recognised")
	}
	if sameResolution(applied, swapv1.OperatorResolution{Status: swapv1.OrderSuccess, Reason: "r", By: "a"}) || sameResolution(nil, *applied) {
		t.Error("a different request passes as applied")
	}
}
