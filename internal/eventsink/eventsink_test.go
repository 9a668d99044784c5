package eventsink

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
)

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)}}
}

func written(g Gomega, cs *fake.Clientset) func() []eventsv1.Event {
	return func() []eventsv1.Event {
		l, err := cs.EventsV1().Events("ns").List(context.Background(), metav1.ListOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		return l.Items
	}
}

// TestSinkWritesEventsOnceEach: every recorded event is written, with the recorder's
// reporting controller; an exact repeat for the same object is written once; a different
// note or another object is written.
func TestSinkWritesEventsOnceEach(t *testing.T) {
	g := NewWithT(t)
	cs := fake.NewClientset()
	sink, err := New(cs.EventsV1(), logr.Discard(), prometheus.NewRegistry())
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error)
	go func() { done <- sink.Start(ctx) }()

	rec := sink.Recorder(scheme.Scheme, "swaporder-controller")
	rec.Eventf(pod("a"), nil, corev1.EventTypeWarning, "AttemptFailed", "Deliver", "status %d", 500)
	g.Eventually(written(g, cs)).Should(HaveLen(1))
	rec.Eventf(pod("a"), nil, corev1.EventTypeWarning, "AttemptFailed", "Deliver", "status %d", 500)
	rec.Eventf(pod("a"), nil, corev1.EventTypeWarning, "AttemptFailed", "Deliver", "status %d", 502)
	rec.Eventf(pod("b"), nil, corev1.EventTypeWarning, "AttemptFailed", "Deliver", "status %d", 500)
	g.Eventually(written(g, cs)).Should(HaveLen(3))
	g.Eventually(func() float64 { return testutil.ToFloat64(sink.notWritten.WithLabelValues(reasonRepeat)) }).Should(Equal(1.0))
	g.Consistently(written(g, cs), 200*time.Millisecond).Should(HaveLen(3))
	for _, e := range written(g, cs)() {
		g.Expect(e.ReportingController).To(Equal("swaporder-controller"))
		g.Expect(string(e.Regarding.UID)).To(HavePrefix("uid-"))
		g.Expect(e.EventTime.IsZero()).To(BeFalse())
	}
	cancel()
	g.Eventually(done).Should(Receive(BeNil()))
}

// TestRepeatWindow: an equal event is a repeat only within repeatWindow of the one written.
func TestRepeatWindow(t *testing.T) {
	s := newSink(t)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ev := func(at time.Time, note string) *eventsv1.Event {
		return &eventsv1.Event{EventTime: metav1.NewMicroTime(at), Reason: "Probe", Note: note,
			Regarding: corev1.ObjectReference{Kind: "RoutingProvider", Name: "route-a", UID: "u1"}}
	}
	for _, tc := range []struct {
		e    *eventsv1.Event
		want bool
	}{
		{ev(at, "down"), false},
		{ev(at.Add(time.Minute), "down"), true},
		{ev(at.Add(time.Minute), "down again"), false},
		{ev(at.Add(repeatWindow+time.Second), "down"), false}, // the window counts from the one written
		{ev(at.Add(repeatWindow+2*time.Second), "down"), true},
	} {
		if got := s.repeat(tc.e); got != tc.want {
			t.Errorf("repeat(%s at %s) = %v, want %v", tc.e.Note, tc.e.EventTime.Format(time.TimeOnly), got, tc.want)
		}
	}
}

// TestQueueBounded: events beyond the queue are dropped and counted, never block the
// recorder.
func TestQueueBounded(t *testing.T) {
	s := newSink(t)
	at := time.Now()
	for i := range queueSize + 3 {
		s.enqueue(&eventsv1.Event{EventTime: metav1.NewMicroTime(at), Reason: "Pending",
			Regarding: corev1.ObjectReference{UID: types.UID(rune('a' + i%26)), Name: string(rune('a'+i%26)) + "-" + time.Duration(i).String()}})
	}
	if len(s.queue) != queueSize {
		t.Fatalf("%d queued, bound %d", len(s.queue), queueSize)
	}
	if got := testutil.ToFloat64(s.notWritten.WithLabelValues(reasonQueueFull)); got != 3 {
		t.Errorf("%v counted as queue_full, want 3", got)
	}
}

func newSink(t *testing.T) *Sink {
	t.Helper()
	s, err := New(fake.NewClientset().EventsV1(), logr.Discard(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.broadcaster.Shutdown)
	return s
}
