package apiserver

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	providermetrics "github.com/swaprouter/swaprouter/internal/provider/metrics"
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

// providerHealth is one provider of GET /v1/providers.
type providerHealth struct {
	ProviderID              swapv1.ProviderID          `json:"providerId"`
	DisplayName             string                     `json:"displayName"`
	Status                  string                     `json:"status"`
	Reason                  *string                    `json:"reason"`
	Since                   *string                    `json:"since"`
	AssetsUpdatedAt         *string                    `json:"assetsUpdatedAt"`
	QuoteLatencyMs          *swapv1.LatencyPercentiles `json:"quoteLatencyMs"`
	DepositAddressLatencyMs *swapv1.LatencyPercentiles `json:"depositAddressLatencyMs"`
	SuccessRate             *float64                   `json:"successRate"`
	Window                  string                     `json:"window"`
}

// GET /v1/providers → every provider with what this installation measured of it in the last
// hour: the breaker's judgement and probe (RoutingProvider conditions), the controllers' order
// calls (status.calls) and this replica's quotes.
func (s *Server) listProviders(w http.ResponseWriter, r *http.Request) error {
	var list swapv1.RoutingProviderList
	if err := s.opts.Client.List(r.Context(), &list, client.InNamespace(s.opts.Namespace)); err != nil {
		return err
	}
	out := []providerHealth{}
	for _, rp := range servingProviders(list.Items) {
		quotes := s.opts.Calls.Tally(rp.Spec.ProviderID, providermetrics.CallQuote)
		out = append(out, judgeProvider(rp, quotes))
	}
	return writeJSON(w, http.StatusOK, struct {
		Providers []providerHealth `json:"providers"`
	}{out})
}

// checkProvider refuses an order naming no provider (the code lists this installation's
// enabled ones) or one this installation does not have. A disabled provider's id passes: the
// pair check answers for it, as for a provider that does not route the pair.
func (s *Server) checkProvider(ctx context.Context, id swapv1.ProviderID) error {
	var list swapv1.RoutingProviderList
	if err := s.opts.Client.List(ctx, &list, client.InNamespace(s.opts.Namespace)); err != nil {
		return err
	}
	var enabled []swapv1.ProviderID
	known := false
	for _, rp := range servingProviders(list.Items) {
		known = known || rp.Spec.ProviderID == id
		if rp.Spec.Enabled {
			enabled = append(enabled, rp.Spec.ProviderID)
		}
	}
	switch {
	case id == "":
		return apierror.New(apierror.ProviderIDRequiredFor(enabled), "choose the providerId of a candidate from the dry quote")
	case !known:
		return apierror.Invalid("providerId", fmt.Sprintf("%s is not a provider of this service (GET /v1/providers lists them)", id))
	}
	return nil
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
func judgeProvider(rp *swapv1.RoutingProvider, quotes callstats.Tally) providerHealth {
	h := providerHealth{
		ProviderID:      rp.Spec.ProviderID,
		DisplayName:     cmp.Or(rp.Spec.DisplayName, string(rp.Spec.ProviderID)),
		AssetsUpdatedAt: optionalTime(rp.Status.LastRefresh),
		QuoteLatencyMs:  callstats.Latency(quotes),
		Window:          "1h",
	}
	all := quotes
	if c := rp.Status.Calls; c != nil {
		h.DepositAddressLatencyMs = c.DepositAddressLatency
		all.Calls += c.Calls
		all.Failed += c.Failed
		if c.FirstFailure != nil && (all.FirstFailure.IsZero() || c.FirstFailure.Time.Before(all.FirstFailure)) {
			all.FirstFailure = c.FirstFailure.Time
		}
	}
	if rate, ok := all.SuccessRate(); ok {
		h.SuccessRate = &rate
	}
	ready := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionReady)
	available := meta.FindStatusCondition(rp.Status.Conditions, swapv1.ConditionAvailable)
	switch {
	case ready == nil:
		h.Status, h.Reason = ProviderUnavailable, optional(reasonNotProbedYet)
	case ready.Status != metav1.ConditionTrue:
		h.Status, h.Reason, h.Since = ProviderUnavailable, optional(ready.Reason), optionalTime(&ready.LastTransitionTime)
	case available != nil && available.Status != metav1.ConditionTrue:
		reason := available.Reason
		if reason == health.ReasonDegraded {
			reason = reasonProviderFailing
		}
		h.Status, h.Reason, h.Since = ProviderUnavailable, optional(reason), optionalTime(&available.LastTransitionTime)
	case all.Calls >= minCallsForRate && *h.SuccessRate < degradedBelow:
		h.Status, h.Reason = ProviderDegraded, optional(reasonCallsFailing)
		h.Since = optionalTime(&metav1.Time{Time: all.FirstFailure})
	default:
		h.Status, h.Since = ProviderAvailable, optionalTime(&ready.LastTransitionTime)
		if available != nil && available.LastTransitionTime.After(ready.LastTransitionTime.Time) {
			h.Since = optionalTime(&available.LastTransitionTime)
		}
	}
	return h
}
