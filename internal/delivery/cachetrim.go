package delivery

import (
	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/intern"
)

// Finished reports whether d will never be attempted again: Delivered or Failed. It stays
// until its retention ends, for the deliveries page, the archive summary and redeliveries.
func Finished(d *swapv1.WebhookDelivery) bool {
	return d.Status.Phase == swapv1.DeliveryDelivered || d.Status.Phase == swapv1.DeliveryFailed
}

// CacheTransform is the manager's cache transform of WebhookDeliveries
// (cache.ByObject.Transform, which replaces the default one): the default transform
// (intern.CacheTransform), then TrimFinished.
func CacheTransform(obj any) (any, error) {
	obj, err := intern.CacheTransform(obj)
	if err != nil {
		return nil, err
	}
	return TrimFinished(obj)
}

// TrimFinished drops spec.payload, the larger part of the object, from the cached copy of a
// finished delivery: no attempt remains to send it, and finished deliveries outnumber pending
// ones (one per transition, kept for days). A redelivery reads the payload from the API
// server (RedeliverOrder). Other objects and deliveries still to send pass unchanged.
func TrimFinished(obj any) (any, error) {
	if d, ok := obj.(*swapv1.WebhookDelivery); ok && Finished(d) {
		d.Spec.Payload = ""
	}
	return obj, nil
}
