package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Fee is one fee a provider charges for a route.
type Fee struct {
	// Type of fee, e.g. "protocol", "network", "affiliate".
	// +kubebuilder:validation:MaxLength=32
	Type string `json:"type"`
	// Asset the fee is charged in (CAIP-19).
	// +kubebuilder:validation:MaxLength=256
	Asset string `json:"asset"`
	// Amount in the smallest unit of Asset.
	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	// +kubebuilder:validation:MaxLength=78
	Amount string `json:"amount"`
}

// QuoteLimits are the provider's per-pair bounds on the input amount.
type QuoteLimits struct {
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	// +kubebuilder:validation:MaxLength=78
	MinAmountIn string `json:"minAmountIn,omitempty"`
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	// +kubebuilder:validation:MaxLength=78
	MaxAmountIn string `json:"maxAmountIn,omitempty"`
}

// QuoteCandidate is one provider's answer to a quote, as /v1 shows it in candidates.
type QuoteCandidate struct {
	ProviderID ProviderID `json:"providerId"`
	// QuoteID binds an order to this candidate (POST /v1/order, dry:false): a signed token,
	// stored nowhere.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	QuoteID string `json:"quoteId,omitempty"`
	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	// +kubebuilder:validation:MaxLength=78
	AmountIn string `json:"amountIn"`
	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	// +kubebuilder:validation:MaxLength=78
	AmountOut string `json:"amountOut"`
	// MinAmountOut is set for EXACT_INPUT quotes.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	// +kubebuilder:validation:MaxLength=78
	MinAmountOut string `json:"minAmountOut,omitempty"`
	// MaxAmountIn is set for EXACT_OUTPUT quotes.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]+$`
	// +kubebuilder:validation:MaxLength=78
	MaxAmountIn string `json:"maxAmountIn,omitempty"`
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Fees []Fee `json:"fees,omitempty"`
	// +optional
	EstimatedTimeSeconds int64 `json:"estimatedTimeSeconds,omitempty"`
	// +optional
	ExpiresAt *metav1.Time `json:"expiresAt,omitempty"`
	// +optional
	Limits *QuoteLimits `json:"limits,omitempty"`
}

// OrderFee is a partner fee of one order.
type OrderFee struct {
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Bps int32 `json:"bps"`
	// +kubebuilder:validation:MaxLength=64
	Recipient string `json:"recipient"`
}

// DepositHint is what a partner tells us about the user's deposit (POST /v1/order/{id}/deposit).
type DepositHint struct {
	// TxHash is the source-chain deposit transaction hash.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	TxHash string `json:"txHash"`
	// NearSenderAccount is needed for some NEAR-source deposits.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	NearSenderAccount string `json:"nearSenderAccount,omitempty"`
}

// SwapOrderSpec is the order as the partner requested it. Everything but depositHint is
// immutable once created.
// +kubebuilder:validation:XValidation:rule="has(self.slippageToleranceBps) == has(oldSelf.slippageToleranceBps) && has(self.refundTo) == has(oldSelf.refundTo) && has(self.idempotencyKeyHash) == has(oldSelf.idempotencyKeyHash) && has(self.quote) == has(oldSelf.quote) && has(self.clientReference) == has(oldSelf.clientReference) && has(self.partnerFee) == has(oldSelf.partnerFee) && has(self.display) == has(oldSelf.display)",message="the order spec is immutable except depositHint"
type SwapOrderSpec struct {
	// OrderID is the public order id (ord_ + 26 base32 characters).
	// +kubebuilder:validation:Pattern=`^ord_[a-z2-7]{26}$`
	// +kubebuilder:validation:MaxLength=30
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	OrderID string `json:"orderId"`
	// Partner is the name of the Partner (same namespace) that owns the order.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	Partner string `json:"partner"`
	// OriginAsset is the CAIP-19 id of the asset the user deposits.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	OriginAsset string `json:"originAsset"`
	// DestinationAsset is the CAIP-19 id of the asset the recipient receives.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	DestinationAsset string `json:"destinationAsset"`
	// Amount in the smallest unit: the input for EXACT_INPUT, the output for EXACT_OUTPUT.
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]*$`
	// +kubebuilder:validation:MaxLength=78
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	Amount string `json:"amount"`
	// +kubebuilder:default=EXACT_INPUT
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	SwapType SwapType `json:"swapType,omitempty"`
	// SlippageToleranceBps is the maximum slippage in basis points; unset means provider default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	SlippageToleranceBps *int32 `json:"slippageToleranceBps,omitempty"`
	// Sender is the source-chain address that will send the deposit.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	Sender string `json:"sender"`
	// Recipient is the destination-chain address that receives the settlement.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	Recipient string `json:"recipient"`
	// RefundTo is the source-chain refund address; the sender when unset.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	RefundTo string `json:"refundTo,omitempty"`
	// ProviderID is the provider chosen from the dry quote.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	ProviderID ProviderID `json:"providerId"`
	// Quote is the candidate the partner accepted, when the order came from a quote.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	Quote *QuoteCandidate `json:"quote,omitempty"`
	// IdempotencyKeyHash is the SHA-256 (hex) of the Idempotency-Key and request body.
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9a-f]{64}$`
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	IdempotencyKeyHash string `json:"idempotencyKeyHash,omitempty"`
	// ClientReference is the partner's own id for the order, unique per partner.
	// +optional
	// +kubebuilder:validation:Pattern=`^[!-~]{1,64}$`
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	ClientReference string `json:"clientReference,omitempty"`
	// PartnerFee is the partner fee the order charges, resolved from the request and the
	// Partner's fees when it was created.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	PartnerFee *OrderFee `json:"partnerFee,omitempty"`
	// Display is the swap as a person reads it, written once at creation from the asset
	// catalog for `kubectl get swaporders`.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	Display *OrderDisplay `json:"display,omitempty"`
	// Screening is the screening decision taken before the order was created.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the order spec is immutable except depositHint"
	Screening *ScreeningRecord `json:"screening,omitempty"`
	// DepositHint is set by POST /v1/order/{id}/deposit; the only mutable part of the spec.
	// +optional
	DepositHint *DepositHint `json:"depositHint,omitempty"`
}

// OrderDisplay is an order in asset units and symbols.
type OrderDisplay struct {
	// Swap is the amounts and the pair, each asset with its chain: "0.1 ETH (eth) -> SOL (sol)"
	// for an exact input, "ETH (eth) -> 2 SOL (sol)" for an exact output.
	// +kubebuilder:validation:MaxLength=256
	Swap string `json:"swap"`
}

// StatusTransition is one entry of the order's status history.
type StatusTransition struct {
	// Seq numbers transitions of one order from 1, without gaps.
	// +kubebuilder:validation:Minimum=1
	Seq    int64       `json:"seq"`
	Status OrderStatus `json:"status"`
	// +optional
	PreviousStatus OrderStatus `json:"previousStatus,omitempty"`
	// +optional
	Reason string `json:"reason,omitempty"`
	// Substatus is the order's substatus when the transition happened.
	// +optional
	Substatus OrderSubstatus `json:"substatus,omitempty"`
	// At is when the transition was recorded, to the microsecond (entries recorded before
	// microseconds were kept have whole seconds).
	At PreciseTime `json:"at"`
}

// AnnotationCreatedAt holds when the frontend created the order, RFC 3339 to the microsecond:
// metadata.creationTimestamp has whole seconds, too coarse to list orders newest first
// exactly. Orders without it (created before it existed, or not by the frontend) are dated
// by their creationTimestamp; see SwapOrder.CreatedAt.
const AnnotationCreatedAt = "swap.swaprouter.dev/created-at"

// LabelArchived ("true") marks a terminal SwapOrder whose record the archive has confirmed:
// the caches leave it out (they hold live orders only), and only such an order is ever
// deleted, once its TTL has passed.
const LabelArchived = "swap.swaprouter.dev/archived"

// MaxHistory bounds status.history; older entries are dropped, seq keeps counting.
const MaxHistory = 32

// SwapOrderStatus is what the reconciler learned from the provider. Once recorded, the deposit
// address never changes: a user is only ever shown one address per order.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.depositAddress) || (has(self.depositAddress) && self.depositAddress == oldSelf.depositAddress)",message="the deposit address of an order can never change"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !(oldSelf.status in ['SUCCESS','REFUNDED','FAILED']) || (has(self.status) && self.status == oldSelf.status)",message="a terminal status (SUCCESS, REFUNDED, FAILED) can never change"
type SwapOrderStatus struct {
	// Status is the normalized order status; empty until the provider gave a deposit address.
	// +optional
	Status OrderStatus `json:"status,omitempty"`
	// StatusReason says why the order is in its status (CamelCase, stable, no timestamps).
	// +optional
	StatusReason string `json:"statusReason,omitempty"`
	// Substatus is the normalized detail of the status (what the user should do or expect).
	// +optional
	Substatus OrderSubstatus `json:"substatus,omitempty"`
	// ProviderStatus is the raw status the provider reported last.
	// +optional
	ProviderStatus string `json:"providerStatus,omitempty"`
	// ProviderRef is the provider-side reference of the order (deposit channel id, Relay's
	// request id, or the deposit address for providers keyed by it).
	// +optional
	ProviderRef string `json:"providerRef,omitempty"`
	// +optional
	DepositAddress string `json:"depositAddress,omitempty"`
	// +optional
	DepositMemo string `json:"depositMemo,omitempty"`
	// ProviderSignature is the provider's signature over the quote behind the deposit address,
	// when the provider signs its quotes; receipts carry it.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ProviderSignature string `json:"providerSignature,omitempty"`
	// DepositDeadline is when the provider stops accepting the deposit.
	// +optional
	DepositDeadline *metav1.Time `json:"depositDeadline,omitempty"`
	// Quote is the provider's binding quote at deposit-address creation.
	// +optional
	Quote *QuoteCandidate `json:"quote,omitempty"`
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	InTxHashes []string `json:"inTxHashes,omitempty"`
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	OutTxHashes []string `json:"outTxHashes,omitempty"`
	// Display is the swap as a person reads it now: spec.display's, with the amount the
	// recipient received once the provider reported it (`kubectl get swaporders`, SWAP).
	// +optional
	Display *OrderDisplay `json:"display,omitempty"`
	// AmountIn is the settled input amount.
	// +optional
	AmountIn string `json:"amountIn,omitempty"`
	// AmountOut is the settled output amount.
	// +optional
	AmountOut string `json:"amountOut,omitempty"`
	// DepositedAmount is what arrived at the deposit address so far, as the provider saw it.
	// +optional
	DepositedAmount string `json:"depositedAmount,omitempty"`
	// +optional
	RefundedAmount string `json:"refundedAmount,omitempty"`
	// ForwardedTxHash is the deposit hint already passed to the provider (forwarded once).
	// +optional
	ForwardedTxHash string `json:"forwardedTxHash,omitempty"`
	// ProviderErrors counts consecutive per-order failures (the provider does not know the
	// order); reset on an answer. Written only when it crosses a threshold, never per call.
	// +optional
	ProviderErrors int32 `json:"providerErrors,omitempty"`
	// FailingSince is when the provider stopped giving this order a usable answer (it does
	// not know the order, or reports a status that cannot be mapped); cleared by an answer.
	// Polls back off with its age, and stop (Stalled, reason WatchStopped) after a bound.
	// Provider-wide outages never set it: they are the RoutingProvider's condition.
	// +optional
	FailingSince *metav1.Time `json:"failingSince,omitempty"`
	// EmitRetryAt, when set, is when creating the webhook deliveries of unnotified
	// transitions is tried again after a failure; polling, expiry and retention go on meanwhile.
	// +optional
	EmitRetryAt *metav1.Time `json:"emitRetryAt,omitempty"`
	// LastSeq is the seq of the newest history entry (history is bounded, seq is not).
	// +optional
	LastSeq int64 `json:"lastSeq,omitempty"`
	// History lists the latest status transitions, oldest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	History []StatusTransition `json:"history,omitempty"`
	// NotifiedSeq is the highest seq whose webhook delivery is recorded as created (or not
	// wanted). It may trail the deliveries that exist until the order's next status write:
	// the delivery is created right after the write that records its transition.
	// +optional
	NotifiedSeq int64 `json:"notifiedSeq,omitempty"`
	// NextPollAt is when the reconciler asks the provider again.
	// +optional
	NextPollAt *metav1.Time `json:"nextPollAt,omitempty"`
	// Resolution is the operator's statement that ended the order (AnnotationResolve).
	// +optional
	Resolution *OperatorResolution `json:"resolution,omitempty"`
	// Review is how the review of an order held by screening ended.
	// +optional
	Review *ScreeningReview `json:"review,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SwapOrder is one deposit-address swap order of a partner.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=so;swo,categories=swaprouter
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.status`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.providerId`
// +kubebuilder:printcolumn:name="Swap",type=string,JSONPath=`.status.display.swap`
// +kubebuilder:printcolumn:name="From",type=string,JSONPath=`.spec.originAsset`,priority=1
// +kubebuilder:printcolumn:name="To",type=string,JSONPath=`.spec.destinationAsset`,priority=1
// +kubebuilder:printcolumn:name="Amount",type=string,JSONPath=`.spec.amount`,priority=1
// +kubebuilder:printcolumn:name="Substatus",type=string,JSONPath=`.status.substatus`,priority=1
// +kubebuilder:printcolumn:name="Partner",type=string,JSONPath=`.spec.partner`,priority=1
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.statusReason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type SwapOrder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SwapOrderSpec   `json:"spec"`
	Status SwapOrderStatus `json:"status,omitempty"`
}

// SwapOrderList contains a list of SwapOrder.
// +kubebuilder:object:root=true
type SwapOrderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SwapOrder `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SwapOrder{}, &SwapOrderList{})
}
