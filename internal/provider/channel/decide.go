package channel

import (
	"regexp"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// stateWaiting is Chainflip's state of a deposit channel nobody has paid into yet.
const stateWaiting = "WAITING"

// Facts are the parts of a v2 swap status that decide the normalized status.
type Facts struct {
	State string
	// Expired: the deposit channel expired.
	Expired bool
	// DepositFailed: the deposit itself was rejected or ignored (deposit.failure).
	DepositFailed bool
	// DepositShort: less than the channel's expected amount was deposited. Chainflip swaps
	// whatever arrives at or above its minimum, so the output is below the quote's in
	// proportion.
	DepositShort bool
	// SwapOut, Refund, Fallback: an egress of that kind exists. *Sent: it was witnessed on its
	// chain (COMPLETED implies every egress was); *Failed: its broadcast was aborted or ignored.
	SwapOut, Refund, Fallback                   bool
	RefundSent, FallbackSent                    bool
	SwapOutFailed, RefundFailed, FallbackFailed bool
}

// MapStatus maps Chainflip's swap states onto the contract's statuses. A refund is never a
// success: COMPLETED with a refund egress alone is REFUNDED, and with both egresses (a partial
// fill: part swapped, the rest refunded) SUCCESS with PARTIAL_REFUND so the refunded amount is
// shown beside it. A swap of a deposit short of the channel's amount is SUCCESS with
// PARTIAL_DEPOSIT, never SETTLED: the output is below what was quoted. FAILED is REFUNDED when the funds were sent back (refund or fallback egress
// witnessed), REFUNDING while that egress is still on its way, and a deposit Chainflip ignored
// without a refund (below its minimum) is FAILED only once the channel expired: until then a
// new deposit can still be swapped. An expired channel without a deposit stays PENDING: the
// order reconciler owns the deposit deadline.
func MapStatus(f Facts) provider.Outcome {
	switch f.State {
	case stateWaiting:
		if f.Expired {
			return provider.Outcome{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusDepositWindowClosed, Reason: "DepositChannelExpired"}
		}
		return provider.Outcome{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit, Reason: "AwaitingDeposit"}
	case "RECEIVING":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDepositSeen, Reason: "DepositSeen"}
	case "SWAPPING":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSwapping, Reason: "Swapping"}
	case "SENDING", "SENT":
		if f.Refund && !f.SwapOut {
			return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusRefunding, Reason: "Refunding"}
		}
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSending, Reason: "Sending"}
	case "COMPLETED":
		switch {
		case f.SwapOut && f.Refund:
			return provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialRefund, Reason: "PartiallyRefunded"}
		case f.SwapOut && f.DepositShort:
			return provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialDeposit, Reason: "PartialDeposit"}
		case f.SwapOut:
			return provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled, Reason: "Settled"}
		case f.Refund:
			return provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}
		}
		return provider.Outcome{Status: swapv1.OrderUnknown, Reason: "CompletedWithoutEgress"}
	case "FAILED":
		// A failed deposit or swap whose funds are on their way back is not over yet: it
		// ends REFUNDED once the refund is witnessed, never FAILED.
		switch {
		case f.Refund && !f.RefundFailed && f.RefundSent:
			if f.DepositFailed {
				return provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "DepositRejected"}
			}
			return provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}
		case f.Fallback && !f.FallbackFailed && f.FallbackSent:
			return provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "FallbackRefund"}
		case (f.Refund && !f.RefundFailed) || (f.Fallback && !f.FallbackFailed):
			return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusRefunding, Reason: "Refunding"}
		case f.DepositFailed && !f.Expired:
			// The channel still accepts deposits and the status follows the latest one: a
			// deposit that meets the minimum would still be swapped, so this is not over.
			return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDepositRejected, Reason: "DepositIgnored"}
		case f.DepositFailed:
			return provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusDepositRejected, Reason: "DepositRejected"}
		case f.SwapOutFailed || f.RefundFailed || f.FallbackFailed:
			return provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "EgressFailed"}
		}
		return provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "ProviderFailed"}
	}
	return provider.Outcome{Status: swapv1.OrderUnknown, Reason: "UnrecognizedProviderStatus"}
}

var (
	belowRE      = regexp.MustCompile(`below minimum swap amount \((\d+)\)`)
	ingressFeeRE = regexp.MustCompile(`lower than estimated ingress fee \((\d+)\)`)
	aboveRE      = regexp.MustCompile(`above maximum swap amount \((\d+)\)`)
)

// refine reads the backend's 400 messages: "expected amount is below minimum swap amount (N)",
// "amount is lower than estimated ingress fee (N)", "expected amount is above maximum swap
// amount (N)", "insufficient liquidity for the requested amount", "Requested assets cannot be
// swapped", and the output-side minimums ("... lower than the egress fee (N)", "... lower than
// minimum egress amount (N)") whose N is in the destination asset, so no input limit is named.
func refine(msg string) (provider.Kind, string, bool) {
	for _, re := range []*regexp.Regexp{belowRE, ingressFeeRE} {
		if m := re.FindStringSubmatch(msg); m != nil {
			return provider.KindAmountTooLow, m[1], true
		}
	}
	if m := aboveRE.FindStringSubmatch(msg); m != nil {
		return provider.KindAmountTooHigh, m[1], true
	}
	switch {
	case strings.Contains(msg, "insufficient liquidity"):
		return provider.KindAmountTooHigh, "", true
	case strings.Contains(msg, "cannot be swapped"):
		return provider.KindUnsupportedPair, "", true
	case strings.Contains(msg, "lower than the egress fee"), strings.Contains(msg, "lower than minimum egress amount"),
		strings.Contains(msg, "lower than ingress fee"):
		return provider.KindAmountTooLow, "", true
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

// pickQuote chooses among the backend's quotes: the REGULAR one when offered (it settles in one
// swap), else the first DCA one; ok is false for an empty answer.
func pickQuote(qs []quote) (quote, bool) {
	for _, q := range qs {
		if q.Type == "REGULAR" {
			return q, true
		}
	}
	if len(qs) == 0 {
		return quote{}, false
	}
	return qs[0], true
}
