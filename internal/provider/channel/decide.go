package channel

import (
	"regexp"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// ChannelFacts are the parts of a channel status that decide the normalized status.
type ChannelFacts struct {
	State string
	// Expired: the channel expired (meaningful while WAITING).
	Expired bool
	// Refunded: a refund egress exists; SwapOutput: a swap egress exists.
	Refunded, SwapOutput bool
}

// MapStatus maps a channel state onto the contract's statuses with a stable reason.
// COMPLETED means funds left the protocol: a swap egress is SUCCESS (a partial refund beside
// it is the excess of an exact-output swap), a refund egress alone is REFUNDED. An expired
// channel without a deposit stays PENDING: the order reconciler owns the deposit deadline.
func MapStatus(f ChannelFacts) (swapv1.OrderStatus, string) {
	switch f.State {
	case "WAITING":
		if f.Expired {
			return swapv1.OrderPending, "DepositChannelExpired"
		}
		return swapv1.OrderPending, "AwaitingDeposit"
	case "RECEIVING":
		return swapv1.OrderProcessing, "DepositSeen"
	case "SWAPPING":
		return swapv1.OrderProcessing, "Swapping"
	case "SENDING":
		if f.Refunded {
			return swapv1.OrderProcessing, "Refunding"
		}
		return swapv1.OrderProcessing, "Sending"
	case "SENT":
		return swapv1.OrderProcessing, "Sent"
	case "COMPLETED":
		switch {
		case f.SwapOutput:
			return swapv1.OrderSuccess, "Settled"
		case f.Refunded:
			return swapv1.OrderRefunded, "Refunded"
		}
		return swapv1.OrderUnknown, "CompletedWithoutEgress"
	case "FAILED":
		return swapv1.OrderFailed, "ProviderFailed"
	}
	return swapv1.OrderUnknown, "UnrecognizedProviderStatus"
}

var (
	belowRE = regexp.MustCompile(`below minimum swap amount \((\d+)\)`)
	aboveRE = regexp.MustCompile(`above maximum swap amount \((\d+)\)`)
)

// refine reads the swap service's 400 messages ("expected amount is below minimum swap
// amount (N)").
func refine(msg string) (provider.Kind, string, bool) {
	if m := belowRE.FindStringSubmatch(msg); m != nil {
		return provider.KindAmountTooLow, m[1], true
	}
	if m := aboveRE.FindStringSubmatch(msg); m != nil {
		return provider.KindAmountTooHigh, m[1], true
	}
	if strings.Contains(msg, "not supported") {
		return provider.KindUnsupportedPair, "", true
	}
	return 0, "", false
}

// slippageBps is the tolerance to apply: the request's, else the provider's recommendation.
func slippageBps(requested *int32, recommendedPercent float64) int64 {
	if requested != nil {
		return int64(*requested)
	}
	if recommendedPercent > 0 {
		return int64(recommendedPercent*100 + 0.5)
	}
	return provider.DefaultSlippageBps
}
