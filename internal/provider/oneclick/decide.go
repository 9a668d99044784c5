package oneclick

import (
	"regexp"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// MapStatus maps a 1Click execution status onto the contract's statuses with a stable reason.
// KNOWN_DEPOSIT_TX and INCOMPLETE_DEPOSIT are PROCESSING: the provider has seen funds, and an
// order never goes back from PROCESSING to PENDING.
func MapStatus(raw string) (swapv1.OrderStatus, string) {
	switch raw {
	case "PENDING_DEPOSIT":
		return swapv1.OrderPending, "AwaitingDeposit"
	case "KNOWN_DEPOSIT_TX":
		return swapv1.OrderProcessing, "DepositSeen"
	case "INCOMPLETE_DEPOSIT":
		return swapv1.OrderProcessing, "IncompleteDeposit"
	case "PROCESSING":
		return swapv1.OrderProcessing, "Swapping"
	case "SUCCESS":
		return swapv1.OrderSuccess, "Settled"
	case "REFUNDED":
		return swapv1.OrderRefunded, "Refunded"
	case "FAILED":
		return swapv1.OrderFailed, "ProviderFailed"
	}
	return swapv1.OrderUnknown, "UnrecognizedProviderStatus"
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
