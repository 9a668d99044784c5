package orders

import (
	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Substatus is the substatus to show beside status (with its reason) after a poll; obs is
// nil when the poll failed. It is the provider's own while the order shows the status the
// provider reported; DEPOSIT_WINDOW_CLOSED when the service expired the order or when its
// deposit window closed with nothing deposited (windowClosed, see WindowClosed), so a partner
// tells "do not send" from "still waiting" at once; none while UNKNOWN; otherwise current (a
// provider answer the order did not follow, such as a lagging PENDING after PROCESSING, must
// not relabel it).
func Substatus(status swapv1.OrderStatus, reason string, current swapv1.OrderSubstatus, obs *provider.Status, windowClosed bool) swapv1.OrderSubstatus {
	switch {
	case status == swapv1.OrderFailed && reason == ReasonDepositExpired,
		status == swapv1.OrderPending && windowClosed && (obs == nil || obs.Substatus == "" || obs.Substatus == swapv1.SubstatusAwaitingDeposit):
		return swapv1.SubstatusDepositWindowClosed
	case status == swapv1.OrderUnknown:
		return ""
	case obs != nil && obs.Status == status:
		return obs.Substatus
	}
	return current
}

// Next is the status and reason st will have once c is applied.
func Next(st *swapv1.SwapOrderStatus, c Change) (swapv1.OrderStatus, string) {
	if c.IsZero() || st.Status.IsTerminal() {
		return st.Status, st.StatusReason
	}
	return c.To, c.Reason
}
