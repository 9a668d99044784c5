package system

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestMissingCatalogs(t *testing.T) {
	rp := func(id swapv1.ProviderID, enabled, ready bool) swapv1.RoutingProvider {
		p := swapv1.RoutingProvider{Spec: swapv1.RoutingProviderSpec{ProviderID: id, Enabled: enabled}}
		status := metav1.ConditionFalse
		if ready {
			status = metav1.ConditionTrue
		}
		p.Status.Conditions = []metav1.Condition{{Type: swapv1.ConditionReady, Status: status}}
		return p
	}
	a, b := swapv1.ProviderRouteA, swapv1.ProviderRouteB
	for _, tc := range []struct {
		name      string
		providers []swapv1.RoutingProvider
		loaded    []swapv1.ProviderID
		want      []swapv1.ProviderID
	}{
		{"just started: nothing loaded", []swapv1.RoutingProvider{rp(a, true, true), rp(b, true, true)}, nil, []swapv1.ProviderID{a, b}},
		{"one loaded", []swapv1.RoutingProvider{rp(a, true, true), rp(b, true, true)}, []swapv1.ProviderID{a}, []swapv1.ProviderID{b}},
		{"all loaded", []swapv1.RoutingProvider{rp(a, true, true), rp(b, true, true)}, []swapv1.ProviderID{a, b}, nil},
		{"a provider that is down does not hold readiness", []swapv1.RoutingProvider{rp(a, true, true), rp(b, true, false)}, []swapv1.ProviderID{a}, nil},
		{"a disabled provider does not either", []swapv1.RoutingProvider{rp(a, true, true), rp(b, false, true)}, []swapv1.ProviderID{a}, nil},
		{"no providers", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := missingCatalogs(tc.providers, func(id swapv1.ProviderID) bool { return slices.Contains(tc.loaded, id) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("missing %v, want %v", got, tc.want)
			}
		})
	}
}
