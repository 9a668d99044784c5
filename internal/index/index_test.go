package index

import (
	"context"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Two orders that share a bucket, in two namespaces: each query answers exactly one order's
// deliveries in one namespace.
func TestOrderDeliveriesSeparatesOrdersInOneBucket(t *testing.T) {
	a := "ord_a"
	var b string
	for i := 0; b == ""; i++ {
		if id := fmt.Sprintf("ord_%d", i); OrderBucket(id) == OrderBucket(a) {
			b = id
		}
	}
	scheme := runtime.NewScheme()
	if err := swapv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	builder := fake.NewClientBuilder().WithScheme(scheme)
	Each(func(obj client.Object, field string, extract client.IndexerFunc) {
		builder.WithIndex(obj, field, extract)
	})
	delivery := func(ns, name, orderID string) client.Object {
		return &swapv1.WebhookDelivery{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: swapv1.WebhookDeliverySpec{OrderID: orderID}}
	}
	c := builder.WithObjects(
		delivery("ns1", "a-1", a), delivery("ns1", "a-2", a),
		delivery("ns1", "b-1", b), delivery("ns2", "a-other-ns", a),
	).Build()

	for _, tc := range []struct {
		ns, order string
		want      []string
	}{
		{"ns1", a, []string{"a-1", "a-2"}},
		{"ns1", b, []string{"b-1"}},
		{"ns2", a, []string{"a-other-ns"}},
		{"ns2", b, nil},
	} {
		got, err := OrderDeliveries(context.Background(), c, tc.ns, tc.order)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range got {
			names = append(names, d.Name)
		}
		slices.Sort(names)
		if fmt.Sprint(names) != fmt.Sprint(tc.want) {
			t.Errorf("%s/%s: deliveries %v, want %v", tc.ns, tc.order, names, tc.want)
		}
	}
}
