// Package index defines the cache field indexes shared by the frontend and the controllers.
// Registering them in one place keeps each index defined once per manager. Each index costs
// entries per cached object and work at every update: define only those a query uses.
package index

import (
	"context"
	"hash/fnv"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Field names for client.MatchingFields.
const (
	// OrderClientReference indexes SwapOrders by ClientReferenceKey(partner, clientReference).
	OrderClientReference = "spec.clientReference"
	// PartnerKeyID indexes Partners by every spec.keys[].id.
	PartnerKeyID = "spec.keys.id"
	// DeliveryOrderBucket indexes WebhookDeliveries by OrderBucket(spec.orderId); query it
	// through OrderDeliveries.
	DeliveryOrderBucket = "spec.orderId.bucket"
	// DeliveryPartner indexes WebhookDeliveries by spec.partner.
	DeliveryPartner = "spec.partner"
)

type definition struct {
	obj     client.Object
	field   string
	extract client.IndexerFunc
}

var definitions = []definition{
	{&swapv1.SwapOrder{}, OrderClientReference, func(o client.Object) []string {
		spec := o.(*swapv1.SwapOrder).Spec
		if spec.ClientReference == "" {
			return nil
		}
		return []string{ClientReferenceKey(spec.Partner, spec.ClientReference)}
	}},
	{&swapv1.Partner{}, PartnerKeyID, func(o client.Object) []string {
		keys := o.(*swapv1.Partner).Spec.Keys
		ids := make([]string, 0, len(keys))
		for _, k := range keys {
			ids = append(ids, k.ID)
		}
		return ids
	}},
	{&swapv1.WebhookDelivery{}, DeliveryOrderBucket, func(o client.Object) []string {
		return []string{OrderBucket(o.(*swapv1.WebhookDelivery).Spec.OrderID)}
	}},
	{&swapv1.WebhookDelivery{}, DeliveryPartner, func(o client.Object) []string {
		return []string{o.(*swapv1.WebhookDelivery).Spec.Partner}
	}},
}

// Register adds every index to the manager's field indexer (mgr.GetFieldIndexer()).
func Register(ctx context.Context, indexer client.FieldIndexer) error {
	var err error
	Each(func(obj client.Object, field string, extract client.IndexerFunc) {
		if err == nil {
			err = indexer.IndexField(ctx, obj, field, extract)
		}
	})
	return err
}

// Each calls fn for every index; handler tests use it with fake.ClientBuilder.WithIndex so
// they query exactly like the manager does.
func Each(fn func(obj client.Object, field string, extract client.IndexerFunc)) {
	for _, d := range definitions {
		fn(d.obj, d.field, d.extract)
	}
}

// ClientReferenceKey is the OrderClientReference value of a partner's reference (partner
// names hold no '/').
func ClientReferenceKey(partner, ref string) string { return partner + "/" + ref }

// orderBuckets is how many values DeliveryOrderBucket has. An index by order id proper gave
// every order a set of its own, twice (per namespace and for all namespaces): ≈ 0.4 KiB of
// heap per live order, the largest index cost in the heap profile of 10,000 idle orders.
// Buckets share sets; a query reads ≈ deliveries/1024 entries and drops the other orders'.
const orderBuckets = 1024

// OrderBucket is the DeliveryOrderBucket value of an order id.
func OrderBucket(orderID string) string {
	h := fnv.New32a()
	h.Write([]byte(orderID))
	return strconv.FormatUint(uint64(h.Sum32()%orderBuckets), 16)
}

// OrderDeliveries lists the webhook deliveries of one order in namespace, from its bucket.
// Extra options (client.UnsafeDisableDeepCopy) are passed on to the List.
func OrderDeliveries(ctx context.Context, c client.Reader, namespace, orderID string, opts ...client.ListOption) ([]swapv1.WebhookDelivery, error) {
	var list swapv1.WebhookDeliveryList
	opts = append([]client.ListOption{client.InNamespace(namespace), client.MatchingFields{DeliveryOrderBucket: OrderBucket(orderID)}}, opts...)
	if err := c.List(ctx, &list, opts...); err != nil {
		return nil, err
	}
	out := list.Items[:0]
	for _, d := range list.Items {
		if d.Spec.OrderID == orderID {
			out = append(out, d)
		}
	}
	return out, nil
}
