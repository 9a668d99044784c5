package controllers

import (
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestProviderProbeRetryDelay(t *testing.T) {
	tests := []struct {
		name                string
		failingFor, refresh time.Duration
		want                time.Duration
	}{
		{"just failed: the minimum", 0, 5 * time.Minute, 5 * time.Second},
		{"failing for a while: as long again", 40 * time.Second, 5 * time.Minute, 40 * time.Second},
		{"capped by the refresh interval", time.Hour, 5 * time.Minute, 5 * time.Minute},
		{"a refresh shorter than the minimum does not hammer", time.Hour, time.Second, 5 * time.Second},
		{"clock skew (negative) is the minimum", -time.Minute, 5 * time.Minute, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := providerProbeRetryDelay(tt.failingFor, tt.refresh); got != tt.want {
				t.Errorf("providerProbeRetryDelay(%v, %v) = %v, want %v", tt.failingFor, tt.refresh, got, tt.want)
			}
		})
	}
}

func TestOldestProviderClaimant(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	rp := func(ns, name string, id swapv1.ProviderID, created metav1.Time, deleting bool) swapv1.RoutingProvider {
		o := swapv1.RoutingProvider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: created}}
		o.Spec.ProviderID = id
		if deleting {
			o.DeletionTimestamp = &t1
		}
		return o
	}
	withReady := func(o swapv1.RoutingProvider, reason string) swapv1.RoutingProvider {
		o.Status.Conditions = []metav1.Condition{{Type: swapv1.ConditionReady, Status: metav1.ConditionFalse, Reason: reason}}
		return o
	}
	A := swapv1.ProviderRouteA
	tests := []struct {
		name  string
		items []swapv1.RoutingProvider
		want  types.NamespacedName
	}{
		{"none", nil, types.NamespacedName{}},
		{"other ids do not count", []swapv1.RoutingProvider{rp("a", "b", swapv1.ProviderRouteB, t0, false)}, types.NamespacedName{}},
		{"oldest wins", []swapv1.RoutingProvider{rp("a", "new", A, t1, false), rp("z", "old", A, t0, false)}, types.NamespacedName{Namespace: "z", Name: "old"}},
		{"same age: namespace then name", []swapv1.RoutingProvider{rp("b", "a", A, t0, false), rp("a", "z", A, t0, false), rp("a", "y", A, t0, false)}, types.NamespacedName{Namespace: "a", Name: "y"}},
		{"the one serving keeps the claim over an older newcomer", []swapv1.RoutingProvider{
			rp("a", "old", A, t0, false), withReady(rp("z", "serving", A, t1, false), ReasonProviderUnavailable)},
			types.NamespacedName{Namespace: "z", Name: "serving"}},
		{"a duplicate serves nothing: the oldest wins", []swapv1.RoutingProvider{
			withReady(rp("a", "dup", A, t0, false), ReasonProviderDuplicateID), withReady(rp("a", "dup2", A, t1, false), ReasonProviderDuplicateID)},
			types.NamespacedName{Namespace: "a", Name: "dup"}},
		{"an object being deleted has no claim", []swapv1.RoutingProvider{rp("a", "old", A, t0, true), rp("a", "new", A, t1, false)}, types.NamespacedName{Namespace: "a", Name: "new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oldestProviderClaimant(tt.items, A); got != tt.want {
				t.Errorf("claimant = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestProviderProbeFailure(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantReason string
		wantMsg    string
	}{
		{"timeout", &provider.Error{Kind: provider.KindTimeout, Detail: "no answer in time", Upstream: &provider.Upstream{Path: "GET /v0/tokens"},
			Err: errors.New("read tcp 127.0.0.1:51234->127.0.0.1:8080: i/o timeout")},
			ReasonProviderTimeout, "listing assets failed: upstream timeout (GET /v0/tokens): no answer in time"},
		{"5xx", &provider.Error{Kind: provider.KindUpstream, Detail: "provider error", Upstream: &provider.Upstream{Status: 503, Path: "GET /v0/tokens"}},
			ReasonProviderUnavailable, "listing assets failed: upstream error (GET /v0/tokens answered 503): provider error"},
		{"breaker open", &provider.Error{Kind: provider.KindUnavailable, Detail: "calls are held back for a while: the provider kept failing",
			Err: errors.New("the provider kept failing")},
			ReasonProviderUnavailable, "listing assets failed: provider unavailable: calls are held back for a while: the provider kept failing"},
		{"4xx", &provider.Error{Kind: provider.KindRefused, Detail: "invalid token", Upstream: &provider.Upstream{Status: 401, Path: "GET /v0/tokens"}},
			ReasonProviderRefused, "listing assets failed: refused (GET /v0/tokens answered 401): invalid token"},
		// A foreign error's text may carry ephemeral ports: it never reaches status.
		{"foreign error", errors.New("dial tcp 127.0.0.1:51234: connection reset"),
			ReasonProviderUnavailable, "listing assets failed: upstream error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason, msg := providerProbeFailure(tt.err)
			if reason != tt.wantReason || msg != tt.wantMsg {
				t.Errorf("got %q %q, want %q %q", reason, msg, tt.wantReason, tt.wantMsg)
			}
		})
	}
}
