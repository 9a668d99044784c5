package delivery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// maxRedeliverRaces bounds the retries when concurrent redeliveries pick the same number.
const maxRedeliverRaces = 5

// ErrRedeliverRace: concurrent redeliveries of the event kept taking the next number.
var ErrRedeliverRace = errors.New("concurrent redeliveries of this event; try again")

// CreateRedelivery creates the next delivery of one event, given its existing deliveries
// (not empty, e.g. from the cache): the same event (same webhook-id and bytes) under the next
// redelivery number. The bytes are read through live (the API server, GetAPIReader()): the
// cache keeps finished deliveries without their payload (TrimFinished). A number another
// writer (or a stale cache) already took moves on to the following one.
func CreateRedelivery(ctx context.Context, c client.Client, live client.Reader, existing []swapv1.WebhookDelivery) (*swapv1.WebhookDelivery, error) {
	orig, err := original(ctx, live, existing)
	if err != nil {
		return nil, err
	}
	return createNext(ctx, c, NextRedelivery(existing), func(n int32) (*swapv1.WebhookDelivery, error) { return Redeliver(orig, n) })
}

// original reads the earliest of one event's deliveries, payload included, through live.
func original(ctx context.Context, live client.Reader, existing []swapv1.WebhookDelivery) (*swapv1.WebhookDelivery, error) {
	first := slices.MinFunc(existing, func(a, b swapv1.WebhookDelivery) int { return cmp.Compare(a.Spec.Redelivery, b.Spec.Redelivery) })
	var orig swapv1.WebhookDelivery
	if err := live.Get(ctx, client.ObjectKeyFromObject(&first), &orig); err != nil {
		return nil, fmt.Errorf("reading delivery %s: %w", first.Name, err)
	}
	return &orig, nil
}

// createNext creates the delivery build returns for redelivery number next, or the first
// following number no one took yet.
func createNext(ctx context.Context, c client.Client, next int32, build func(int32) (*swapv1.WebhookDelivery, error)) (*swapv1.WebhookDelivery, error) {
	for range maxRedeliverRaces {
		d, err := build(next)
		if err != nil {
			return nil, err
		}
		err = c.Create(ctx, d)
		if apierrors.IsAlreadyExists(err) {
			next++
			continue
		}
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	return nil, ErrRedeliverRace
}

// RedeliverOrder creates a new delivery of every event of order that its history still
// holds and that was emitted (it has deliveries, its seq is up to notifiedSeq, or the order
// left etcd), and returns how many. An event with
// deliveries goes out again with their bytes (CreateRedelivery); one without any (they
// expired, webhooks were off when it happened, or the order left etcd and its deliveries
// with it) is built again from the order's record under the same webhook-id. existing are
// the order's deliveries. inEtcd says whether the SwapOrder still exists: when it does not
// (redelivery from the archive) the new deliveries have no owner, which the garbage
// collector would take for gone and delete them.
func RedeliverOrder(ctx context.Context, c client.Client, live client.Reader, order *swapv1.SwapOrder, existing []swapv1.WebhookDelivery, inEtcd bool) (int, error) {
	byEvent := map[string][]swapv1.WebhookDelivery{}
	for _, d := range existing {
		byEvent[d.Spec.EventID] = append(byEvent[d.Spec.EventID], d)
	}
	owned := func(d *swapv1.WebhookDelivery, err error) (*swapv1.WebhookDelivery, error) {
		if d != nil && !inEtcd {
			d.OwnerReferences = nil
		}
		return d, err
	}
	n := 0
	for _, t := range order.Status.History {
		event := EventFor(order, t)
		deliveries := byEvent[event.ID]
		// An order leaves etcd only once every event was emitted; the notifiedSeq it stored
		// may lag the last (it is carried to the next status write).
		if len(deliveries) == 0 && t.Seq > order.Status.NotifiedSeq && inEtcd {
			continue // its first delivery is still to come
		}
		build := func(n int32) (*swapv1.WebhookDelivery, error) { return owned(NewDelivery(order, event, n)) }
		next := int32(1)
		if len(deliveries) > 0 {
			orig, err := original(ctx, live, deliveries)
			if err != nil {
				return n, err
			}
			build = func(n int32) (*swapv1.WebhookDelivery, error) { return owned(Redeliver(orig, n)) }
			next = NextRedelivery(deliveries)
		}
		if _, err := createNext(ctx, c, next, build); err != nil {
			return n, fmt.Errorf("redelivering event %s (seq %d): %w", event.ID, t.Seq, err)
		}
		n++
	}
	return n, nil
}
