package apiserver

import (
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/provider/callstats"
)

var (
	probedAt  = metav1.NewTime(time.Date(2026, 3, 10, 11, 0, 0, 0, time.UTC))
	changedAt = metav1.NewTime(time.Date(2026, 3, 10, 11, 30, 0, 0, time.UTC))
)

func condition(typ string, status metav1.ConditionStatus, reason string, at metav1.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, LastTransitionTime: at}
}

func routingProvider(id swapv1.ProviderID, conditions ...metav1.Condition) *swapv1.RoutingProvider {
	return &swapv1.RoutingProvider{
		ObjectMeta: metav1.ObjectMeta{Name: string(id), Namespace: testNS},
		Spec:       swapv1.RoutingProviderSpec{ProviderID: id, Enabled: true},
		Status:     swapv1.RoutingProviderStatus{Conditions: conditions, LastRefresh: &probedAt},
	}
}

func TestJudgeProvider(t *testing.T) {
	ready := condition(swapv1.ConditionReady, metav1.ConditionTrue, "AssetsListed", probedAt)
	withCalls := func(rp *swapv1.RoutingProvider, calls, failed int64) *swapv1.RoutingProvider {
		rp.Status.Calls = &swapv1.ProviderCallSummary{Calls: calls, Failed: failed, FirstFailure: &changedAt}
		return rp
	}
	for _, tt := range []struct {
		name        string
		rp          *swapv1.RoutingProvider
		quotes      callstats.Tally
		status      string
		reason      string
		since       string
		successRate float64
	}{
		{"not probed yet", routingProvider("route_A"), callstats.Tally{}, ProviderUnavailable, "NotProbedYet", "", -1},
		{"probe failing", routingProvider("route_A", condition(swapv1.ConditionReady, metav1.ConditionFalse, "ProviderTimeout", changedAt)),
			callstats.Tally{}, ProviderUnavailable, "ProviderTimeout", "2026-03-10T11:30:00Z", -1},
		{"breaker open", routingProvider("route_A", ready, condition(swapv1.ConditionAvailable, metav1.ConditionFalse, "Degraded", changedAt)),
			callstats.Tally{}, ProviderUnavailable, "ProviderFailing", "2026-03-10T11:30:00Z", -1},
		{"credentials rejected", routingProvider("route_A", ready, condition(swapv1.ConditionAvailable, metav1.ConditionFalse, "CredentialsRejected", changedAt)),
			callstats.Tally{}, ProviderUnavailable, "CredentialsRejected", "2026-03-10T11:30:00Z", -1},
		{"healthy: since the later of probe and breaker", routingProvider("route_A", ready, condition(swapv1.ConditionAvailable, metav1.ConditionTrue, "Available", changedAt)),
			callstats.Tally{Calls: 4}, ProviderAvailable, "", "2026-03-10T11:30:00Z", 1},
		{"many failed calls: degraded since the first", withCalls(routingProvider("route_A", ready), 8, 2),
			callstats.Tally{Calls: 4, Failed: 1}, ProviderDegraded, "CallsFailing", "2026-03-10T11:30:00Z", 0.75},
		{"a few failures among few calls judge nothing", withCalls(routingProvider("route_A", ready), 4, 2),
			callstats.Tally{}, ProviderAvailable, "", "2026-03-10T11:00:00Z", 0.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := judgeProvider(tt.rp, tt.quotes)
			if string(got.Status) != tt.status || deref(got.Reason) != tt.reason || deref(got.Since) != tt.since {
				t.Errorf("status %s reason %q since %q, want %s %q %q", got.Status, deref(got.Reason), deref(got.Since), tt.status, tt.reason, tt.since)
			}
			if rate := got.SuccessRate; (rate == nil) != (tt.successRate < 0) || (rate != nil && *rate != tt.successRate) {
				t.Errorf("successRate %v, want %v", rate, tt.successRate)
			}
		})
	}
}

func TestProvidersListsEachProviderOnceWithItsMeasurements(t *testing.T) {
	a := routingProvider("route_A", condition(swapv1.ConditionReady, metav1.ConditionTrue, "AssetsListed", probedAt))
	a.Spec.DisplayName, a.Spec.Protocol = "NEAR Intents", swapv1.ProtocolOneClick
	a.Status.Calls = &swapv1.ProviderCallSummary{Window: metav1.Duration{Duration: time.Hour}, Calls: 3,
		DepositAddressLatency: &swapv1.LatencyPercentiles{P50: 250, P95: 1000},
		Settlement:            &swapv1.SettlementSummary{Orders: 8, Succeeded: 6, Seconds: swapv1.LatencyPercentiles{P50: 60, P95: 300}}}
	b := routingProvider("route_B", condition(swapv1.ConditionReady, metav1.ConditionFalse, "ProviderUnavailable", changedAt))
	b.Spec.Protocol = swapv1.ProtocolChannel
	duplicate := routingProvider("route_A", condition(swapv1.ConditionReady, metav1.ConditionFalse, "DuplicateProviderID", changedAt))
	duplicate.Name = "route-a-again"
	h := newHarness(t, b, a, duplicate)
	h.srv.opts.Calls.Record("route_A", "quote", 40*time.Millisecond, false)

	got := decode[struct{ Providers []wire.ProviderHealth }](t, h.do(req{method: "GET", path: "/v1/providers"}), http.StatusOK).Providers
	if len(got) != 2 || got[0].ProviderID != "route_A" || got[1].ProviderID != "route_B" {
		t.Fatalf("providers %+v, want route_A and route_B once each", got)
	}
	if a := got[0]; a.DisplayName != "NEAR Intents" || !a.SignsQuotes || a.Status != ProviderAvailable || a.QuoteLatencyMs == nil || a.QuoteLatencyMs.P95 != 50 ||
		a.DepositAddressLatencyMs.P50 != 250 || *a.SuccessRate != 1 || *a.AssetsUpdatedAt != "2026-03-10T11:00:00Z" || a.Window != "1h" ||
		a.SettledOrders != 8 || *a.OrderSuccessRate != 0.75 || *a.SettleTimeSeconds != (wire.SettlePercentiles{P50: 60, P95: 300}) {
		t.Errorf("route_A %+v", a)
	}
	if b := got[1]; b.DisplayName != "route_B" || b.SignsQuotes || b.Status != ProviderUnavailable || *b.Reason != "ProviderUnavailable" || b.QuoteLatencyMs != nil ||
		b.SettledOrders != 0 || b.OrderSuccessRate != nil || b.SettleTimeSeconds != nil {
		t.Errorf("route_B %+v", b)
	}
	expectError(t, h.do(req{method: "GET", path: "/v1/providers", noAuth: true}), "unauthorized")
}
