package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProviderProtocol is the wire protocol an adapter speaks.
// +kubebuilder:validation:Enum=oneclick;channel;relay
type ProviderProtocol string

const (
	// ProtocolOneClick is the NEAR Intents 1Click API v0.
	ProtocolOneClick ProviderProtocol = "oneclick"
	// ProtocolChannel is the Chainflip swap backend (deposit channels), as its public SDK calls it.
	ProtocolChannel ProviderProtocol = "channel"
	// ProtocolRelay is Relay's API in its deposit-address mode (strict addresses).
	ProtocolRelay ProviderProtocol = "relay"
)

// PollInterval is the range the status poll interval is drawn from (uniform jitter).
// +kubebuilder:validation:XValidation:rule="duration(self.min) <= duration(self.max)",message="min must not exceed max"
type PollInterval struct {
	// +kubebuilder:default="10s"
	Min metav1.Duration `json:"min"`
	// +kubebuilder:default="15s"
	Max metav1.Duration `json:"max"`
}

// RoutingProviderSpec declares one routing provider.
type RoutingProviderSpec struct {
	// ProviderID is the id partners see.
	ProviderID ProviderID `json:"providerId"`
	// DisplayName is the provider's name as people read it (GET /v1/providers, the swap app),
	// e.g. "NEAR Intents" or "Chainflip"; the providerId when unset.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	DisplayName string `json:"displayName,omitempty"`
	// Protocol selects the adapter.
	Protocol ProviderProtocol `json:"protocol"`
	// Endpoint is the provider's base URL.
	// +kubebuilder:validation:Pattern=`^https?://`
	// +kubebuilder:validation:MaxLength=2048
	Endpoint string `json:"endpoint"`
	// CredentialsSecretRef points at the provider's API token, when it needs one.
	// +optional
	CredentialsSecretRef *SecretKeyRef `json:"credentialsSecretRef,omitempty"`
	// QuoteSigningKey is the ed25519 public key ("ed25519:<base58>") the provider's quote
	// signatures must verify with; a quote that does not is never used, and its order fails
	// with ProviderSignatureInvalid. Read by the oneclick protocol; absent: 1Click's
	// published key.
	// +kubebuilder:validation:Pattern=`^(ed25519:)?[1-9A-HJ-NP-Za-km-z]{43,44}$`
	// +optional
	QuoteSigningKey string `json:"quoteSigningKey,omitempty"`
	// Timeout bounds each provider call.
	// +kubebuilder:default="5s"
	// +optional
	Timeout metav1.Duration `json:"timeout,omitempty"`
	// PollInterval is how often order status is polled.
	// +kubebuilder:default={min: "10s", max: "15s"}
	// +optional
	PollInterval PollInterval `json:"pollInterval,omitempty"`
	// AssetRefreshInterval is how often the asset list is refreshed.
	// +kubebuilder:default="5m"
	// +optional
	AssetRefreshInterval metav1.Duration `json:"assetRefreshInterval,omitempty"`
	// Enabled takes part in quotes and new orders; existing orders are tracked regardless.
	// +kubebuilder:default=true
	// +optional
	Enabled bool `json:"enabled"`
	// CallBudget caps the calls made to the provider: order calls (deposit creation, status
	// polls, deposit hints) and quotes draw from one token bucket. A call over budget is not
	// made: quotes list the provider in their errors, orders retry shortly. The budget is
	// enforced per process: a separate frontend replica has its own. Absent: no budget.
	// +optional
	CallBudget *ProviderCallBudget `json:"callBudget,omitempty"`
}

// ProviderCallBudget is a token bucket: requestsPerSecond sustained, burst at once.
type ProviderCallBudget struct {
	// RequestsPerSecond is the sustained call rate.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	RequestsPerSecond int32 `json:"requestsPerSecond"`
	// Burst is how many calls may go at once after a quiet period; at least requestsPerSecond
	// is sensible, so a second's worth is never refused.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	Burst int32 `json:"burst"`
}

// RoutingProviderStatus is what the last probe saw.
type RoutingProviderStatus struct {
	// AssetCount is the number of assets the provider lists.
	// +optional
	AssetCount int32 `json:"assetCount,omitempty"`
	// LastRefresh is when the asset list was last fetched successfully.
	// +optional
	LastRefresh *metav1.Time `json:"lastRefresh,omitempty"`
	// Calls is what the controllers measured of their calls to the provider over the last
	// hour, rewritten at most every 30 s and only when it changed.
	// +optional
	Calls *ProviderCallSummary `json:"calls,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ProviderCallSummary counts the order calls one installation's controllers made to a
// provider (deposit addresses, status polls, deposit hints, asset listings) over Window.
// Quotes are made by the frontend replicas, which measure them themselves.
type ProviderCallSummary struct {
	// Window is how far back the summary looks.
	Window metav1.Duration `json:"window"`
	// Calls is the number of calls made.
	Calls int64 `json:"calls"`
	// Failed counts the calls that failed the provider as a whole (timeouts, 5xx, throttling,
	// rejected credentials); refusals of one order are answers, not failures.
	Failed int64 `json:"failed"`
	// FirstFailure is the start of the oldest minute in Window with a failed call.
	// +optional
	FirstFailure *metav1.Time `json:"firstFailure,omitempty"`
	// DepositAddressLatency is how long deposit-address calls took; absent without any.
	// +optional
	DepositAddressLatency *LatencyPercentiles `json:"depositAddressLatency,omitempty"`
	// Settlement is how the provider's orders that ended within Window after a deposit was
	// seen settled; absent without any.
	// +optional
	Settlement *SettlementSummary `json:"settlement,omitempty"`
}

// SettlementSummary is what the controllers measured of a provider's settled orders: those
// that ended (SUCCESS, REFUNDED or FAILED) after their deposit was seen.
type SettlementSummary struct {
	// Orders is the number of settled orders.
	Orders int64 `json:"orders"`
	// Succeeded counts those that ended SUCCESS.
	Succeeded int64 `json:"succeeded"`
	// Seconds is how long they took from the deposit seen (the order's first PROCESSING) to
	// their outcome, in seconds, to the precision of the buckets they were counted in.
	Seconds LatencyPercentiles `json:"seconds"`
}

// LatencyPercentiles are a median and a 95th percentile, to the precision of the buckets
// they were counted in: milliseconds for call latencies, seconds for settlement.
type LatencyPercentiles struct {
	P50 int64 `json:"p50"`
	P95 int64 `json:"p95"`
}

// RoutingProvider is a provider the service routes swaps through.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=rp,categories=swaprouter
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.providerId`
// +kubebuilder:printcolumn:name="Protocol",type=string,JSONPath=`.spec.protocol`
// +kubebuilder:printcolumn:name="Enabled",type=boolean,JSONPath=`.spec.enabled`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Assets",type=integer,JSONPath=`.status.assetCount`
// +kubebuilder:printcolumn:name="Endpoint",type=string,JSONPath=`.spec.endpoint`,priority=1
// +kubebuilder:printcolumn:name="Refreshed",type=date,JSONPath=`.status.lastRefresh`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RoutingProvider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RoutingProviderSpec   `json:"spec"`
	Status RoutingProviderStatus `json:"status,omitempty"`
}

// RoutingProviderList contains a list of RoutingProvider.
// +kubebuilder:object:root=true
type RoutingProviderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RoutingProvider `json:"items"`
}

func init() {
	SchemeBuilder.Register(&RoutingProvider{}, &RoutingProviderList{})
}
