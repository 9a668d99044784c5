package v1alpha1

// ProviderID names a routing provider: whatever a RoutingProvider's spec.providerId says, a
// letter followed by up to 31 letters, digits, '_' or '-' (ProviderIDPattern). The set is
// open: an installation has the ids of its RoutingProviders, and nothing in the service
// knows a list of them.
// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9_-]{0,31}$`
// +kubebuilder:validation:MaxLength=32
type ProviderID string

// ProviderIDPattern is the pattern every provider id matches (the CRDs' and the OpenAPI
// document's).
const ProviderIDPattern = `^[A-Za-z][A-Za-z0-9_-]{0,31}$`

// The providers of the contract's examples: the ids the dev system, the samples and the tests
// give their RoutingProviders. The service itself depends on neither.
const (
	ProviderRouteA ProviderID = "route_A"
	ProviderRouteB ProviderID = "route_B"
)

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

// OrderStatuses are the six statuses in the contract's order. With the Enum marker above,
// this is the Go declaration; the OpenAPI source's OrderStatus schema, the CRD and the
// README are checked against it (statuses_test.go).
var OrderStatuses = []OrderStatus{OrderPending, OrderProcessing, OrderSuccess, OrderRefunded, OrderFailed, OrderUnknown}

// IsTerminal reports whether s is absorbing: SUCCESS, REFUNDED or FAILED.
func (s OrderStatus) IsTerminal() bool {
	return s == OrderSuccess || s == OrderRefunded || s == OrderFailed
}

// OrderSubstatus is a normalized detail of an order's status that tells a user what to do
// or what is happening; the six statuses stay the contract's.
// +kubebuilder:validation:Enum=AWAITING_DEPOSIT;DEPOSIT_SEEN;INCOMPLETE_DEPOSIT;SWAPPING;DELAYED;SENDING;SETTLED;PARTIAL_REFUND;PARTIAL_DEPOSIT;REFUNDING;REFUNDED;DEPOSIT_WINDOW_CLOSED;DEPOSIT_REJECTED;PROVIDER_FAILED;HELD_FOR_REVIEW
// +kubebuilder:validation:MaxLength=24
type OrderSubstatus string

const (
	// SubstatusAwaitingDeposit: nothing arrived yet; the user should send the deposit.
	SubstatusAwaitingDeposit OrderSubstatus = "AWAITING_DEPOSIT"
	// SubstatusDepositSeen: the deposit transaction is known but not yet confirmed.
	SubstatusDepositSeen OrderSubstatus = "DEPOSIT_SEEN"
	// SubstatusIncompleteDeposit: less than required arrived; the user can top up, or wait
	// for the refund (depositedAmount says how much arrived).
	SubstatusIncompleteDeposit OrderSubstatus = "INCOMPLETE_DEPOSIT"
	// SubstatusSwapping: the deposit is being swapped.
	SubstatusSwapping OrderSubstatus = "SWAPPING"
	// SubstatusDelayed: the provider reports the fill delayed; it is still processing and
	// nothing is asked of the user (Relay's delayed).
	SubstatusDelayed OrderSubstatus = "DELAYED"
	// SubstatusSending: the output (or a refund) is on its way.
	SubstatusSending OrderSubstatus = "SENDING"
	// SubstatusSettled: the recipient received the whole output.
	SubstatusSettled OrderSubstatus = "SETTLED"
	// SubstatusPartialRefund: SUCCESS for part of the deposit, the rest refunded
	// (refundedAmount).
	SubstatusPartialRefund OrderSubstatus = "PARTIAL_REFUND"
	// SubstatusPartialDeposit: SUCCESS for a deposit short of the quoted amount, all of it
	// swapped, so the output is below the quote's (depositedAmount, amountOut).
	SubstatusPartialDeposit OrderSubstatus = "PARTIAL_DEPOSIT"
	// SubstatusRefunding: the provider decided to refund and is sending it back.
	SubstatusRefunding OrderSubstatus = "REFUNDING"
	// SubstatusRefunded: the deposit went back to the refund address.
	SubstatusRefunded OrderSubstatus = "REFUNDED"
	// SubstatusDepositWindowClosed: the provider stopped accepting deposits to the address.
	SubstatusDepositWindowClosed OrderSubstatus = "DEPOSIT_WINDOW_CLOSED"
	// SubstatusDepositRejected: the provider refused the deposit itself (for example below
	// its minimum) and did not send it back.
	SubstatusDepositRejected OrderSubstatus = "DEPOSIT_REJECTED"
	// SubstatusProviderFailed: the provider reports a failure without a refund.
	SubstatusProviderFailed OrderSubstatus = "PROVIDER_FAILED"
	// SubstatusHeldForReview: screening held the new order; no deposit address until an
	// operator approves it.
	SubstatusHeldForReview OrderSubstatus = "HELD_FOR_REVIEW"
)

// SubstatusStatuses are the substatuses, each with the statuses it may stand beside. With
// the Enum marker above, this is the Go declaration; the OpenAPI source's Substatus schema,
// the CRD and the README's substatus table are checked against it (statuses_test.go).
var SubstatusStatuses = map[OrderSubstatus][]OrderStatus{
	SubstatusAwaitingDeposit:     {OrderPending},
	SubstatusHeldForReview:       {OrderPending},
	SubstatusDepositWindowClosed: {OrderPending, OrderFailed},
	SubstatusDepositSeen:         {OrderPending, OrderProcessing},
	SubstatusIncompleteDeposit:   {OrderProcessing},
	SubstatusSwapping:            {OrderProcessing},
	SubstatusDelayed:             {OrderProcessing},
	SubstatusSending:             {OrderProcessing},
	SubstatusRefunding:           {OrderProcessing},
	SubstatusDepositRejected:     {OrderProcessing, OrderFailed},
	SubstatusSettled:             {OrderSuccess},
	SubstatusPartialRefund:       {OrderSuccess},
	SubstatusPartialDeposit:      {OrderSuccess},
	SubstatusRefunded:            {OrderRefunded},
	SubstatusProviderFailed:      {OrderFailed},
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
	// ConditionAvailable is the RoutingProvider's judgement from every call made to it (its
	// circuit breaker).
	ConditionAvailable = "Available"
)
