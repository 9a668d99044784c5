package controllers

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
)

// DefaultProviderCallsInterval is how often the controllers' call measurements go to the
// RoutingProviders' status.calls.
const DefaultProviderCallsInterval = 30 * time.Second

// orderCalls are the calls the controllers make: every call but quotes.
var orderCalls = []string{providermetrics.CallAssets, providermetrics.CallCreateDeposit,
	providermetrics.CallStatus, providermetrics.CallSubmitDeposit}

// ProviderCallsPublisher writes what the controllers measured of their provider calls to each
// RoutingProvider's status.calls, where every frontend replica reads it. A summary is written
// only when it changed and at most once an Interval, so the writes stay bounded whatever the
// traffic: at most one per provider per Interval.
type ProviderCallsPublisher struct {
	Client client.Client
	Calls  *callstats.Window
	// Settlements, when set, is the order reconciler's measure of settled orders
	// (status.calls.settlement).
	Settlements *callstats.Window
	// Interval defaults to DefaultProviderCallsInterval.
	Interval time.Duration
}

// Start publishes every Interval until ctx ends.
func (p *ProviderCallsPublisher) Start(ctx context.Context) error {
	t := time.NewTicker(durationOr(p.Interval, DefaultProviderCallsInterval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			p.publish(ctx)
		}
	}
}

// NeedLeaderElection: the leader makes the order calls, so it holds the measurements.
func (p *ProviderCallsPublisher) NeedLeaderElection() bool { return true }

func (p *ProviderCallsPublisher) publish(ctx context.Context) {
	var list swapv1.RoutingProviderList
	if err := p.Client.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "listing RoutingProviders for their call summary")
		return
	}
	for i := range list.Items {
		rp := &list.Items[i]
		summary := callSummary(p.Calls, p.Settlements, rp.Spec.ProviderID)
		if equality.Semantic.DeepEqual(rp.Status.Calls, summary) {
			continue
		}
		patch := client.MergeFrom(rp.DeepCopy())
		rp.Status.Calls = summary
		if err := p.Client.Status().Patch(ctx, rp, patch); client.IgnoreNotFound(err) != nil {
			log.FromContext(ctx).Error(err, "recording the provider call summary", "providerId", rp.Spec.ProviderID)
		}
	}
}

// callSummary is the status form of id's order calls in calls and its settled orders in
// settlements (nil: not measured); nil without either.
func callSummary(calls, settlements *callstats.Window, id swapv1.ProviderID) *swapv1.ProviderCallSummary {
	all := calls.Tally(id, orderCalls...)
	var settled *swapv1.SettlementSummary
	if settlements != nil {
		settled = callstats.Settled(settlements.Tally(id, callstats.Settlement))
	}
	if all.Calls == 0 && settled == nil {
		return nil
	}
	s := &swapv1.ProviderCallSummary{
		Window: metav1.Duration{Duration: callstats.Span}, Calls: all.Calls, Failed: all.Failed,
		DepositAddressLatency: callstats.Latency(calls.Tally(id, providermetrics.CallCreateDeposit)),
		Settlement:            settled,
	}
	if !all.FirstFailure.IsZero() {
		s.FirstFailure = &metav1.Time{Time: all.FirstFailure}
	}
	return s
}
