package partners

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestAssess(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	key := func(id string, expires time.Duration) swapv1.PartnerKey {
		k := swapv1.PartnerKey{ID: id, SecretRef: swapv1.SecretKeyRef{Name: id + "-s", Key: "sha256"}}
		if expires != 0 {
			k.ExpiresAt = &metav1.Time{Time: now.Add(expires)}
		}
		return k
	}
	secrets := SecretKeys{"k1-s": {"sha256": true}, "k2-s": {"sha256": true}, "wh": {"secret": true}, "k3-s": {"other": true}}
	webhook := func(name string) *swapv1.PartnerWebhook {
		return &swapv1.PartnerWebhook{URL: "https://x", Enabled: true, SecretRef: swapv1.SecretKeyRef{Name: name, Key: "secret"}}
	}
	tests := []struct {
		name       string
		spec       swapv1.PartnerSpec
		wantKeys   int32
		wantReady  bool
		wantReason string
		wantExpiry time.Time
	}{
		{"no keys", swapv1.PartnerSpec{}, 0, false, ReasonNoLiveKey, time.Time{}},
		{"one live key", swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{key("k1", 0)}}, 1, true, ReasonReady, time.Time{}},
		{"expired key does not count", swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{key("k1", -time.Minute)}}, 0, false, ReasonNoLiveKey, time.Time{}},
		{"rotation: two live keys, next expiry reported", swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{key("k1", time.Hour), key("k2", 2*time.Hour)}},
			2, true, ReasonReady, now.Add(time.Hour)},
		{"missing secret", swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{key("k1", 0), key("nokey", 0)}}, 1, false, ReasonKeySecretMissing, time.Time{}},
		{"secret without the hash key", swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{key("k3", 0)}}, 0, false, ReasonKeySecretMissing, time.Time{}},
		{"webhook secret present", swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{key("k1", 0)}, Webhook: webhook("wh")}, 1, true, ReasonReady, time.Time{}},
		{"webhook secret missing", swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{key("k1", 0)}, Webhook: webhook("gone")}, 1, false, ReasonWebhookSecretIssue, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := Assess(tc.spec, secrets, now)
			if h.ActiveKeys != tc.wantKeys || h.Ready != tc.wantReady || h.Reason != tc.wantReason || !h.NextExpiry.Equal(tc.wantExpiry) {
				t.Errorf("Assess = %+v; want keys %d ready %v reason %s expiry %v", h, tc.wantKeys, tc.wantReady, tc.wantReason, tc.wantExpiry)
			}
			if again := Assess(tc.spec, secrets, now.Add(time.Second)); again.Message != h.Message {
				t.Errorf("message changes with time: %q vs %q", h.Message, again.Message)
			}
		})
	}
}
