package controllers

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/orderid"
)

// ArchivedOrders reads a partner's order that has left etcd.
type ArchivedOrders interface {
	Get(ctx context.Context, partner, id string) (*swapv1.SwapOrder, error)
}

// orderRecords finds an order's record wherever it lives: the cache (live orders), the API
// server (an archived order still in etcd, or a cached copy older than a write just made),
// then the archive.
type orderRecords struct {
	cache   client.Reader
	live    client.Reader
	archive ArchivedOrders // nil: no archive configured
}

// find returns partner's order id from the cache, or with fresh from the API server, and
// whether it is in etcd; nil when neither etcd nor the archive has it (for this partner).
func (r orderRecords) find(ctx context.Context, namespace, partner, id string, fresh bool) (*swapv1.SwapOrder, bool, error) {
	key := client.ObjectKey{Namespace: namespace, Name: orderid.ObjectName(id)}
	var o swapv1.SwapOrder
	reader := r.cache
	if fresh {
		reader = r.live
	}
	err := reader.Get(ctx, key, &o)
	if apierrors.IsNotFound(err) && !fresh {
		err = r.live.Get(ctx, key, &o) // archived orders are outside the cache
	}
	switch {
	case err == nil && o.Spec.OrderID == id:
		if o.Spec.Partner != partner {
			return nil, false, nil
		}
		return &o, true, nil
	case err != nil && !apierrors.IsNotFound(err):
		return nil, false, fmt.Errorf("reading order %s: %w", id, err)
	}
	if r.archive == nil {
		return nil, false, nil
	}
	archived, err := r.archive.Get(ctx, partner, id)
	if errors.Is(err, archive.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading order %s from the archive: %w", id, err)
	}
	return archived, false, nil
}

// authentic checks d against its order's recorded history (delivery.Authentic). A cached
// order may predate the status write that recorded d's transition, so a refusal is only
// final once the API server's copy refuses too.
func (r orderRecords) authentic(ctx context.Context, d *swapv1.WebhookDelivery) error {
	var verdict error
	for _, fresh := range []bool{false, true} {
		o, _, err := r.find(ctx, d.Namespace, d.Spec.Partner, d.Spec.OrderID, fresh)
		if err != nil {
			return err
		}
		if verdict = delivery.Authentic(o, d); verdict == nil {
			return nil
		}
	}
	return &unverifiedError{verdict}
}

// unverifiedError: the delivery's payload is not what the order's history holds.
type unverifiedError struct{ error }

func (e *unverifiedError) Unwrap() error { return e.error }
