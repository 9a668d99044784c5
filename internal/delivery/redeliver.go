package delivery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// maxRedeliverRaces bounds the retries when concurrent redeliveries pick the same number.
const maxRedeliverRaces = 5

var (
	// ErrRedeliverRace: concurrent redeliveries of the event kept taking the next number.
	ErrRedeliverRace = errors.New("concurrent redeliveries of this event; try again")
	// ErrNoSuchEvent: the order's history holds no emitted event with the asked id.
	ErrNoSuchEvent = errors.New("the order's history holds no such emitted event")
)

// Ask is one request to send an order's events again, as the controllers answer it.
type Ask struct {
	// EventID limits it to one event; empty: every event the order emitted.
	EventID string
	// Redelivery, with EventID, is the number the new delivery takes (a delivery of that
	// number already there answers the ask); 0 takes the next free number.
	Redelivery int32
	// RequestedBy is who asked, as the API server authenticated them; it is written on
	// each new delivery.
	RequestedBy string
	// Request is the RedeliveryRequest that asked, if one did: its deliveries carry its
	// name, and an event it already redelivered is not sent again.
	Request string
}

// original reads the earliest of one event's deliveries, payload included, through live: the
// cache keeps finished deliveries without their payload (TrimFinished).
func original(ctx context.Context, live client.Reader, existing []swapv1.WebhookDelivery) (*swapv1.WebhookDelivery, error) {
	first := slices.MinFunc(existing, func(a, b swapv1.WebhookDelivery) int { return cmp.Compare(a.Spec.Redelivery, b.Spec.Redelivery) })
	var orig swapv1.WebhookDelivery
	if err := live.Get(ctx, client.ObjectKeyFromObject(&first), &orig); err != nil {
		return nil, fmt.Errorf("reading delivery %s: %w", first.Name, err)
	}
	return &orig, nil
}

// CreateNumbered creates the object build returns for number next, or for the first
// following number no one took yet (build names the object after its number); with fixed,
// for number next only, and an object already there is the answer.
func CreateNumbered[T client.Object](ctx context.Context, c client.Client, next int32, fixed bool, build func(int32) (T, error)) (T, error) {
	var zero T
	for range maxRedeliverRaces {
		obj, err := build(next)
		if err != nil {
			return zero, err
		}
		err = c.Create(ctx, obj)
		if apierrors.IsAlreadyExists(err) {
			if fixed {
				return obj, nil
			}
			next++
			continue
		}
		if err != nil {
			return zero, err
		}
		return obj, nil
	}
	return zero, ErrRedeliverRace
}

// NewRedeliveryRequest asks for redelivery number n of one event, under the name that
// delivery will have: a number two requests race for is taken by one of them.
func NewRedeliveryRequest(namespace, partner, orderID, eventID string, n int32) *swapv1.RedeliveryRequest {
	return &swapv1.RedeliveryRequest{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: DeliveryName(eventID, n)},
		Spec:       swapv1.RedeliveryRequestSpec{Partner: partner, OrderID: orderID, EventID: eventID, Redelivery: n},
	}
}

// RedeliverOrder creates a new delivery of every event of order that ask names, that its
// history still holds and that was emitted, and returns their names (PlanRedelivery, then
// RedeliveryPlan.Create).
func RedeliverOrder(ctx context.Context, c client.Client, live client.Reader, order *swapv1.SwapOrder, existing []swapv1.WebhookDelivery, inEtcd bool, ask Ask) ([]string, error) {
	plan, err := PlanRedelivery(ctx, live, order, existing, inEtcd, ask)
	if err != nil {
		return nil, err
	}
	return plan.Create(ctx, c)
}

// RedeliveryPlan is what a redelivery creates, read but not yet written: one new delivery
// per event.
type RedeliveryPlan struct {
	events []redeliveryOf
}

// redeliveryOf is one event's new delivery: answered already (name), or built for the
// number next (or the first free one after it unless fixed).
type redeliveryOf struct {
	eventID string
	seq     int64
	name    string
	next    int32
	fixed   bool
	build   func(int32) (*swapv1.WebhookDelivery, error)
}

// PlanRedelivery decides a new delivery of every event of order that ask names, that its
// history still holds and that was emitted (it has deliveries, its seq is up to
// notifiedSeq, or the order left etcd). An event with deliveries goes out again with their
// bytes (read through live: the cache keeps finished deliveries without their payload); one
// without any (they expired, webhooks were off when it happened, or the order left etcd and
// its deliveries with it) is built again from the order's record under the same webhook-id.
// Either way the delivery reconciler checks the bytes against the history before signing
// them. existing are the order's deliveries. inEtcd says whether the SwapOrder still exists:
// when it does not (redelivery from the archive) the new deliveries have no owner, which the
// garbage collector would take for gone and delete them. Only the controllers create what
// it plans: no other identity may create deliveries.
func PlanRedelivery(ctx context.Context, live client.Reader, order *swapv1.SwapOrder, existing []swapv1.WebhookDelivery, inEtcd bool, ask Ask) (RedeliveryPlan, error) {
	byEvent := map[string][]swapv1.WebhookDelivery{}
	answered := map[string]string{} // event → the delivery ask.Request already made of it
	for _, d := range existing {
		byEvent[d.Spec.EventID] = append(byEvent[d.Spec.EventID], d)
		if ask.Request != "" && d.Labels[swapv1.LabelRedeliveryRequest] == ask.Request {
			answered[d.Spec.EventID] = d.Name
		}
	}
	stamp := func(d *swapv1.WebhookDelivery, err error) (*swapv1.WebhookDelivery, error) {
		if d == nil {
			return d, err
		}
		if !inEtcd {
			d.OwnerReferences = nil
		}
		if ask.RequestedBy != "" {
			d.Annotations = map[string]string{swapv1.AnnotationDeliveryRequestedBy: ask.RequestedBy}
		}
		if ask.Request != "" {
			d.Labels = map[string]string{swapv1.LabelRedeliveryRequest: ask.Request}
		}
		return d, err
	}
	var plan RedeliveryPlan
	for _, t := range order.Status.History {
		event := EventFor(order, t)
		if ask.EventID != "" && event.ID != ask.EventID {
			continue
		}
		deliveries := byEvent[event.ID]
		// An order leaves etcd only once every event was emitted; the notifiedSeq it stored
		// may lag the last (it is carried to the next status write).
		if len(deliveries) == 0 && t.Seq > order.Status.NotifiedSeq && inEtcd {
			continue // its first delivery is still to come
		}
		of := redeliveryOf{eventID: event.ID, seq: t.Seq}
		if name, ok := answered[event.ID]; ok {
			of.name = name
			plan.events = append(plan.events, of)
			continue
		}
		of.build = func(n int32) (*swapv1.WebhookDelivery, error) { return stamp(NewDelivery(order, event, n)) }
		of.next = 1
		if len(deliveries) > 0 {
			orig, err := original(ctx, live, deliveries)
			if err != nil {
				return RedeliveryPlan{}, err
			}
			of.build = func(n int32) (*swapv1.WebhookDelivery, error) { return stamp(Redeliver(orig, n)) }
			of.next = NextRedelivery(deliveries)
		}
		of.fixed = ask.EventID != "" && ask.Redelivery > 0
		if of.fixed {
			of.next = ask.Redelivery
		}
		plan.events = append(plan.events, of)
	}
	if ask.EventID != "" && len(plan.events) == 0 {
		return RedeliveryPlan{}, fmt.Errorf("%w: %s of order %s", ErrNoSuchEvent, ask.EventID, order.Spec.OrderID)
	}
	return plan, nil
}

// Create creates the planned deliveries and returns their names (those created before an
// error with it).
func (p RedeliveryPlan) Create(ctx context.Context, c client.Client) ([]string, error) {
	var names []string
	for _, of := range p.events {
		if of.build == nil {
			names = append(names, of.name)
			continue
		}
		d, err := CreateNumbered(ctx, c, of.next, of.fixed, of.build)
		if err != nil {
			return names, fmt.Errorf("redelivering event %s (seq %d): %w", of.eventID, of.seq, err)
		}
		names = append(names, d.Name)
	}
	return names, nil
}
