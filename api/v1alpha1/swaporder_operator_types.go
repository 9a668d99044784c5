package v1alpha1

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Operator controls: annotations an operator (or `kubectl swaprouter`) sets on a SwapOrder.
// AnnotationPaused is a state (present = paused); the others are requests the order
// reconciler acts on once and then removes. A request it refuses is removed too, with a
// Warning Event.
const (
	// AnnotationPaused (value: who and why) stops every provider step of the order (address
	// creation, deposit hints, polls) until it is removed, or the order ends (the reconciler
	// then removes it); webhooks and archiving go on. The Paused condition says so.
	AnnotationPaused = "swap.swaprouter.dev/paused"
	// AnnotationPoll (any value) polls the provider at the next reconcile, paused or not.
	AnnotationPoll = "swap.swaprouter.dev/poll"
	// AnnotationResolve (value: an OperatorResolution as JSON, without at) ends a
	// non-terminal order with the given terminal status, recorded in history and
	// status.resolution and sent as the usual order.status_changed webhook.
	AnnotationResolve = "swap.swaprouter.dev/resolve"
	// AnnotationRedeliver (any value) sends every webhook event of the order still in its
	// history again (same webhook-id, a new delivery each), also of a finished order.
	AnnotationRedeliver = "swap.swaprouter.dev/redeliver"
	// AnnotationApprove (any value) lets an order held for review by screening request its
	// deposit address.
	AnnotationApprove = "swap.swaprouter.dev/approve"
	// AnnotationReject (value: why) fails an order held for review: FAILED ScreeningRejected.
	AnnotationReject = "swap.swaprouter.dev/reject"
)

// OperatorAnnotations are the annotations whose change makes the reconciler look at once.
// Only an identity the API server authorizes as an operator may set, change or remove them
// (config/admission lists the same annotations; a manifest test keeps the two in step).
var OperatorAnnotations = []string{AnnotationPaused, AnnotationPoll, AnnotationResolve, AnnotationRedeliver, AnnotationApprove, AnnotationReject}

// RequestedBy is the annotation beside an operator annotation that names who set it: the
// API server writes the requester's username there (config/admission), whatever the
// request says, so the reconciler records an identity the API server authenticated.
func RequestedBy(annotation string) string { return annotation + ".requested-by" }

// ConditionPaused is True while AnnotationPaused holds the order's provider steps.
const ConditionPaused = "Paused"

// OperatorResolution is an operator's statement that ends an order: the terminal status, why
// (e.g. "refund seen on chain, tx 0x…") and who said so. SUCCESS and REFUNDED are the
// operator's word about money the service could not confirm with the provider.
type OperatorResolution struct {
	// +kubebuilder:validation:Enum=SUCCESS;REFUNDED;FAILED
	Status OrderStatus `json:"status"`
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Reason string `json:"reason"`
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	By string `json:"by"`
	// At is when the reconciler applied it.
	// +optional
	At *metav1.Time `json:"at,omitempty"`
}

// Validate checks what a resolution must say whatever the order: a terminal status, a reason
// and who gives it, within the CRD's bounds.
func (r OperatorResolution) Validate() error {
	switch {
	case !r.Status.IsTerminal():
		return fmt.Errorf("resolve: status %q is not terminal (SUCCESS, REFUNDED or FAILED)", r.Status)
	case strings.TrimSpace(r.Reason) == "":
		return errors.New("resolve: a reason is required")
	case strings.TrimSpace(r.By) == "":
		return errors.New("resolve: who resolves (by) is required")
	case len(r.Reason) > 512 || len(r.By) > 256:
		return errors.New("resolve: reason (at most 512 bytes) or by (256) too long")
	}
	return nil
}
