package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ScreeningAction is what a sanctions match does to an order.
// +kubebuilder:validation:Enum=block;review
type ScreeningAction string

const (
	// ScreeningBlock refuses the request: 403 `address not allowed`, no order.
	ScreeningBlock ScreeningAction = "block"
	// ScreeningHoldForReview creates the order held for review (HELD_FOR_REVIEW, no deposit address)
	// until an operator approves or rejects it.
	ScreeningHoldForReview ScreeningAction = "review"
)

// ScreeningFailureMode is what happens when a configured screening source cannot answer.
// +kubebuilder:validation:Enum=fail-closed;fail-open
type ScreeningFailureMode string

const (
	// ScreeningFailClosed holds the order for review.
	ScreeningFailClosed ScreeningFailureMode = "fail-closed"
	// ScreeningFailOpen lets the order through unscreened by that source (counted, alerted).
	ScreeningFailOpen ScreeningFailureMode = "fail-open"
)

// PartnerScreening is a partner's screening policy.
type PartnerScreening struct {
	// OnMatch is what a listed sender, recipient or refundTo does.
	// +kubebuilder:default=block
	// +optional
	OnMatch ScreeningAction `json:"onMatch,omitempty"`
	// OnUnavailable is what a screening source that cannot answer does.
	// +kubebuilder:default=fail-closed
	// +optional
	OnUnavailable ScreeningFailureMode `json:"onUnavailable,omitempty"`
}

// ScreeningOutcome is how screening let an order be created.
// +kubebuilder:validation:Enum=Clear;Held;FailedOpen
type ScreeningOutcome string

const (
	// ScreeningClear: every source answered and nothing matched.
	ScreeningClear ScreeningOutcome = "Clear"
	// ScreeningHeld: a match under the review policy, or a source down under fail-closed;
	// no deposit address until an operator approves.
	ScreeningHeld ScreeningOutcome = "Held"
	// ScreeningFailedOpen: a source could not answer and the partner's policy let it through.
	ScreeningFailedOpen ScreeningOutcome = "FailedOpen"
)

// ScreeningRecord is the screening decision the frontend took when it created the order:
// the sources consulted, the version of each, and what matched.
type ScreeningRecord struct {
	Outcome ScreeningOutcome `json:"outcome"`
	At      metav1.Time      `json:"at"`
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	Sources []ScreeningSource `json:"sources"`
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	Matches []ScreeningMatch `json:"matches,omitempty"`
}

// ScreeningSource is one source consulted and the version of it that answered.
type ScreeningSource struct {
	// Name is ofac-sdn (the sanctions list ConfigMap) or chainalysis (the HTTP service).
	// +kubebuilder:validation:MaxLength=32
	Name string `json:"name"`
	// Version identifies what answered: the list's date and digest.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Version string `json:"version,omitempty"`
	// Unavailable says why the source could not answer.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Unavailable string `json:"unavailable,omitempty"`
}

// ScreeningMatch is an address of the order a source lists.
type ScreeningMatch struct {
	// Field is sender, recipient or refundTo.
	// +kubebuilder:validation:Enum=sender;recipient;refundTo
	Field string `json:"field"`
	// +kubebuilder:validation:MaxLength=16
	Chain string `json:"chain"`
	// +kubebuilder:validation:MaxLength=256
	Address string `json:"address"`
	// +kubebuilder:validation:MaxLength=32
	Source string `json:"source"`
	// Entry is the listing that matched (for the SDN list: its ent_num, name and program).
	// +kubebuilder:validation:MaxLength=512
	Entry string `json:"entry"`
}

// ReviewDecision is how a held order's review ended.
// +kubebuilder:validation:Enum=Approved;Rejected;Expired
type ReviewDecision string

const (
	ReviewApproved ReviewDecision = "Approved"
	ReviewRejected ReviewDecision = "Rejected"
	ReviewExpired  ReviewDecision = "Expired"
)

// ScreeningReview is the end of a held order's review.
type ScreeningReview struct {
	Decision ReviewDecision `json:"decision"`
	// By is the operator who decided, as the API server authenticated them; empty when the
	// review expired.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	By string `json:"by,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Reason string      `json:"reason,omitempty"`
	At     metav1.Time `json:"at"`
}

// ConditionSanctionsList is a Partner's condition for the sanctions list its new orders are
// screened with (the controllers write it from the list's ConfigMap): True when the list is
// loaded; False when there is no usable list, the reason naming its state (Missing, Empty,
// Broken, Incomplete) and the message what that does to the partner's orders under its
// spec.screening.onUnavailable.
const ConditionSanctionsList = "SanctionsList"
