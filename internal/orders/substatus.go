package orders

import (
	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Substatus is the substatus to show beside status next (with its reason) after a step that
// may have moved the order from status prev; obs is the provider's answer of this step, nil
// when there was none (a failed poll, an operator's resolution). It is the provider's own
// while the order shows the status the provider reported; DEPOSIT_WINDOW_CLOSED when the
// service expired the order or when its deposit window closed with nothing deposited
// (windowClosed, see WindowClosed), so a partner tells "do not send" from "still waiting" at
// once; none while UNKNOWN; current while the status stays (a provider answer the order did
// not follow, such as a lagging PENDING after PROCESSING, must not relabel it). A status
// reached without the provider's word (an operator's resolution) keeps no detail of the status
// before: it shows only what the status itself says (REFUNDED), else none.
func Substatus(prev, next swapv1.OrderStatus, reason string, current swapv1.OrderSubstatus, obs *provider.Status, windowClosed bool) swapv1.OrderSubstatus {
	switch {
	case next == swapv1.OrderFailed && reason == ReasonDepositExpired,
		next == swapv1.OrderPending && windowClosed && (obs == nil || obs.Substatus == "" || obs.Substatus == swapv1.SubstatusAwaitingDeposit):
		return swapv1.SubstatusDepositWindowClosed
	case next == swapv1.OrderUnknown:
		return ""
	case obs != nil && obs.Status == next:
		return obs.Substatus
	case next == prev:
		return current
	case next == swapv1.OrderRefunded:
		return swapv1.SubstatusRefunded
	}
	return ""
}

// Next is the status and reason st will have once c is applied.
func Next(st *swapv1.SwapOrderStatus, c Change) (swapv1.OrderStatus, string) {
	if c.IsZero() || st.Status.IsTerminal() {
		return st.Status, st.StatusReason
	}
	return c.To, c.Reason
}
