// Package partners decides a Partner's health from its spec and the Secrets it references:
// pure functions, so the reconciler only gathers facts and writes the outcome.
package partners

import (
	"fmt"
	"strings"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Ready condition reasons of a Partner.
const (
	ReasonReady              = "Ready"
	ReasonNoLiveKey          = "NoLiveKey"
	ReasonKeySecretMissing   = "KeySecretMissing"
	ReasonWebhookSecretIssue = "WebhookSecretMissing"
)

// SecretKeys says, for a Secret name, which data keys it has (absent name: Secret missing).
type SecretKeys map[string]map[string]bool

func (s SecretKeys) has(ref swapv1.SecretKeyRef) bool { return s[ref.Name][ref.Key] }

// Health is what the reconciler writes to Partner status.
type Health struct {
	ActiveKeys int32
	Ready      bool
	Reason     string
	Message    string
	// NextExpiry is the earliest future key expiry (zero when none): health changes then.
	NextExpiry time.Time
}

// Assess decides a partner's health at now. Messages list names only (no times), so an
// unchanged situation never rewrites status.
func Assess(spec swapv1.PartnerSpec, secrets SecretKeys, now time.Time) Health {
	var h Health
	var missing []string
	for _, k := range spec.Keys {
		if k.ExpiresAt != nil && !k.ExpiresAt.After(now) {
			continue
		}
		if k.ExpiresAt != nil && (h.NextExpiry.IsZero() || k.ExpiresAt.Time.Before(h.NextExpiry)) {
			h.NextExpiry = k.ExpiresAt.Time
		}
		if !secrets.has(k.SecretRef) {
			missing = append(missing, k.ID)
			continue
		}
		h.ActiveKeys++
	}
	switch {
	case h.ActiveKeys == 0 && len(missing) == 0:
		h.Reason, h.Message = ReasonNoLiveKey, "the partner has no unexpired API key: create one with `swaprouter keys create`"
	case len(missing) > 0:
		h.Reason = ReasonKeySecretMissing
		h.Message = fmt.Sprintf("the Secret of key(s) %s is missing or lacks its key", strings.Join(missing, ", "))
	case spec.Webhook != nil && spec.Webhook.Enabled && !secrets.has(spec.Webhook.SecretRef):
		h.Reason = ReasonWebhookSecretIssue
		h.Message = fmt.Sprintf("webhook signing secret %s/%s is missing", spec.Webhook.SecretRef.Name, spec.Webhook.SecretRef.Key)
	default:
		h.Ready, h.Reason = true, ReasonReady
		h.Message = fmt.Sprintf("%d live API key(s)", h.ActiveKeys)
	}
	return h
}

// SecretNames lists the Secrets a partner references.
func SecretNames(spec swapv1.PartnerSpec) []string {
	var names []string
	for _, k := range spec.Keys {
		names = append(names, k.SecretRef.Name)
	}
	if spec.Webhook != nil {
		names = append(names, spec.Webhook.SecretRef.Name)
		for _, r := range spec.Webhook.AdditionalSecretRefs {
			names = append(names, r.Name)
		}
	}
	return names
}
