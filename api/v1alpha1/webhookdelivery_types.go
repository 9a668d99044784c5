package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeliveryPhase is where a webhook delivery stands.
// +kubebuilder:validation:Enum=Pending;Delivered;Failed
type DeliveryPhase string

const (
	DeliveryPending   DeliveryPhase = "Pending"
	DeliveryDelivered DeliveryPhase = "Delivered"
	DeliveryFailed    DeliveryPhase = "Failed"
)

// WebhookDeliverySpec is one event to deliver: the exact bytes and whom they are for.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a webhook delivery's spec is immutable"
type WebhookDeliverySpec struct {
	// Partner is the name of the Partner (same namespace) the event is for.
	// +kubebuilder:validation:MinLength=1
	Partner string `json:"partner"`
	// OrderID is the public id of the order the event is about.
	// +kubebuilder:validation:Pattern=`^ord_[a-z2-7]{26}$`
	OrderID string `json:"orderId"`
	// EventID is the event id (evt_...), sent as webhook-id; stable across redeliveries.
	// +kubebuilder:validation:Pattern=`^evt_[a-z0-9]{1,64}$`
	EventID string `json:"eventId"`
	// Sequence is the order's transition seq this event reports.
	// +kubebuilder:validation:Minimum=1
	Sequence int64 `json:"sequence"`
	// Payload is the exact JSON body sent (and signed) on every attempt.
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=16384
	Payload string `json:"payload"`
	// Redelivery counts partner-requested redeliveries of the same event (0 for the first).
	// +optional
	// +kubebuilder:validation:Minimum=0
	Redelivery int32 `json:"redelivery,omitempty"`
}

// DeliveryAttempt records one POST to the partner.
type DeliveryAttempt struct {
	At metav1.Time `json:"at"`
	// Code is the HTTP status code, 0 when no response came.
	// +optional
	Code int32 `json:"code,omitempty"`
	// Error describes a failed attempt (connection error, non-2xx, refusal).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Error string `json:"error,omitempty"`
	// DurationMillis is how long the attempt took.
	// +optional
	DurationMillis int64 `json:"durationMillis,omitempty"`
}

// MaxDeliveryAttempts bounds status.attempts (the schedule has 8 attempts).
const MaxDeliveryAttempts = 10

// WebhookDeliveryStatus is the delivery log.
type WebhookDeliveryStatus struct {
	// +optional
	Phase DeliveryPhase `json:"phase,omitempty"`
	// AttemptCount is the number of attempts made.
	// +optional
	AttemptCount int32 `json:"attemptCount,omitempty"`
	// Attempts lists the latest attempts, oldest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	Attempts []DeliveryAttempt `json:"attempts,omitempty"`
	// LastCode is the HTTP status of the latest attempt.
	// +optional
	LastCode int32 `json:"lastCode,omitempty"`
	// NextAttemptAt is when the next attempt is due while Pending.
	// +optional
	NextAttemptAt *metav1.Time `json:"nextAttemptAt,omitempty"`
	// CompletedAt is when the delivery became Delivered or Failed.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
	// Reason says why the delivery failed for good.
	// +optional
	Reason string `json:"reason,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// WebhookDelivery is one signed order.status_changed event on its way to a partner.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=whd,categories=swaprouter
// +kubebuilder:printcolumn:name="Order",type=string,JSONPath=`.spec.orderId`
// +kubebuilder:printcolumn:name="Seq",type=integer,JSONPath=`.spec.sequence`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Code",type=integer,JSONPath=`.status.lastCode`
// +kubebuilder:printcolumn:name="Event",type=string,JSONPath=`.spec.eventId`,priority=1
// +kubebuilder:printcolumn:name="Attempts",type=integer,JSONPath=`.status.attemptCount`,priority=1
// +kubebuilder:printcolumn:name="Next",type=date,JSONPath=`.status.nextAttemptAt`,priority=1
// +kubebuilder:printcolumn:name="Partner",type=string,JSONPath=`.spec.partner`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type WebhookDelivery struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WebhookDeliverySpec   `json:"spec"`
	Status WebhookDeliveryStatus `json:"status,omitempty"`
}

// WebhookDeliveryList contains a list of WebhookDelivery.
// +kubebuilder:object:root=true
type WebhookDeliveryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebhookDelivery `json:"items"`
}

func init() {
	SchemeBuilder.Register(&WebhookDelivery{}, &WebhookDeliveryList{})
}
