package controllers

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// The summary is written when it changed and not otherwise, whatever the number of calls.
func TestProviderCallsPublisherWritesOnlyChanges(t *testing.T) {
	rp := &swapv1.RoutingProvider{ObjectMeta: metav1.ObjectMeta{Name: "route-b", Namespace: "ns"},
		Spec: swapv1.RoutingProviderSpec{ProviderID: swapv1.ProviderRouteB}}
	var writes atomic.Int32
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(rp).WithStatusSubresource(rp).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			writes.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		}}).Build()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	w := &callstats.Window{Now: func() time.Time { return now }}
	p := &ProviderCallsPublisher{Client: c, Calls: w}
	ctx := context.Background()

	p.publish(ctx)
	if n := writes.Load(); n != 0 {
		t.Fatalf("%d writes without any call, want none", n)
	}
	for range 100 {
		w.Record(swapv1.ProviderRouteB, "create_deposit", 80*time.Millisecond, false)
	}
	w.Record(swapv1.ProviderRouteB, "status", 6*time.Second, true)
	w.Record(swapv1.ProviderRouteB, "quote", time.Millisecond, true)
	p.publish(ctx)
	p.publish(ctx)
	if n := writes.Load(); n != 1 {
		t.Fatalf("%d writes for one change, want 1", n)
	}
	var got swapv1.RoutingProvider
	if err := c.Get(ctx, client.ObjectKeyFromObject(rp), &got); err != nil {
		t.Fatal(err)
	}
	s := got.Status.Calls
	if s == nil || s.Calls != 101 || s.Failed != 1 || s.Window.Duration != time.Hour ||
		s.DepositAddressLatency == nil || *s.DepositAddressLatency != (swapv1.LatencyPercentiles{P50: 100, P95: 100}) ||
		s.FirstFailure == nil || !s.FirstFailure.Time.Equal(now) {
		t.Errorf("status.calls = %+v, want the 101 order calls (quotes are the frontend's), 1 failed, deposit latency 100 ms", s)
	}
}

// Settled orders reach status.calls.settlement, even before the controllers made any call.
func TestProviderCallsPublisherWritesSettlements(t *testing.T) {
	rp := &swapv1.RoutingProvider{ObjectMeta: metav1.ObjectMeta{Name: "relay", Namespace: "ns"},
		Spec: swapv1.RoutingProviderSpec{ProviderID: "relay"}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(rp).WithStatusSubresource(rp).Build()
	settlements := &callstats.Window{Bounds: &callstats.SettleBounds}
	p := &ProviderCallsPublisher{Client: c, Calls: &callstats.Window{}, Settlements: settlements}
	settlements.Record("relay", callstats.Settlement, 20*time.Second, false)
	settlements.Record("relay", callstats.Settlement, 40*time.Second, false)
	settlements.Record("relay", callstats.Settlement, 3*time.Minute, true)
	p.publish(context.Background())

	var got swapv1.RoutingProvider
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(rp), &got); err != nil {
		t.Fatal(err)
	}
	want := swapv1.SettlementSummary{Orders: 3, Succeeded: 2, Seconds: swapv1.LatencyPercentiles{P50: 60, P95: 180}}
	if s := got.Status.Calls; s == nil || s.Calls != 0 || s.Settlement == nil || *s.Settlement != want {
		t.Errorf("status.calls = %+v, want no calls and settlement %+v", s, want)
	}
}
