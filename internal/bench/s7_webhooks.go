package bench

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/orderid"
	orderstate "github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/system"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
)

// Scenario 7, latency: orders are created through the frontend and fully deposited; the
// simulator settles them (PENDING → PROCESSING → SUCCESS) and the reconciler finds each
// change at its next poll. The status change is timed by the Kubernetes Event the reconciler
// records right after the status write that persists it (events.k8s.io eventTime, in
// microseconds); the receiver timestamps the verified webhook for the same (order, seq).
// Latency = arrival − status change, divided by the mean poll interval. (A watch of the
// harness's own saw the write later than the webhook arrived once the delivery was created
// right after the write: its timestamps made the latency negative.)
//
// Scenario 7, throughput: K WebhookDeliveries are created at once (as the order reconciler
// would) and the time until the receiver verified all K gives deliveries/s; the baseline is
// raw WebhookDelivery status updates/s against the same control plane at the webhook
// controller's concurrency.
func (h *harness) webhooks(ctx context.Context, s *Scenario) error {
	if err := h.webhookLatency(ctx, s); err != nil {
		return err
	}
	return h.webhookThroughput(ctx, s)
}

// transitionTimes returns, per order object name and event reason (the status in CamelCase,
// e.g. "Processing"), when the reconciler recorded the transition: the eventTime of its
// Kubernetes Event, set when the event is made, right after the status write.
func (h *harness) transitionTimes(ctx context.Context) (map[[2]string]time.Time, error) {
	var list eventsv1.EventList
	if err := h.env.Client.List(ctx, &list, client.InNamespace(benchNamespace)); err != nil {
		return nil, err
	}
	at := map[[2]string]time.Time{}
	for _, e := range list.Items {
		if e.Regarding.Kind != "SwapOrder" || e.Action != "Transition" || e.EventTime.IsZero() {
			continue
		}
		k := [2]string{e.Regarding.Name, e.Reason}
		if t, ok := at[k]; !ok || e.EventTime.Time.Before(t) {
			at[k] = e.EventTime.Time
		}
	}
	return at, nil
}

func (h *harness) webhookLatency(ctx context.Context, s *Scenario) error {
	lat, orders, err := h.measureWebhookLatency(ctx, s)
	h.addTransitionLatency(s, lat, "verified webhook", "", 0.1)
	s.Setup = fmt.Sprintf("latency: %d orders created through the frontend and fully deposited, %d status changes timed from the API server's watch event to the verified webhook (pooled percentiles; the poll interval is the configured mean %s)",
		orders, len(lat), h.pollMean())
	return err
}

// addTransitionLatency adds the p50 (information) and p99 (target ≤ p99Target) of lat, the
// times from status changes to their arrival (e.g. "verified webhook"), as ratios of the mean
// poll interval; context qualifies the figures' names.
func (h *harness) addTransitionLatency(s *Scenario, lat []time.Duration, arrival, context string, p99Target float64) {
	poll := h.pollMean().Seconds()
	p50, p99 := PercentileMs(lat, 50), PercentileMs(lat, 99)
	s.Figures = append(s.Figures,
		Figure{Scenario: s.Number, Name: "status change → " + arrival + " p50 ÷ poll interval" + context, Value: Ratio(p50/1000, poll), Info: true, Unit: fmt.Sprintf("(%.0f ms ÷ %s; no target)", p50, h.pollMean())},
		Figure{Scenario: s.Number, Name: "status change → " + arrival + " p99 ÷ poll interval" + context, Value: Ratio(p99/1000, poll), Target: AtMost(p99Target), Unit: fmt.Sprintf("(%.0f ms ÷ %s)", p99, h.pollMean())},
	)
}

// measureWebhookLatency times every status change up to SUCCESS to its verified webhook at
// the bench partner's receiver.
func (h *harness) measureWebhookLatency(ctx context.Context, s *Scenario) (lat []time.Duration, ordersMeasured int, err error) {
	lat, ordersMeasured, err = h.measureTransitionLatency(ctx, s, "its webhook", h.recv.ArrivedAt)
	if h.recv.Rejected() > 0 {
		s.note("the receiver rejected %d deliveries whose signature did not verify", h.recv.Rejected())
	}
	return lat, ordersMeasured, err
}

// measureTransitionLatency creates orders of the bench partner through the frontend,
// deposits them fully and returns, for every status change up to SUCCESS, the time from the
// reconciler's transition Event to the change's arrival, as arrivedAt reports it (by order
// id and seq); what names the arrival in notes.
func (h *harness) measureTransitionLatency(ctx context.Context, s *Scenario, what string, arrivedAt func(orderID string, seq int64) (time.Time, bool)) (lat []time.Duration, ordersMeasured int, err error) {
	m := h.cfg.count(60, 10)
	type created struct{ id, address string }
	var mu sync.Mutex
	var orders []created
	res := Closed(ctx, 8, 0, m, func(ctx context.Context, _, i int) error {
		var out swapclient.Order
		resp, err := h.api.CreateOrder(ctx, nil, benchOrder(providers[i%2]))
		if err := expect(resp, err, http.StatusCreated, &out); err != nil {
			return err
		}
		if out.DepositAddress == nil {
			return fmt.Errorf("201 without a deposit address")
		}
		mu.Lock()
		orders = append(orders, created{out.Id, *out.DepositAddress})
		mu.Unlock()
		return nil
	})
	if n := errNote("creating orders", res); n != "" {
		s.note("%s", n)
	}
	for _, o := range orders {
		if _, err := h.env.Simulator.Deposit(o.address, pointOneETH); err != nil {
			return nil, 0, fmt.Errorf("deposit to %s: %w", o.address, err)
		}
	}
	h.logf("  %d orders deposited; waiting for %s of every transition up to SUCCESS", len(orders), what)
	timeout := h.cfg.budget(4*h.pollMax + 30*time.Second)
	// An order's last transition: PROCESSING is skipped when one poll sees the swap done.
	last := map[string]int64{}
	complete := waitFor(ctx, timeout, 200*time.Millisecond, func() bool {
		for _, o := range orders {
			seq, ok := last[o.id]
			if !ok {
				if seq, ok = h.successSeq(ctx, o.id); !ok {
					return false
				}
				last[o.id] = seq
			}
			if _, ok := arrivedAt(o.id, seq); !ok {
				return false
			}
		}
		return true
	})
	changes, err := h.transitionTimes(ctx)
	if err != nil {
		return nil, 0, err
	}
	missing, untimed := 0, 0
	for _, o := range orders {
		var order swapv1.SwapOrder
		if err := h.env.Client.Get(ctx, client.ObjectKey{Namespace: benchNamespace, Name: orderid.ObjectName(o.id)}, &order); err != nil {
			return nil, 0, err
		}
		for _, t := range order.Status.History {
			if t.Seq > last[o.id] {
				continue
			}
			t0, ok := changes[[2]string{order.Name, orderstate.CamelStatus(t.Status)}]
			if !ok {
				untimed++ // its Event was dropped or folded: nothing to time it by
				continue
			}
			t1, ok := arrivedAt(o.id, t.Seq)
			if !ok {
				missing++
				continue
			}
			lat = append(lat, t1.Sub(t0))
		}
	}
	if untimed > 0 {
		s.note("%d status changes had no transition Event to time them by and are left out", untimed)
	}
	if !complete {
		s.note("not every order reached SUCCESS with %s within %s; %d status changes had none yet", what, timeout, missing)
	}
	return lat, len(orders), ctx.Err()
}

// successSeq is the seq of order id's SUCCESS transition, once it has one.
func (h *harness) successSeq(ctx context.Context, id string) (int64, bool) {
	var o swapv1.SwapOrder
	if err := h.env.Client.Get(ctx, client.ObjectKey{Namespace: benchNamespace, Name: orderid.ObjectName(id)}, &o); err != nil {
		return 0, false
	}
	for _, t := range o.Status.History {
		if t.Status == swapv1.OrderSuccess {
			return t.Seq, true
		}
	}
	return 0, false
}

func (h *harness) webhookThroughput(ctx context.Context, s *Scenario) error {
	k := h.cfg.count(300, 40)
	rounds := min(h.cfg.Rounds, 3)
	conc := system.DefaultOptions().WebhookConcurrency
	s.Setup += fmt.Sprintf("; throughput: %d rounds of %d WebhookDeliveries (each reporting a transition of a paused order of its own, made before the clock starts) created at once (concurrency 32) until all are verified at the receiver, against %d raw status updates at concurrency %d", rounds, k, k, conc)
	var ratio, dps, ups []float64
	for r := 0; r < rounds && ctx.Err() == nil; r++ {
		// The controllers sign only what an order's history holds: each delivery reports
		// a transition of an order of its own, made before the clock starts.
		orders, err := h.pausedOrders(ctx, k)
		if err != nil {
			return err
		}
		start := time.Now()
		var mu sync.Mutex
		var ids []string
		res := Closed(ctx, 32, 0, k, func(ctx context.Context, _, i int) error {
			d, err := benchDelivery(orders[i])
			if err != nil {
				return err
			}
			if err := h.env.Client.Create(ctx, d); err != nil {
				return err
			}
			mu.Lock()
			ids = append(ids, d.Spec.EventID)
			mu.Unlock()
			return nil
		})
		if n := errNote("creating deliveries", res); n != "" {
			s.note("%s", n)
		}
		waitFor(ctx, h.cfg.budget(2*time.Minute), 20*time.Millisecond, func() bool {
			return len(h.recv.ArrivalTimes(ids)) >= len(ids)
		})
		arrivals := h.recv.ArrivalTimes(ids)
		if len(arrivals) < len(ids) {
			s.note("round %d: only %d of %d deliveries arrived", r+1, len(arrivals), len(ids))
		}
		// Gone with their deliveries (owned), so later scenarios meet only their own orders.
		if del := Closed(ctx, 32, 0, k, func(ctx context.Context, _, i int) error {
			return client.IgnoreNotFound(h.env.Client.Delete(ctx, orders[i]))
		}); del.Errors > 0 {
			s.note("deleting the round's orders: %v", del.FirstErr)
		}
		last := start
		for _, t := range arrivals {
			if t.After(last) {
				last = t
			}
		}
		delivered := Ratio(float64(len(arrivals)), last.Sub(start).Seconds())

		raws := make([]*swapv1.WebhookDelivery, k)
		for i := range raws {
			o := withHistory(h.newOrder(rawNamespace, swapv1.ProviderRouteA))
			o.UID = types.UID(o.Spec.OrderID) // never created: the raw namespace has no reconciler
			d, err := benchDelivery(o)
			if err != nil {
				return err
			}
			raws[i] = d
		}
		if res := Closed(ctx, 32, 0, k, func(ctx context.Context, _, i int) error {
			return h.env.Client.Create(ctx, raws[i])
		}); res.Errors > 0 {
			return fmt.Errorf("creating raw deliveries: %v", res.FirstErr)
		}
		upd := Closed(ctx, conc, 0, k, func(ctx context.Context, _, i int) error {
			d := raws[i]
			now := metav1.Now()
			d.Status = swapv1.WebhookDeliveryStatus{
				Phase: swapv1.DeliveryDelivered, AttemptCount: 1, LastCode: 204, CompletedAt: &now,
				Attempts: []swapv1.DeliveryAttempt{{At: now, Code: 204, DurationMillis: 1}}, ObservedGeneration: d.Generation,
			}
			return h.env.Client.Status().Update(ctx, d)
		})
		if n := errNote("raw status updates", upd); n != "" {
			s.note("%s", n)
		}
		ratio = append(ratio, Ratio(delivered, upd.PerSecond()))
		dps, ups = append(dps, delivered), append(ups, upd.PerSecond())
	}
	s.add("deliveries/s ÷ raw WebhookDelivery status updates/s", ratio, AtLeast(0.30))
	s.info("deliveries/s (created → verified at the receiver)", "/s", dps)
	s.info("raw WebhookDelivery status updates/s", "/s", ups)
	return ctx.Err()
}

// withHistory gives o the status of an order that reached PROCESSING and emitted both its
// transitions.
func withHistory(o *swapv1.SwapOrder) *swapv1.SwapOrder {
	at := swapv1.NewPreciseTime(time.Now())
	o.Status = swapv1.SwapOrderStatus{
		Status: swapv1.OrderProcessing, DepositAddress: sender, NotifiedSeq: 2,
		History: []swapv1.StatusTransition{
			{Seq: 1, Status: swapv1.OrderPending, At: at},
			{Seq: 2, Status: swapv1.OrderProcessing, PreviousStatus: swapv1.OrderPending, At: at},
		},
	}
	return o
}

// pausedOrders creates n orders of the bench partner with withHistory's status, paused so the
// reconciler asks no provider about them.
func (h *harness) pausedOrders(ctx context.Context, n int) ([]*swapv1.SwapOrder, error) {
	orders := make([]*swapv1.SwapOrder, n)
	res := Closed(ctx, 32, 0, n, func(ctx context.Context, _, i int) error {
		o := h.newOrder(benchNamespace, swapv1.ProviderRouteA)
		o.Annotations = map[string]string{swapv1.AnnotationPaused: "webhook throughput bench"}
		if err := h.env.Client.Create(ctx, o); err != nil {
			return err
		}
		base := o.DeepCopy()
		withHistory(o)
		orders[i] = o
		return h.env.Client.Status().Patch(ctx, o, client.MergeFrom(base))
	})
	if res.Errors > 0 {
		return nil, fmt.Errorf("creating the deliveries' orders: %v", res.FirstErr)
	}
	return orders, nil
}

// benchDelivery is the delivery of o's second transition, as the order reconciler makes it.
func benchDelivery(o *swapv1.SwapOrder) (*swapv1.WebhookDelivery, error) {
	return delivery.NewDelivery(o, delivery.EventFor(o, o.Status.History[1]), 0)
}
