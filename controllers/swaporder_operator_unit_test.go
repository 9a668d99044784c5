package controllers

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/client-go/tools/events"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
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
			res, change, err := resolveRequest(verbs.Order{ID: "ord_x", Status: tt.current}, tt.value, "alice")
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
	res, _, err := resolveRequest(verbs.Order{ID: "ord_x", Status: swapv1.OrderPending}, value, "system:serviceaccount:ops:oncall")
	if err != nil || res.By != "system:serviceaccount:ops:oncall" {
		t.Errorf("by %q, err %v; want the stamped requester", res.By, err)
	}
	if _, _, err := resolveRequest(verbs.Order{ID: "ord_x", Status: swapv1.OrderPending}, value, " "); err == nil ||
		!strings.Contains(err.Error(), swapv1.RequestedBy(swapv1.AnnotationResolve)) {
		t.Errorf("err = %v, want a refusal naming the missing stamp", err)
	}
}

// What a pause holds is orders.Plan's (its table); the Paused condition follows the pause.
func TestMarkPaused(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	tests := []struct {
		name       string
		status     swapv1.OrderStatus
		paused     bool
		wantPaused bool
	}{
		{"not paused", swapv1.OrderPending, false, false},
		{"paused", swapv1.OrderPending, true, true},
		{"a new order paused", "", true, true},
		{"a terminal order is not paused", swapv1.OrderSuccess, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &swapv1.SwapOrderStatus{Status: tt.status}
			// A condition left from an earlier pause goes when it no longer applies.
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: swapv1.ConditionPaused, Status: metav1.ConditionTrue, Reason: "OperatorPaused"})
			markPaused(st, 1, tt.paused, "alice: incident", now)
			if got := meta.IsStatusConditionTrue(st.Conditions, swapv1.ConditionPaused); got != tt.wantPaused {
				t.Errorf("Paused condition = %v, want %v", got, tt.wantPaused)
			}
		})
	}
}

func TestSettleOperatorControls(t *testing.T) {
	pausedCondition := []metav1.Condition{{Type: swapv1.ConditionPaused, Status: metav1.ConditionTrue, Reason: "OperatorPaused"}}
	tests := []struct {
		name         string
		status       swapv1.OrderStatus
		conditions   []metav1.Condition
		c            orders.Controls
		step         orders.Step
		held         bool
		wantConsumed []string
		wantPolled   bool
		wantEvent    string
	}{
		{"a poll taken by a poll step is done", swapv1.OrderPending, nil,
			orders.Controls{PollNow: true}, orders.StepPoll, false, []string{swapv1.AnnotationPoll}, true, ""},
		{"a poll taken by a hint step is done", swapv1.OrderPending, nil,
			orders.Controls{PollNow: true}, orders.StepForwardHint, false, []string{swapv1.AnnotationPoll}, true, ""},
		{"a poll waits while the pass only emits", swapv1.OrderPending, nil,
			orders.Controls{PollNow: true}, orders.StepEmit, false, nil, false, ""},
		{"a poll held back for capacity asked nothing", swapv1.OrderPending, nil,
			orders.Controls{PollNow: true}, orders.StepPoll, true, nil, false, ""},
		{"a live paused order stays paused", swapv1.OrderPending, pausedCondition,
			orders.Controls{Paused: true}, orders.StepWait, false, nil, false, ""},
		{"an order that ended while paused is paused no more", swapv1.OrderSuccess, pausedCondition,
			orders.Controls{Paused: true}, orders.StepPoll, false, []string{swapv1.AnnotationPaused}, false, "Normal PauseEnded"},
		{"a pause of a finished order is refused", swapv1.OrderRefunded, nil,
			orders.Controls{Paused: true}, orders.StepWait, false, []string{swapv1.AnnotationPaused}, false, "Warning PauseRejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := events.NewFakeRecorder(10)
			r := &SwapOrderReconciler{Recorder: rec}
			o := &swapv1.SwapOrder{}
			o.Spec.OrderID = "ord_x"
			o.Status.Status, o.Status.Conditions = tt.status, slices.Clone(tt.conditions)
			p := &orderPass{order: o, orig: *o.Status.DeepCopy(), decision: orders.Decision{Step: tt.step},
				controls: operatorControls{Controls: tt.c}, effect: orderEffect{held: tt.held}}
			r.settleOperatorControls(p)
			var consumed []string
			for _, a := range p.effect.remove {
				consumed = append(consumed, a.key)
			}
			if polled := len(p.effect.afterRemoval) > 0; !slices.Equal(consumed, tt.wantConsumed) || polled != tt.wantPolled {
				t.Errorf("consumed %v polled %v, want %v %v", consumed, polled, tt.wantConsumed, tt.wantPolled)
			}
			r.recordEvents(o, p.effect.events)
			if tt.status.IsTerminal() && meta.FindStatusCondition(o.Status.Conditions, swapv1.ConditionPaused) != nil {
				t.Error("a finished order keeps its Paused condition")
			}
			var got string
			select {
			case got = <-rec.Events:
			default:
			}
			if !strings.HasPrefix(got, tt.wantEvent) || (tt.wantEvent == "") != (got == "") {
				t.Errorf("event %q, want one starting %q", got, tt.wantEvent)
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
