package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RedeliveryPhase is where a redelivery request stands.
// +kubebuilder:validation:Enum=Pending;Done;Refused
type RedeliveryPhase string

const (
	RedeliveryPending RedeliveryPhase = "Pending"
	// RedeliveryDone: the controllers created the deliveries named in status.
	RedeliveryDone RedeliveryPhase = "Done"
	// RedeliveryRefused: nothing was sent; status.reason says why.
	RedeliveryRefused RedeliveryPhase = "Refused"
)

// AnnotationDeliveryRequestedBy on a WebhookDelivery names who asked for it when it is a
// redelivery: the username the API server stamped on the request, never a client's claim.
const AnnotationDeliveryRequestedBy = "swap.swaprouter.dev/requested-by"

// LabelRedeliveryRequest on a WebhookDelivery names the RedeliveryRequest that made it, so a
// request answered twice (a crash between creating its deliveries and recording them) never
// sends an event twice.
const LabelRedeliveryRequest = "swap.swaprouter.dev/redelivery-request"

// RedeliveryRequestSpec names what to send again: one event of an order, or every event it
// has emitted. It carries no bytes: the controllers build the delivery from the order's
// recorded history.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a redelivery request's spec is immutable"
// +kubebuilder:validation:XValidation:rule="!has(self.redelivery) || has(self.eventId)",message="redelivery needs eventId"
type RedeliveryRequestSpec struct {
	// Partner is the Partner (same namespace) the order belongs to.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Partner string `json:"partner"`
	// OrderID is the public id of the order.
	// +kubebuilder:validation:Pattern=`^ord_[a-z2-7]{26}$`
	OrderID string `json:"orderId"`
	// EventID is the event to send again; empty sends every event the order emitted.
	// +optional
	// +kubebuilder:validation:Pattern=`^evt_[a-z0-9]{1,64}$`
	EventID string `json:"eventId,omitempty"`
	// Redelivery, when set, is the redelivery number the new delivery takes (its name is the
	// event's with "-r<N>"); it needs EventID. Unset: the next free number.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Redelivery int32 `json:"redelivery,omitempty"`
	// RequestedBy is who asked, as the API server authenticated them: the admission policy
	// swaprouter-redelivery-requester writes it on create, whatever the client sent.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	RequestedBy string `json:"requestedBy,omitempty"`
}

// RedeliveryRequestStatus is the controllers' answer.
type RedeliveryRequestStatus struct {
	// +optional
	Phase RedeliveryPhase `json:"phase,omitempty"`
	// Deliveries are the WebhookDeliveries the request created.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Deliveries []string `json:"deliveries,omitempty"`
	// Reason says why the request was refused.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Reason string `json:"reason,omitempty"`
	// CompletedAt is when the request was answered; it is deleted a while after.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
}

// RedeliveryRequest asks the controllers to send webhook events of an order again. Partners
// (through the frontend) and operators (through kubectl swaprouter) create these; only the
// controllers create WebhookDeliveries.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=rdr,categories=swaprouter
// +kubebuilder:printcolumn:name="Order",type=string,JSONPath=`.spec.orderId`
// +kubebuilder:printcolumn:name="Event",type=string,JSONPath=`.spec.eventId`,priority=1
// +kubebuilder:printcolumn:name="By",type=string,JSONPath=`.spec.requestedBy`,priority=1
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RedeliveryRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RedeliveryRequestSpec   `json:"spec"`
	Status RedeliveryRequestStatus `json:"status,omitempty"`
}

// RedeliveryRequestList contains a list of RedeliveryRequest.
// +kubebuilder:object:root=true
type RedeliveryRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RedeliveryRequest `json:"items"`
}

func init() {
	SchemeBuilder.Register(&RedeliveryRequest{}, &RedeliveryRequestList{})
}
