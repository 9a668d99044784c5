package opctl

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
)

func TestOutcome(t *testing.T) {
	order := func(annotations map[string]string, mutate func(*swapv1.SwapOrder)) *swapv1.SwapOrder {
		o := &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Annotations: annotations}}
		o.Status.Status = swapv1.OrderPending
		if mutate != nil {
			mutate(o)
		}
		return o
	}
	paused := func(msg string) func(*swapv1.SwapOrder) {
		return func(o *swapv1.SwapOrder) {
			o.Status.Conditions = []metav1.Condition{{Type: swapv1.ConditionPaused, Status: metav1.ConditionTrue, Message: msg}}
		}
	}
	event := func(typ, reason, msg string) []corev1.Event {
		return []corev1.Event{{Type: typ, Reason: reason, Message: msg}}
	}
	const resolution = `{"status":"FAILED","reason":"lost","by":"oncall"}`
	pauseAsked := map[string]string{swapv1.AnnotationPaused: "x", swapv1.RequestedBy(swapv1.AnnotationPaused): "alice"}
	tests := []struct {
		name    string
		req     verbs.Request
		value   string
		order   *swapv1.SwapOrder
		fresh   []corev1.Event
		done    string
		refused string
	}{
		{"pause pending", verbs.Request{Verb: verbs.Pause}, "x", order(pauseAsked, nil), nil, "", ""},
		{"pause done", verbs.Request{Verb: verbs.Pause}, "x",
			order(pauseAsked, paused("no provider steps until ...: paused by alice: x")), nil, "paused by alice: x; no provider steps until resume", ""},
		{"pause of another operator shown is not ours", verbs.Request{Verb: verbs.Pause}, "x",
			order(pauseAsked, paused("no provider steps until ...: paused by bob: y")), nil, "", ""},
		{"pause refused", verbs.Request{Verb: verbs.Pause}, "oncall: x", order(nil, nil),
			event("Warning", "PauseRejected", "pause refused: order ord_x is already SUCCESS"), "", "pause refused: order ord_x is already SUCCESS"},
		{"pause outlived by the order", verbs.Request{Verb: verbs.Pause}, "oncall: x", order(nil, nil),
			event("Normal", "PauseEnded", "the order ended as SUCCESS while paused"), "", "pause not done: the order ended as SUCCESS"},
		{"resume waits for the condition", verbs.Request{Verb: verbs.Resume}, "", order(nil, paused("...")), nil, "", ""},
		{"resume done", verbs.Request{Verb: verbs.Resume}, "alice", order(nil, nil), nil, "resumed by alice; the order is PENDING", ""},
		{"resume done, who unknown", verbs.Request{Verb: verbs.Resume}, "", order(nil, nil), nil, "resumed; the order is PENDING", ""},
		{"poll pending", verbs.Request{Verb: verbs.Poll}, "oncall@t", order(map[string]string{swapv1.AnnotationPoll: "oncall@t"}, nil), nil, "", ""},
		{"poll consumed, its Event not seen yet", verbs.Request{Verb: verbs.Poll}, "oncall@t", order(nil, nil), nil, "", ""},
		{"poll done", verbs.Request{Verb: verbs.Poll}, "oncall@t", order(nil, nil),
			event("Normal", "Polled", "provider route_A asked on request"), "provider route_A asked on request", ""},
		{"poll refused, not removed yet", verbs.Request{Verb: verbs.Poll}, "oncall@t", order(map[string]string{swapv1.AnnotationPoll: "oncall@t"}, nil),
			event("Warning", "PollRejected", "poll refused: order ord_x is already FAILED"), "", ""},
		{"poll refused", verbs.Request{Verb: verbs.Poll}, "oncall@t", order(nil, nil),
			event("Warning", "PollRejected", "poll refused: order ord_x is already FAILED"), "", "poll refused: order ord_x is already FAILED"},
		{"resolve done", verbs.Request{Verb: verbs.Resolve, ResolveTo: swapv1.OrderFailed}, resolution, order(nil, func(o *swapv1.SwapOrder) {
			o.Status.Resolution = &swapv1.OperatorResolution{Status: swapv1.OrderFailed, Reason: "lost", By: "oncall"}
		}), nil, "resolved to FAILED by oncall: lost", ""},
		{"the recorded requester is the API server's", verbs.Request{Verb: verbs.Resolve, ResolveTo: swapv1.OrderFailed}, resolution, order(nil, func(o *swapv1.SwapOrder) {
			o.Status.Resolution = &swapv1.OperatorResolution{Status: swapv1.OrderFailed, Reason: "lost", By: "system:serviceaccount:ops:oncall"}
		}), nil, "resolved to FAILED by system:serviceaccount:ops:oncall: lost", ""},
		{"an earlier resolution is not this one", verbs.Request{Verb: verbs.Resolve, ResolveTo: swapv1.OrderFailed}, resolution, order(nil, func(o *swapv1.SwapOrder) {
			o.Status.Resolution = &swapv1.OperatorResolution{Status: swapv1.OrderFailed, Reason: "other", By: "bob"}
		}), nil, "", ""},
		{"redeliver done", verbs.Request{Verb: verbs.Redeliver}, "oncall@t", order(nil, nil),
			event("Normal", "Redelivered", "2 webhook events sent again"), "2 webhook events sent again", ""},
		{"approve pending", verbs.Request{Verb: verbs.Approve}, "oncall@t", order(map[string]string{swapv1.AnnotationApprove: "oncall@t"}, nil), nil, "", ""},
		{"approve done", verbs.Request{Verb: verbs.Approve}, "oncall@t", order(nil, func(o *swapv1.SwapOrder) {
			o.Status.Status = ""
			o.Status.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewApproved, By: "alice"}
		}), nil, "approved by alice; the order is new (no deposit address yet)", ""},
		{"approve refused", verbs.Request{Verb: verbs.Approve}, "oncall@t", order(nil, nil),
			event("Warning", "ApproveRefused", "approve refused: order ord_x is not held for review by screening"), "", "is not held for review"},
		{"reject done", verbs.Request{Verb: verbs.Reject, Reason: "listed"}, "listed", order(nil, func(o *swapv1.SwapOrder) {
			o.Status.Status, o.Status.StatusReason = swapv1.OrderFailed, "ScreeningRejected"
			o.Status.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewRejected, By: "alice", Reason: "listed"}
		}), nil, "rejected by alice (listed); the order is FAILED ScreeningRejected", ""},
		{"a review that expired is no reject: the refusal is awaited", verbs.Request{Verb: verbs.Reject, Reason: "listed"}, "listed", order(nil, func(o *swapv1.SwapOrder) {
			o.Status.Status, o.Status.StatusReason = swapv1.OrderFailed, "ReviewExpired"
			o.Status.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewExpired}
		}), nil, "", ""},
		{"the order left etcd", verbs.Request{Verb: verbs.Poll}, "oncall@t", nil, nil, "", "left etcd before the order controller acted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done, err := outcome(tt.req, tt.value, tt.order, tt.fresh)
			switch {
			case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)):
				t.Fatalf("err = %v, want %q", err, tt.refused)
			case tt.refused == "" && err != nil:
				t.Fatalf("unexpected refusal %v", err)
			case !strings.HasPrefix(done, tt.done) || (tt.done == "") != (done == ""):
				t.Fatalf("done = %q, want %q", done, tt.done)
			}
		})
	}
}

func TestSince(t *testing.T) {
	before := eventCounts{"a": 1, "b": 2}
	events := []corev1.Event{
		{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Count: 1},
		{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Series: &corev1.EventSeries{Count: 3}},
		{ObjectMeta: metav1.ObjectMeta{Name: "c"}},
	}
	var names []string
	for _, e := range since(before, events) {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "b,c" {
		t.Fatalf("new events %v, want b (seen again) and c", names)
	}
}
