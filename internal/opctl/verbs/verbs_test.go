package verbs

import (
	"strings"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestDecide(t *testing.T) {
	const id = "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	newOrder := Order{ID: id, Where: InEtcd, WebhooksEnabled: true}
	live := Order{ID: id, Where: InEtcd, Status: swapv1.OrderPending, Events: 1, WebhooksEnabled: true}
	paused := live
	paused.Paused, paused.PausedBy = true, "alice: incident"
	pausedNew := newOrder
	pausedNew.Paused, pausedNew.PausedBy = true, "alice"
	terminal := Order{ID: id, Where: InEtcd, Status: swapv1.OrderRefunded, Events: 3, WebhooksEnabled: true}
	endedPaused := terminal
	endedPaused.Paused = true
	archived := terminal
	archived.Where = Archived
	missing := Order{ID: id, Where: Missing}
	muted := terminal
	muted.WebhooksEnabled = false
	held := newOrder
	held.HeldForReview = true
	heldPaused := held
	heldPaused.Paused, heldPaused.PausedBy = true, "alice"

	refunded := func(v Verb) Request { return Request{Verb: v, ResolveTo: swapv1.OrderRefunded} }
	tests := []struct {
		name  string
		req   Request
		order Order
		// refused is a part of the refusal's message; empty: allowed.
		refused string
	}{
		{"pause a new order", Request{Verb: Pause}, newOrder, ""},
		{"pause a live order", Request{Verb: Pause}, live, ""},
		{"pause a paused order", Request{Verb: Pause}, paused, "already paused (alice: incident)"},
		{"pause a terminal order", Request{Verb: Pause}, terminal, "already REFUNDED"},
		{"pause an archived order", Request{Verb: Pause}, archived, "is archived: it ended as REFUNDED"},
		{"pause a missing order", Request{Verb: Pause}, missing, "does not exist"},

		{"resume a new order", Request{Verb: Resume}, newOrder, "not paused"},
		{"resume a live order", Request{Verb: Resume}, live, "not paused"},
		{"resume a paused order", Request{Verb: Resume}, paused, ""},
		{"resume a paused new order", Request{Verb: Resume}, pausedNew, ""},
		{"resume a terminal order", Request{Verb: Resume}, terminal, "not paused"},
		{"resume an order that ended while paused", Request{Verb: Resume}, endedPaused, ""},
		{"resume an archived order", Request{Verb: Resume}, archived, "is archived"},
		{"resume a missing order", Request{Verb: Resume}, missing, "does not exist"},

		{"poll a new order", Request{Verb: Poll}, newOrder, "no deposit address yet"},
		{"poll a paused new order", Request{Verb: Poll}, pausedNew, "pause holds the address request"},
		{"poll a live order", Request{Verb: Poll}, live, ""},
		{"poll a paused order", Request{Verb: Poll}, paused, ""},
		{"poll a terminal order", Request{Verb: Poll}, terminal, "already REFUNDED"},
		{"poll an archived order", Request{Verb: Poll}, archived, "is archived"},
		{"poll a missing order", Request{Verb: Poll}, missing, "does not exist"},

		{"resolve a new order to FAILED", Request{Verb: Resolve, ResolveTo: swapv1.OrderFailed}, newOrder, ""},
		{"resolve a new order to REFUNDED", refunded(Resolve), newOrder, "can only be resolved to FAILED, not REFUNDED"},
		{"resolve a live order", refunded(Resolve), live, ""},
		{"resolve a paused order", refunded(Resolve), paused, ""},
		{"resolve to a live status", Request{Verb: Resolve, ResolveTo: swapv1.OrderProcessing}, live, "must be SUCCESS, REFUNDED or FAILED"},
		{"resolve a terminal order", refunded(Resolve), terminal, "already REFUNDED"},
		{"resolve an archived order", refunded(Resolve), archived, "is archived"},
		{"resolve a missing order", refunded(Resolve), missing, "does not exist"},

		{"redeliver a new order", Request{Verb: Redeliver}, newOrder, "no webhook events yet"},
		{"redeliver a live order", Request{Verb: Redeliver}, live, ""},
		{"redeliver a paused order", Request{Verb: Redeliver}, paused, ""},
		{"redeliver a terminal order", Request{Verb: Redeliver}, terminal, ""},
		{"redeliver an archived order", Request{Verb: Redeliver}, archived, ""},
		{"redeliver without webhooks", Request{Verb: Redeliver}, muted, "webhooks are disabled"},
		{"redeliver a missing order", Request{Verb: Redeliver}, missing, "does not exist"},

		{"approve a held order", Request{Verb: Approve}, held, ""},
		{"approve a held, paused order", Request{Verb: Approve}, heldPaused, ""},
		{"approve a new order screening did not hold", Request{Verb: Approve}, newOrder, "not held for review"},
		{"approve a live order", Request{Verb: Approve}, live, "not held for review"},
		{"approve a terminal order", Request{Verb: Approve}, terminal, "already REFUNDED"},
		{"approve an archived order", Request{Verb: Approve}, archived, "is archived"},
		{"approve a missing order", Request{Verb: Approve}, missing, "does not exist"},

		{"reject a held order", Request{Verb: Reject, Reason: "listed sender"}, held, ""},
		{"reject a held order without a reason", Request{Verb: Reject, Reason: "  "}, held, "needs a reason"},
		{"reject a live order", Request{Verb: Reject, Reason: "x"}, live, "not held for review"},
		{"reject a terminal order", Request{Verb: Reject, Reason: "x"}, terminal, "already REFUNDED"},
		{"reject an archived order", Request{Verb: Reject, Reason: "x"}, archived, "is archived"},

		{"an unknown verb", Request{Verb: "cancel"}, live, `unknown verb "cancel"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Decide(tt.req, tt.order)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("err = %v, want a refusal saying %q", err, tt.refused)
			}
			if !strings.HasPrefix(err.Error(), string(tt.req.Verb)+" refused: order "+id+" ") {
				t.Errorf("the refusal %q does not name the verb and the order", err)
			}
		})
	}
}

func TestOf(t *testing.T) {
	o := &swapv1.SwapOrder{}
	o.Spec.OrderID = "ord_x"
	o.Annotations = map[string]string{swapv1.AnnotationPaused: "bob: why"}
	o.Status.Status = swapv1.OrderProcessing
	o.Status.History = make([]swapv1.StatusTransition, 2)
	got := Of(o, true)
	want := Order{ID: "ord_x", Where: InEtcd, Status: swapv1.OrderProcessing, Paused: true, PausedBy: "bob: why", Events: 2, WebhooksEnabled: true}
	if got != want {
		t.Fatalf("Of = %+v, want %+v", got, want)
	}

	o.Status = swapv1.SwapOrderStatus{}
	o.Spec.Screening = &swapv1.ScreeningRecord{Outcome: swapv1.ScreeningHeld}
	if !Of(o, false).HeldForReview {
		t.Errorf("a new order screening held is not HeldForReview")
	}
	o.Status.Review = &swapv1.ScreeningReview{Decision: swapv1.ReviewApproved}
	if Of(o, false).HeldForReview {
		t.Errorf("an approved order is still HeldForReview")
	}
}

// A refusal names who paused the order as the API server stamped it, beside the pause's text.
func TestOfNamesWhoPaused(t *testing.T) {
	o := &swapv1.SwapOrder{}
	o.Annotations = map[string]string{swapv1.AnnotationPaused: "incident", swapv1.RequestedBy(swapv1.AnnotationPaused): "alice"}
	if got := Of(o, false).PausedBy; got != "alice: incident" {
		t.Errorf("PausedBy %q, want %q", got, "alice: incident")
	}
	err := Decide(Request{Verb: Pause}, Of(o, false))
	if err == nil || !strings.Contains(err.Error(), "already paused (alice: incident)") {
		t.Errorf("pause of a paused order: %v", err)
	}
}
