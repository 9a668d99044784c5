package opctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
)

// checkEvery is how often the plugin looks at the order while waiting; progressEvery how
// often it says it still waits.
const (
	checkEvery    = 200 * time.Millisecond
	progressEvery = 5 * time.Second
)

// outcomeReasons are the reasons of the Events that report what became of a verb's request.
func outcomeReasons(v verbs.Verb) []string {
	switch v {
	case verbs.Pause:
		return []string{v.RejectedReason(), verbs.ReasonPauseEnded}
	case verbs.Poll:
		return []string{v.RejectedReason(), verbs.ReasonPolled}
	case verbs.Resolve, verbs.Approve, verbs.Reject:
		return []string{v.RejectedReason()}
	case verbs.Redeliver:
		return []string{v.RejectedReason(), verbs.ReasonRedelivered}
	}
	return nil
}

// eventCounts identifies outcome Events: name → times seen.
type eventCounts map[string]int32

func countsOf(events []corev1.Event) eventCounts {
	counts := eventCounts{}
	for i := range events {
		counts[events[i].Name] = timesSeen(&events[i])
	}
	return counts
}

func timesSeen(e *corev1.Event) int32 {
	if e.Series != nil {
		return max(e.Series.Count, e.Count)
	}
	return max(e.Count, 1)
}

// outcomeEvents are the order's Events that report what became of a request of verb v.
func (s *session) outcomeEvents(ctx context.Context, o *swapv1.SwapOrder, v verbs.Verb) ([]corev1.Event, error) {
	var list corev1.EventList
	if err := s.kube.List(ctx, &list, client.InNamespace(o.Namespace), client.MatchingFields{"involvedObject.uid": string(o.UID)}); err != nil {
		return nil, fmt.Errorf("reading the order's events: %w", err)
	}
	reasons := outcomeReasons(v)
	return slices.DeleteFunc(list.Items, func(e corev1.Event) bool { return !slices.Contains(reasons, e.Reason) }), nil
}

// since are the events not in before, or seen more often since.
func since(before eventCounts, events []corev1.Event) []corev1.Event {
	return slices.DeleteFunc(events, func(e corev1.Event) bool { return timesSeen(&e) <= before[e.Name] })
}

// await waits until the order reconciler has answered the request written as value, and
// reports its answer: nil after printing what happened, or the refusal.
func (s *session) await(ctx context.Context, written *swapv1.SwapOrder, req verbs.Request, value string, before eventCounts) error {
	start := time.Now()
	lastSaid := start
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for {
		o := &swapv1.SwapOrder{}
		err := s.kube.Get(ctx, client.ObjectKeyFromObject(written), o)
		if apierrors.IsNotFound(err) {
			o = nil
		} else if err != nil {
			return err
		}
		var fresh []corev1.Event
		if o != nil {
			all, err := s.outcomeEvents(ctx, o, req.Verb)
			if err != nil {
				return err
			}
			fresh = since(before, all)
		}
		done, err := outcome(req, value, o, fresh)
		if err != nil {
			return err
		}
		if done != "" {
			_, err := fmt.Fprintf(s.out, "order %s: %s\n", written.Spec.OrderID, done)
			return err
		}
		if time.Since(start) > s.wait {
			if _, pending := o.GetAnnotations()[req.Verb.Annotation()]; !pending && req.Verb != verbs.Resume {
				// Taken, but its outcome Event (best effort) never showed.
				return fmt.Errorf("%s of order %s: the order controller took the request but reported no outcome within %s; "+
					"see kubectl describe swaporder %s", req.Verb, written.Spec.OrderID, s.wait, written.Name)
			}
			return fmt.Errorf("%s of order %s: no answer from the order controller within %s; the request stays on the order "+
				"(annotation %s) and is acted on once the controller runs: is it running? (kubectl describe swaporder %s)",
				req.Verb, written.Spec.OrderID, s.wait, req.Verb.Annotation(), written.Name)
		}
		if time.Since(lastSaid) >= progressEvery {
			lastSaid = time.Now()
			fmt.Fprintf(s.progress, "waiting for the order controller to act on %s of order %s (%s of at most %s)\n",
				req.Verb, written.Spec.OrderID, time.Since(start).Round(time.Second), s.wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// outcome tells what became of a request written as value, from the order now (nil once it
// left etcd) and the outcome Events recorded since the request: a line saying it took
// effect, an error saying why not, or neither while the reconciler has not answered.
func outcome(req verbs.Request, value string, o *swapv1.SwapOrder, fresh []corev1.Event) (string, error) {
	if o == nil {
		return "", errors.New(string(req.Verb) + " not done: the order ended and left etcd before the order controller acted")
	}
	ann := o.GetAnnotations()
	_, pending := ann[req.Verb.Annotation()]
	// A refused request is answered once it is also removed: the plugin returns to an order
	// that no longer carries it.
	for _, e := range fresh {
		switch {
		case pending:
		case e.Reason == req.Verb.RejectedReason():
			return "", errors.New(e.Message)
		case e.Reason == verbs.ReasonPauseEnded:
			return "", fmt.Errorf("pause not done: %s", e.Message)
		}
	}
	paused := meta.FindStatusCondition(o.Status.Conditions, swapv1.ConditionPaused)
	pausedNow := paused != nil && paused.Status == "True"
	switch req.Verb {
	case verbs.Pause:
		note := "paused by " + ann[swapv1.RequestedBy(swapv1.AnnotationPaused)] + ": " + value
		if pausedNow && strings.HasSuffix(paused.Message, ": "+note) {
			return note + "; no provider steps until resume", nil
		}
	case verbs.Resume:
		// An archived order is out of the reconciler's reach; nothing of it is paused anyway.
		// value is who resumes (whoami), when the API server said.
		if !pending && (!pausedNow || o.Labels[swapv1.LabelArchived] == "true") {
			if value == "" {
				return fmt.Sprintf("resumed; the order is %s", statusOf(o)), nil
			}
			return fmt.Sprintf("resumed by %s; the order is %s", value, statusOf(o)), nil
		}
	case verbs.Resolve:
		if r := o.Status.Resolution; r != nil && sameRequest(r, value) {
			return fmt.Sprintf("resolved to %s by %s: %s", r.Status, r.By, r.Reason), nil
		}
	case verbs.Approve:
		if rv := o.Status.Review; rv != nil && rv.Decision == swapv1.ReviewApproved && !pending {
			return fmt.Sprintf("approved by %s; the order is %s", rv.By, statusOf(o)), nil
		}
	case verbs.Reject:
		if rv := o.Status.Review; rv != nil && rv.Decision == swapv1.ReviewRejected && !pending {
			return fmt.Sprintf("rejected by %s (%s); the order is %s %s", rv.By, rv.Reason, o.Status.Status, o.Status.StatusReason), nil
		}
	case verbs.Poll, verbs.Redeliver:
		for _, e := range fresh {
			if !pending && (e.Reason == verbs.ReasonPolled || e.Reason == verbs.ReasonRedelivered) {
				return e.Message, nil
			}
		}
	}
	return "", nil
}

// sameRequest reports whether the recorded resolution r is the one written as value. Who
// resolved is the requester the API server stamped, not the value's by.
func sameRequest(r *swapv1.OperatorResolution, value string) bool {
	want := swapv1.OperatorResolution{}
	if err := json.Unmarshal([]byte(value), &want); err != nil {
		return false
	}
	return r.Status == want.Status && r.Reason == strings.TrimSpace(want.Reason)
}

func statusOf(o *swapv1.SwapOrder) string {
	if o.Status.Status == "" {
		return "new (no deposit address yet)"
	}
	return string(o.Status.Status)
}
