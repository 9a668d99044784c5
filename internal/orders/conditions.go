package orders

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Issue is a problem the latest reconcile met; the zero Issue means none.
type Issue struct {
	// Reason is a stable CamelCase reason.
	Reason string
	// Message is stable too: no timestamps, counters or request ids, so repeating the same
	// problem writes nothing.
	Message string
	// Stalled means the order cannot progress without the provider coming back or an
	// operator acting; otherwise the issue is a transient retry.
	Stalled bool
}

// SetConditions sets Ready, Reconciling and Stalled on st for generation gen.
//
//   - Ready is True while the order is healthy for the partner: a deposit address is issued
//     and the order is PENDING or PROCESSING, or it ended in SUCCESS. It is False before the
//     address exists and for REFUNDED, FAILED and UNKNOWN; the reason names the status.
//   - Reconciling is True while the order is not terminal and the reconciler is making
//     progress (creating the address, tracking, retrying a transient provider error).
//   - Stalled is True while the provider is missing or keeps failing.
//
// Terminal orders have Reconciling and Stalled False.
func SetConditions(st *swapv1.SwapOrderStatus, gen int64, issue Issue, now metav1.Time) {
	set := func(typ string, ok bool, reason, msg string) {
		s := metav1.ConditionFalse
		if ok {
			s = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: typ, Status: s, Reason: reason, Message: msg,
			ObservedGeneration: gen, LastTransitionTime: now,
		})
	}

	ready := st.Status == swapv1.OrderPending || st.Status == swapv1.OrderProcessing || st.Status == swapv1.OrderSuccess
	set(swapv1.ConditionReady, ready, CamelStatus(st.Status), statusMessage(st))

	terminal := st.Status.IsTerminal()
	switch {
	case terminal:
		set(swapv1.ConditionReconciling, false, "Terminal", statusMessage(st))
		set(swapv1.ConditionStalled, false, "Terminal", statusMessage(st))
	case issue.Stalled:
		set(swapv1.ConditionReconciling, false, issue.Reason, issue.Message)
		set(swapv1.ConditionStalled, true, issue.Reason, issue.Message)
	case issue.Reason != "":
		set(swapv1.ConditionReconciling, true, issue.Reason, issue.Message)
		set(swapv1.ConditionStalled, false, "Progressing", "the provider is being retried")
	default:
		reason, msg := "Tracking", "polling the provider until the order is terminal"
		if st.Status == "" {
			reason, msg = "CreatingDeposit", "asking the provider for a deposit address"
		}
		set(swapv1.ConditionReconciling, true, reason, msg)
		set(swapv1.ConditionStalled, false, "Progressing", msg)
	}
}

// CamelStatus names s in CamelCase (Pending, Success, ...), for condition and Event reasons;
// a new order without status is "DepositAddressPending".
func CamelStatus(s swapv1.OrderStatus) string {
	switch s {
	case "":
		return "DepositAddressPending"
	case swapv1.OrderPending:
		return "Pending"
	case swapv1.OrderProcessing:
		return "Processing"
	case swapv1.OrderSuccess:
		return "Success"
	case swapv1.OrderRefunded:
		return "Refunded"
	case swapv1.OrderFailed:
		return "Failed"
	}
	return "Unknown"
}

func statusMessage(st *swapv1.SwapOrderStatus) string {
	if st.Status == "" {
		return "no deposit address yet"
	}
	if st.StatusReason == "" {
		return fmt.Sprintf("order is %s", st.Status)
	}
	return fmt.Sprintf("order is %s: %s", st.Status, st.StatusReason)
}

// ConditionWebhooksEmitted is False while creating the webhook deliveries of an order's
// transitions fails (quota, RBAC, admission); absent otherwise. Tracking goes on meanwhile.
const ConditionWebhooksEmitted = "WebhooksEmitted"

// ReasonDeliveryCreateFailed is the reason of a False ConditionWebhooksEmitted.
const ReasonDeliveryCreateFailed = "DeliveryCreateFailed"

// SetEmitFailure records that creating a delivery failed for apiReason (the API server's
// reason, e.g. Forbidden); the message is stable, so repeating the failure writes nothing.
func SetEmitFailure(st *swapv1.SwapOrderStatus, gen int64, apiReason string, now metav1.Time) {
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: ConditionWebhooksEmitted, Status: metav1.ConditionFalse, Reason: ReasonDeliveryCreateFailed,
		Message:            fmt.Sprintf("creating the webhook delivery failed (%s); retrying with backoff, tracking goes on", apiReason),
		ObservedGeneration: gen, LastTransitionTime: now,
	})
}

// ClearEmitFailure removes the condition once deliveries are created again.
func ClearEmitFailure(st *swapv1.SwapOrderStatus) {
	meta.RemoveStatusCondition(&st.Conditions, ConditionWebhooksEmitted)
}

// ProviderIssue is the order's condition while its provider as a whole fails (credentials
// says it rejects ours). The message names neither the kind nor a count, so an outage costs
// one status write when it starts and one when it ends, however many calls fail.
func ProviderIssue(id swapv1.ProviderID, credentials bool) Issue {
	if credentials {
		return Issue{Reason: ReasonProviderCredentialsRejected,
			Message: fmt.Sprintf("provider %s rejects the service's credentials; the order keeps its status and is retried", id)}
	}
	return Issue{Reason: ReasonProviderUnavailable,
		Message: fmt.Sprintf("provider %s is not answering (timeouts, errors or throttling); the order keeps its status and is retried", id)}
}
