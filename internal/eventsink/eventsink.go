// Package eventsink writes the Kubernetes Events (events.k8s.io/v1) the controllers record,
// in bounded memory.
//
// client-go's events broadcaster, when it writes events itself, keeps every event it wrote
// for 6 to 12 minutes to fold repeats into a series, and starts a goroutine per event. With
// an Event per order transition that is every transition of the last minutes: 0.9 KiB per
// order while 10,000 orders were created, and 50–100 MB at a sustained 100
// transitions a second. The Sink keeps client-go's broadcaster and recorders, which build the
// events, and writes them itself: a bounded queue, a few writers, and a bounded cache of
// recent events (k8s.io/utils/lru) so that an event repeated for the same object within
// repeatWindow (a webhook endpoint failing the same way at every attempt, a provider probe
// failing) is written once. Events are advisory: one that cannot be queued or written is
// counted (swaprouter_events_not_written_total) and dropped, never retried in a loop.
package eventsink

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/lru"

	"github.com/swaprouter/swaprouter/internal/metricsreg"
)

const (
	// queueSize bounds the events waiting to be written (as client-go's broadcaster bounds
	// its own queue); beyond it they are dropped.
	queueSize = 1000
	// writers is how many events are written at once.
	writers = 4
	// recentSize bounds the cache of recent events (as client-go's core/v1 correlator does).
	recentSize = 4096
	// repeatWindow: an event equal to one written for the same object this recently is a
	// repeat and is not written again.
	repeatWindow = 5 * time.Minute
	// writeTimeout bounds one write, so a slow API server cannot hold the writers.
	writeTimeout = 10 * time.Second
)

// Why an event was not written (label of notWritten).
const (
	reasonRepeat      = "repeat"
	reasonQueueFull   = "queue_full"
	reasonWriteFailed = "write_failed"
)

func newNotWritten(reg prometheus.Registerer) *prometheus.CounterVec {
	return metricsreg.MustRegister(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "swaprouter_events_not_written_total",
		Help: "Kubernetes Events recorded but not written, by reason: repeat (equal to one written for the same object within 5 minutes), queue_full, write_failed.",
	}, []string{"reason"}))
}

// Sink builds events with client-go's broadcaster and writes them through client. It is a
// manager Runnable: events are written from Start until its context ends.
type Sink struct {
	broadcaster events.EventBroadcaster
	client      eventsv1client.EventsGetter
	log         logr.Logger
	notWritten  *prometheus.CounterVec
	queue       chan *eventsv1.Event
	// stopWatching ends the broadcaster's delivery to the queue.
	stopWatching func()

	mu     sync.Mutex
	recent *lru.Cache // repeatKey → time.Time of the event written
}

// New returns a Sink writing through client, counting the events it does not write into reg
// (nil: controller-runtime's registry). Events recorded before Start wait in its queue.
func New(client eventsv1client.EventsGetter, log logr.Logger, reg prometheus.Registerer) (*Sink, error) {
	s := &Sink{
		// No sink of its own: its events reach the Sink's watcher only.
		broadcaster: events.NewBroadcaster(nil),
		client:      client,
		log:         log,
		notWritten:  newNotWritten(reg),
		queue:       make(chan *eventsv1.Event, queueSize),
		recent:      lru.New(recentSize),
	}
	stop, err := s.broadcaster.StartEventWatcher(func(obj runtime.Object) {
		if e, ok := obj.(*eventsv1.Event); ok {
			s.enqueue(e)
		}
	})
	if err != nil {
		return nil, err
	}
	s.stopWatching = stop
	return s, nil
}

// Recorder returns the recorder of the controller named reportingController.
func (s *Sink) Recorder(scheme *runtime.Scheme, reportingController string) events.EventRecorder {
	return s.broadcaster.NewRecorder(scheme, reportingController)
}

// NeedLeaderElection: every replica writes the events it records.
func (s *Sink) NeedLeaderElection() bool { return false }

// Start writes the recorded events until ctx ends.
func (s *Sink) Start(ctx context.Context) error {
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case e := <-s.queue:
					s.write(ctx, e)
				}
			}
		})
	}
	<-ctx.Done()
	s.stopWatching()
	s.broadcaster.Shutdown()
	wg.Wait()
	return nil
}

func (s *Sink) enqueue(e *eventsv1.Event) {
	if s.repeat(e) {
		s.notWritten.WithLabelValues(reasonRepeat).Inc()
		return
	}
	select {
	case s.queue <- e:
	default:
		s.notWritten.WithLabelValues(reasonQueueFull).Inc()
	}
}

// repeatKey is what makes two events the same: everything but their time (and name).
type repeatKey struct {
	eventType, reason, action, note, controller string
	regarding, related                          corev1.ObjectReference
}

func keyOf(e *eventsv1.Event) repeatKey {
	k := repeatKey{eventType: e.Type, reason: e.Reason, action: e.Action, note: e.Note,
		controller: e.ReportingController, regarding: e.Regarding}
	if e.Related != nil {
		k.related = *e.Related
	}
	return k
}

// repeat reports whether e equals an event recorded within repeatWindow before it, and
// otherwise remembers e.
func (s *Sink) repeat(e *eventsv1.Event) bool {
	key, at := keyOf(e), e.EventTime.Time
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, ok := s.recent.Get(key); ok && at.Sub(last.(time.Time)) < repeatWindow {
		return true
	}
	s.recent.Add(key, at)
	return false
}

func (s *Sink) write(ctx context.Context, e *eventsv1.Event) {
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if _, err := s.client.Events(e.Namespace).Create(wctx, e, metav1.CreateOptions{}); err != nil {
		s.notWritten.WithLabelValues(reasonWriteFailed).Inc()
		s.log.V(1).Info("event not written", "reason", e.Reason, "regarding", e.Regarding.Name, "error", err.Error())
	}
}
