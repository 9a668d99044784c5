package oneclick

import (
	"regexp"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// statusPendingDeposit is 1Click's status of a deposit address nobody has paid into yet.
const statusPendingDeposit = "PENDING_DEPOSIT"

// MapStatus maps a 1Click execution status onto the contract's statuses. KNOWN_DEPOSIT_TX and
// INCOMPLETE_DEPOSIT are PROCESSING (the provider has seen funds, and an order never goes back
// from PROCESSING to PENDING); the substatus INCOMPLETE_DEPOSIT tells the user to top up or
// wait for the refund. SUCCESS with a refunded amount (an excess or an unfilled share sent
// back) is PARTIAL_REFUND, so the refund is shown beside the success, never hidden in it.
func MapStatus(raw string, refunded bool) provider.Outcome {
	switch raw {
	case statusPendingDeposit:
		return provider.Outcome{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit, Reason: "AwaitingDeposit"}
	case "KNOWN_DEPOSIT_TX":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDepositSeen, Reason: "DepositSeen"}
	case "INCOMPLETE_DEPOSIT":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusIncompleteDeposit, Reason: "IncompleteDeposit"}
	case "PROCESSING":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSwapping, Reason: "Swapping"}
	case "SUCCESS":
		if refunded {
			return provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialRefund, Reason: "PartiallyRefunded"}
		}
		return provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled, Reason: "Settled"}
	case "REFUNDED":
		return provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}
	case "FAILED":
		return provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "ProviderFailed"}
	}
	return provider.Outcome{Status: swapv1.OrderUnknown, Reason: "UnrecognizedProviderStatus"}
}

// isReason accepts a provider's refundReason as our Reason only when it is already a stable
// CamelCase word; free text would make status messages churn.
func isReason(s string) bool { return camelRE.MatchString(s) }

var (
	camelRE   = regexp.MustCompile(`^[A-Z][a-zA-Z]{2,63}$`)
	tooLowRE  = regexp.MustCompile(`(?i)too low.*?(\d+)`)
	tooHighRE = regexp.MustCompile(`(?i)too high.*?(\d+)`)
)

// refine reads 1Click's 400 messages ("Amount is too low for bridge, try at least N").
func refine(msg string) (provider.Kind, string, bool) {
	if m := tooLowRE.FindStringSubmatch(msg); m != nil {
		return provider.KindAmountTooLow, m[1], true
	}
	if m := tooHighRE.FindStringSubmatch(msg); m != nil {
		return provider.KindAmountTooHigh, m[1], true
	}
	lower := strings.ToLower(msg)
	if strings.Contains(lower, "no quotes") || strings.Contains(lower, "not supported") {
		return provider.KindUnsupportedPair, "", true
	}
	return 0, "", false
}
