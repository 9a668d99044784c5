package webhook

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
	first := slices.MinFunc(existing, func(a, b swapv1.WebhookDelivery) int { return cmp.Compare(a.Spec.Redelivery, b.Spec.Redelivery) })
	var orig swapv1.WebhookDelivery
	if err := live.Get(ctx, client.ObjectKeyFromObject(&first), &orig); err != nil {
		return nil, fmt.Errorf("reading delivery %s: %w", first.Name, err)
	}
	next := NextRedelivery(existing)
	for range maxRedeliverRaces {
		d, err := Redeliver(&orig, next)
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
