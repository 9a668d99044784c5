package apiserver

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
	"github.com/swaprouter/swaprouter/internal/provider/registry"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// Provider statuses of GET /v1/providers.
const (
	ProviderAvailable   = "AVAILABLE"
	ProviderDegraded    = "DEGRADED"
	ProviderUnavailable = "UNAVAILABLE"
)

const (
	// degradedBelow is the success rate under which a provider that still answers is DEGRADED.
	degradedBelow = 0.9
	// minCallsForRate is how many calls a success rate needs before it judges a provider.
	minCallsForRate = 10
	// reasonCallsFailing: many of the last hour's calls failed, though the breaker is closed.
	reasonCallsFailing = "CallsFailing"
	// reasonProviderFailing: the breaker holds calls back (timeouts, 5xx, throttling).
	reasonProviderFailing = "ProviderFailing"
	reasonNotProbedYet    = "NotProbedYet"
)

// GET /v1/providers → every provider with what this installation measured of it in the last
// hour: the breaker's judgement and probe (RoutingProvider conditions), the controllers' order
// calls (status.calls) and this replica's quotes.
func (s *Server) listProviders(w http.ResponseWriter, r *http.Request) error {
	var list swapv1.RoutingProviderList
	if err := s.opts.Client.List(r.Context(), &list, client.InNamespace(s.opts.Namespace)); err != nil {
		return err
	}
	out := wire.Providers{Providers: []wire.ProviderHealth{}}
	for _, rp := range servingProviders(list.Items) {
		quotes := s.opts.Calls.Tally(rp.Spec.ProviderID, providermetrics.CallQuote)
		out.Providers = append(out.Providers, judgeProvider(rp, quotes))
	}
	return writeJSON(w, http.StatusOK, out)
}

// checkProvider refuses an order naming no provider; the code lists this installation's
// enabled providers (the contract's own text while none is loaded). An id the installation
// lacks, or one disabled, is answered by the pair check, as a provider that does not route
// the pair.
func (s *Server) checkProvider(ctx context.Context, id swapv1.ProviderID) error {
	if id != "" {
		return nil
	}
	var list swapv1.RoutingProviderList
	if err := s.opts.Client.List(ctx, &list, client.InNamespace(s.opts.Namespace)); err != nil {
		return err
	}
	var enabled []swapv1.ProviderID
	for _, rp := range servingProviders(list.Items) {
		if rp.Spec.Enabled {
			enabled = append(enabled, rp.Spec.ProviderID)
		}
	}
	code := apierror.ProviderIDRequired
	if len(enabled) > 0 {
		code = apierror.ProviderIDRequiredFor(enabled)
	}
	return apierror.New(code, "choose the providerId of a candidate from the dry quote")
}

// servingProviders keeps one RoutingProvider per providerId, sorted by id: the Ready one,
// else the oldest (a duplicate declaration is never Ready).
func servingProviders(items []swapv1.RoutingProvider) []*swapv1.RoutingProvider {
	byID := map[swapv1.ProviderID]*swapv1.RoutingProvider{}
	for i := range items {
		rp := &items[i]
		if cur, ok := byID[rp.Spec.ProviderID]; !ok || servesBefore(rp, cur) {
			byID[rp.Spec.ProviderID] = rp
		}
	}
	out := make([]*swapv1.RoutingProvider, 0, len(byID))
	for _, rp := range byID {
		out = append(out, rp)
	}
	slices.SortFunc(out, func(a, b *swapv1.RoutingProvider) int { return cmp.Compare(a.Spec.ProviderID, b.Spec.ProviderID) })
	return out
}

func servesBefore(a, b *swapv1.RoutingProvider) bool {
	if ra, rb := meta.IsStatusConditionTrue(a.Status.Conditions, swapv1.ConditionReady),
		meta.IsStatusConditionTrue(b.Status.Conditions, swapv1.ConditionReady); ra != rb {
		return ra
	}
	return a.CreationTimestamp.Before(&b.CreationTimestamp)
}

// judgeProvider is rp's entry: UNAVAILABLE while it is disabled, not probed, failing its probe
// or held back by its breaker; DEGRADED while it answers but fewer than degradedBelow of the
// last hour's calls (the controllers' and this replica's quotes) succeeded; else AVAILABLE.
func judgeProvider(rp *swapv1.RoutingProvider, quotes callstats.Tally) wire.ProviderHealth {
	h := wire.ProviderHealth{
		ProviderID:      string(rp.Spec.ProviderID),
		DisplayName:     cmp.Or(rp.Spec.DisplayName, string(rp.Spec.ProviderID)),
		SignsQuotes:     registry.SignsQuotes(rp.Spec.Protocol),
		AssetsUpdatedAt: optionalTime(rp.Status.LastRefresh),
		QuoteLatencyMs:  wireLatency(callstats.Latency(quotes)),
		Window:          "1h",
	}
	all := quotes
	if c := rp.Status.Calls; c != nil {
		h.DepositAddressLatencyMs = wireLatency(c.DepositAddressLatency)
		if s := c.Settlement; s != nil && s.Orders > 0 {
			rate := float64(s.Succeeded) / float64(s.Orders)
			h.SettledOrders, h.OrderSuccessRate = s.Orders, &rate
			h.SettleTimeSeconds = &wire.SettlePercentiles{P50: s.Seconds.P50, P95: s.Seconds.P95}
		}
		all.Calls += c.Calls
		all.Failed += c.Failed
		if c.FirstFailure != nil && (all.FirstFailure.IsZero() || c.FirstFailure.Time.Before(all.FirstFailure)) {
			all.FirstFailure = c.FirstFailure.Time
		}
	}
	if rate, ok := all.SuccessRate(); ok {
		h.SuccessRate = &rate
	}
	if reason, since, down := unavailability(rp); down {
		h.Status, h.Reason, h.Since = ProviderUnavailable, optional(reason), optionalTime(since)
		return h
	}
	if all.Calls >= minCallsForRate && *h.SuccessRate < degradedBelow {
		h.Status, h.Reason = ProviderDegraded, optional(reasonCallsFailing)
		h.Since = optionalTime(&metav1.Time{Time: all.FirstFailure})
		return h
	}
	ready := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady)
	available := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionAvailable)
	h.Status, h.Since = ProviderAvailable, optionalTime(&ready.LastTransitionTime)
	if available != nil && available.LastTransitionTime.After(ready.LastTransitionTime.Time) {
		h.Since = optionalTime(&available.LastTransitionTime)
	}
	return h
}

// unavailability is why rp is UNAVAILABLE and since when (nil: not known): not probed yet,
// not Ready (disabled, failing its probe, a duplicate id…), or held back by its breaker.
// down is false for a provider that is available.
func unavailability(rp *swapv1.RoutingProvider) (reason string, since *metav1.Time, down bool) {
	ready := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady)
	available := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionAvailable)
	switch {
	case ready == nil:
		return reasonNotProbedYet, nil, true
	case ready.Status != metav1.ConditionTrue:
		return ready.Reason, &ready.LastTransitionTime, true
	case available != nil && available.Status != metav1.ConditionTrue:
		reason := available.Reason
		if reason == health.ReasonDegraded {
			reason = reasonProviderFailing
		}
		return reason, &available.LastTransitionTime, true
	}
	return "", nil, false
}

// standing is what the frontend knows of each provider beyond its quote: why GET
// /v1/providers reports it UNAVAILABLE, and its settled orders.
type standing struct {
	unavailable map[swapv1.ProviderID]string
	measured    map[swapv1.ProviderID]routing.Record
}

// providerStanding reads every provider's standing from the RoutingProviders (the cache).
func (s *Server) providerStanding(ctx context.Context) (standing, error) {
	var list swapv1.RoutingProviderList
	// Read only: the cache's objects, not copies of them, on every quote.
	if err := s.opts.Client.List(ctx, &list, client.InNamespace(s.opts.Namespace), client.UnsafeDisableDeepCopy); err != nil {
		return standing{}, err
	}
	st := standing{unavailable: map[swapv1.ProviderID]string{}, measured: map[swapv1.ProviderID]routing.Record{}}
	for _, rp := range servingProviders(list.Items) {
		id := rp.Spec.ProviderID
		if reason, _, down := unavailability(rp); down {
			st.unavailable[id] = reason
		}
		if c := rp.Status.Calls; c != nil && c.Settlement != nil {
			st.measured[id] = routing.Record{Settled: c.Settlement.Orders, Succeeded: c.Settlement.Succeeded,
				SettleP50: time.Duration(c.Settlement.Seconds.P50) * time.Second}
		}
	}
	return st, nil
}

// choose settles res's best for pref (routing.Result.Choose) with the providers' standing.
func (s *Server) choose(ctx context.Context, res *routing.Result, pref routing.Preference, swapType swapv1.SwapType) error {
	if len(res.Candidates) == 0 {
		return nil
	}
	st, err := s.providerStanding(ctx)
	if err != nil {
		return err
	}
	res.Choose(pref, swapType, st.unavailable, st.measured)
	return nil
}

func wireLatency(l *swapv1.LatencyPercentiles) *wire.LatencyPercentiles {
	if l == nil {
		return nil
	}
	return &wire.LatencyPercentiles{P50: l.P50, P95: l.P95}
}
