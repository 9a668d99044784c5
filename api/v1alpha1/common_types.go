package v1alpha1

// ProviderID names a routing provider.
// +kubebuilder:validation:Enum=route_A;route_B
// +kubebuilder:validation:MaxLength=16
type ProviderID string

const (
	ProviderRouteA ProviderID = "route_A"
	ProviderRouteB ProviderID = "route_B"
)

// ProviderIDs lists every provider id the API accepts, in a stable order.
var ProviderIDs = []ProviderID{ProviderRouteA, ProviderRouteB}

// OrderStatus is the normalized status of an order (contract section 3).
// +kubebuilder:validation:Enum=PENDING;PROCESSING;SUCCESS;REFUNDED;FAILED;UNKNOWN
// +kubebuilder:validation:MaxLength=10
type OrderStatus string

const (
	OrderPending    OrderStatus = "PENDING"
	OrderProcessing OrderStatus = "PROCESSING"
	OrderSuccess    OrderStatus = "SUCCESS"
	OrderRefunded   OrderStatus = "REFUNDED"
	OrderFailed     OrderStatus = "FAILED"
	OrderUnknown    OrderStatus = "UNKNOWN"
)

// IsTerminal reports whether s is absorbing: SUCCESS, REFUNDED or FAILED.
func (s OrderStatus) IsTerminal() bool {
	return s == OrderSuccess || s == OrderRefunded || s == OrderFailed
}

// SwapType says which side of the swap is fixed.
// +kubebuilder:validation:Enum=EXACT_INPUT;EXACT_OUTPUT
// +kubebuilder:validation:MaxLength=12
type SwapType string

const (
	ExactInput  SwapType = "EXACT_INPUT"
	ExactOutput SwapType = "EXACT_OUTPUT"
)

// SecretKeyRef points at one key of a Secret in the object's namespace.
type SecretKeyRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key inside the Secret's data.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// Condition types shared by the kinds of this group.
const (
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
)
