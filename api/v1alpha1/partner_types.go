package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PartnerKey is one API key of a partner. The Secret holds only the SHA-256 (hex) of the
// secret, never the secret itself.
type PartnerKey struct {
	// ID is sent by the partner as X-Key-Id.
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]{4,64}$`
	ID string `json:"id"`
	// SecretRef points at the hex SHA-256 of the API secret.
	SecretRef SecretKeyRef `json:"secretRef"`
	// CreatedAt is when `swaprouter keys create` or `rotate` made the key; unset for keys
	// declared otherwise, which count as older than any key with a creation time.
	// +optional
	CreatedAt *metav1.Time `json:"createdAt,omitempty"`
	// ExpiresAt ends the key's validity; unset means no expiry. `swaprouter keys rotate` sets
	// it on the key it retires: the end of the grace period during which both keys work.
	// +optional
	ExpiresAt *metav1.Time `json:"expiresAt,omitempty"`
}

// PartnerWebhook is where and how order.status_changed events are delivered.
type PartnerWebhook struct {
	// URL receives the signed POSTs (http or https).
	// +kubebuilder:validation:Pattern=`^https?://`
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url"`
	// Enabled switches deliveries on; no deliveries are created while false.
	// +kubebuilder:default=true
	// +optional
	Enabled bool `json:"enabled"`
	// SecretRef points at the signing secret (whsec_<base64>).
	SecretRef SecretKeyRef `json:"secretRef"`
	// AdditionalSecretRefs are further active secrets; each signs too, so a receiver can
	// rotate with overlap.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=2
	AdditionalSecretRefs []SecretKeyRef `json:"additionalSecretRefs,omitempty"`
}

// PartnerSpec declares an approved partner integration.
type PartnerSpec struct {
	// DisplayName is a human-readable name.
	// +optional
	DisplayName string `json:"displayName,omitempty"`
	// Tier names the partner's commercial tier, which sets the default limits (the tier table
	// of --tiers-file; an unknown tier gets the standard tier's).
	// +kubebuilder:default=standard
	// +optional
	Tier string `json:"tier,omitempty"`
	// RequestsPerMinute is the per-key burst limit; unset: the tier's (--tiers-file).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	RequestsPerMinute int32 `json:"requestsPerMinute,omitempty"`
	// MonthlyQuoteQuota caps quotes per UTC month; unset or 0: the tier's cap (0 in the tier
	// table means unlimited).
	// +kubebuilder:validation:Minimum=0
	// +optional
	MonthlyQuoteQuota int64 `json:"monthlyQuoteQuota,omitempty"`
	// AllowedOrigins are browser origins allowed to call the API (scheme://host[:port]).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	AllowedOrigins []string `json:"allowedOrigins,omitempty"`
	// RequireOrigin refuses requests without an Origin header.
	// +optional
	RequireOrigin bool `json:"requireOrigin,omitempty"`
	// Keys are the partner's API keys; two live keys allow rotation.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=4
	Keys []PartnerKey `json:"keys,omitempty"`
	// Webhook configures status events.
	// +optional
	Webhook *PartnerWebhook `json:"webhook,omitempty"`
	// Fees is the partner's own fee on its users' swaps, passed to providers that can take it
	// (route_A: 1Click appFees) and shown in quotes as a fee of type "partner".
	// +optional
	Fees *PartnerFees `json:"fees,omitempty"`
	// Screening is what a sanctioned address, or a screening source that cannot answer, does
	// to the partner's orders; unset: block matches, hold orders when a source is down.
	// +optional
	Screening *PartnerScreening `json:"screening,omitempty"`
}

// PartnerFees is a partner fee in basis points of the input.
// +kubebuilder:validation:XValidation:rule="!has(self.bps) || !has(self.maxBps) || self.bps <= self.maxBps",message="bps must not exceed maxBps"
type PartnerFees struct {
	// Bps is charged when a request names no feeBps.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +optional
	Bps int32 `json:"bps,omitempty"`
	// MaxBps is the most a request's feeBps may ask; defaults to bps.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +optional
	MaxBps int32 `json:"maxBps,omitempty"`
	// Recipient receives the fee: the partner's NEAR Intents account (1Click appFees). Relay
	// credits app fees to a wallet, so Relay providers take the fee only when this is an EVM
	// address, and quote without it otherwise.
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=64
	Recipient string `json:"recipient"`
}

// Max is the most a request may ask.
func (f *PartnerFees) Max() int32 {
	if f == nil {
		return 0
	}
	return max(f.Bps, f.MaxBps)
}

// QuotaUsage is the partner's quote count in one UTC month.
type QuotaUsage struct {
	// Month is the UTC month, YYYY-MM.
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-[0-9]{2}$`
	Month string `json:"month"`
	// Quotes is the number of quotes answered this month.
	// +kubebuilder:validation:Minimum=0
	Quotes int64 `json:"quotes"`
	// Claimed is how much of the monthly cap frontend replicas have taken as allowance blocks
	// this month, answered quotes included; it never exceeds the cap, which is what makes the
	// cap hold across replicas. Unused blocks are given back when idle or on shutdown.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Claimed int64 `json:"claimed,omitempty"`
}

// PartnerStatus is the partner's usage and health.
type PartnerStatus struct {
	// QuotaUsage counts quotes of the current month, shared by all frontend replicas.
	// +optional
	QuotaUsage *QuotaUsage `json:"quotaUsage,omitempty"`
	// ActiveKeys is the number of keys that authenticate: listed, not expired, and with their
	// hash in the Secret they name. It drops when a key expires, without any change to the spec.
	// +optional
	ActiveKeys int32 `json:"activeKeys,omitempty"`
	// KeysLastUsed is when each key last authenticated a request, as the frontend records it:
	// at most once per key every 15 minutes (so to within that), never on the request
	// path. An entry goes with its key.
	// +optional
	KeysLastUsed map[string]metav1.Time `json:"keysLastUsed,omitempty"`
	// Limits are the limits in effect: the Partner's own where set, else its tier's.
	// +optional
	Limits *PartnerLimits `json:"limits,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PartnerLimits are a Partner's limits in effect.
type PartnerLimits struct {
	// Tier is the tier whose defaults apply: spec.tier, or the default tier when the tier
	// table does not know it.
	Tier string `json:"tier"`
	// RequestsPerMinute is each key's request limit.
	RequestsPerMinute int32 `json:"requestsPerMinute"`
	// MonthlyQuoteQuota caps quotes per UTC month; 0 is unlimited.
	// +optional
	MonthlyQuoteQuota int64 `json:"monthlyQuoteQuota,omitempty"`
	// Quota is MonthlyQuoteQuota for people: a number or "unlimited".
	Quota string `json:"quota"`
}

// Partner is an approved partner integration: its keys, limits, origins and webhook.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ptn,categories=swaprouter
// +kubebuilder:printcolumn:name="Tier",type=string,JSONPath=`.status.limits.tier`
// +kubebuilder:printcolumn:name="RPM",type=integer,JSONPath=`.status.limits.requestsPerMinute`
// +kubebuilder:printcolumn:name="Quota",type=string,JSONPath=`.status.limits.quota`
// +kubebuilder:printcolumn:name="Used",type=integer,JSONPath=`.status.quotaUsage.quotes`
// +kubebuilder:printcolumn:name="Keys",type=integer,JSONPath=`.status.activeKeys`
// +kubebuilder:printcolumn:name="Sanctions",type=string,JSONPath=`.status.conditions[?(@.type=="SanctionsList")].reason`
// +kubebuilder:printcolumn:name="Webhook",type=string,JSONPath=`.spec.webhook.url`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Partner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PartnerSpec   `json:"spec,omitempty"`
	Status PartnerStatus `json:"status,omitempty"`
}

// PartnerList contains a list of Partner.
// +kubebuilder:object:root=true
type PartnerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Partner `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Partner{}, &PartnerList{})
}
