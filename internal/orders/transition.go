package orders

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Stable reasons the reconciler itself decides (provider-derived reasons come from the
// adapters' normalized Status.Reason).
const (
	ReasonDepositAddressIssued = "DepositAddressIssued"
	// ReasonAwaitingDeposit is what providers report for an order whose address awaits
	// the user's deposit.
	ReasonAwaitingDeposit        = "AwaitingDeposit"
	ReasonDepositExpired         = "DepositExpired"
	ReasonAmountTooLow           = "AmountTooLow"
	ReasonAmountTooHigh          = "AmountTooHigh"
	ReasonUnsupportedPair        = "UnsupportedPair"
	ReasonProviderRefused        = "ProviderRefused"
	ReasonProviderDisabled       = "ProviderDisabled"
	ReasonOrderNotFound          = "OrderNotFoundAtProvider"
	ReasonProviderUnreachable    = "ProviderUnreachable"
	ReasonProviderNotConfigured  = "ProviderNotConfigured"
	ReasonProviderStatusUnmapped = "ProviderStatusUnmapped"
	// ReasonQuoteChanged: the provider's binding answer was worse than the quote the order was
	// bound to (quoteId), so its deposit address was never shown.
	ReasonQuoteChanged = "QuoteChanged"
	// ReasonNoDepositAddress: the provider gave no deposit address within the create bound;
	// no address was ever shown for the order.
	ReasonNoDepositAddress = "NoDepositAddress"
	// ReasonProviderCredentialsRejected and ReasonProviderUnavailable are the order's
	// condition while its provider as a whole fails; the status stays as it was.
	ReasonProviderCredentialsRejected = "ProviderCredentialsRejected"
	ReasonProviderUnavailable         = "ProviderUnavailable"
	// ReasonWatchStopped: the provider gave no usable answer for the order for the whole
	// watch bound; polling stopped until an operator acts.
	ReasonWatchStopped = "WatchStopped"
)

// Change is a decided status transition; the zero Change means "stay".
type Change struct {
	To     swapv1.OrderStatus
	Reason string
}

// IsZero reports whether c moves nothing.
func (c Change) IsZero() bool { return c.To == "" }

// CreateFailure maps a non-retryable CreateDeposit error onto the FAILED reason recorded for
// the order. Retryable errors never get here.
func CreateFailure(err *provider.Error) Change {
	reason := ReasonProviderRefused
	switch err.Kind {
	case provider.KindAmountTooLow:
		reason = ReasonAmountTooLow
	case provider.KindAmountTooHigh:
		reason = ReasonAmountTooHigh
	case provider.KindUnsupportedPair:
		reason = ReasonUnsupportedPair
	}
	if err.Reason != "" {
		reason = err.Reason
	}
	return Change{To: swapv1.OrderFailed, Reason: reason}
}

// Observe decides what a successful status poll means for an order in status cur.
// expired says the deposit deadline plus grace has passed. Terminal orders never move;
// provider answers that would move an order backwards (PROCESSING → PENDING) are ignored
// because the provider's own view can lag its earlier answer.
func Observe(cur swapv1.OrderStatus, obs provider.Status, expired bool) Change {
	if cur.IsTerminal() {
		return Change{}
	}
	to := obs.Status
	reason := obs.Reason
	if !slices.Contains(swapv1.OrderStatuses, to) {
		to, reason = swapv1.OrderUnknown, ReasonProviderStatusUnmapped
	}
	if to == swapv1.OrderUnknown && reason == "" {
		reason = ReasonProviderStatusUnmapped
	}
	if to == swapv1.OrderPending && expired && (cur == swapv1.OrderPending || cur == swapv1.OrderUnknown) {
		return Change{To: swapv1.OrderFailed, Reason: ReasonDepositExpired}
	}
	if to == cur {
		return Change{}
	}
	if cur == swapv1.OrderProcessing && to == swapv1.OrderPending {
		return Change{}
	}
	if reason == "" {
		reason = defaultReason(to)
	}
	return Change{To: to, Reason: reason}
}

// ObserveError decides what a failed status poll means. Provider-wide failures (timeouts,
// 5xx, throttling, rejected credentials, an open breaker) say nothing about the order: it keeps
// its status. A provider that answers but does not know the order is per-order evidence; after
// unknownAfter such answers in a row (consecutive includes this one; one 404 may be a replica
// lagging) the order is UNKNOWN. Never FAILED: a provider that forgot an order may still hold
// its deposit.
func ObserveError(cur swapv1.OrderStatus, err *provider.Error, consecutive, unknownAfter int32) Change {
	if cur.IsTerminal() || cur == swapv1.OrderUnknown || provider.Classify(err) != provider.ClassOrderUnknown {
		return Change{}
	}
	if consecutive >= unknownAfter {
		return Change{To: swapv1.OrderUnknown, Reason: ReasonOrderNotFound}
	}
	return Change{}
}

func defaultReason(s swapv1.OrderStatus) string {
	switch s {
	case swapv1.OrderPending:
		return ReasonAwaitingDeposit
	case swapv1.OrderProcessing:
		return "Processing"
	case swapv1.OrderSuccess:
		return "Settled"
	case swapv1.OrderRefunded:
		return "Refunded"
	case swapv1.OrderFailed:
		return "ProviderFailed"
	}
	return ReasonProviderStatusUnmapped
}

// Apply records c on st: status, reason, the next seq and a history entry (with st's
// substatus, which the caller sets first), dropping the oldest entries beyond
// swapv1.MaxHistory. It returns the entry, or false when c is zero or
// st is already terminal (terminal statuses are absorbing).
func Apply(st *swapv1.SwapOrderStatus, c Change, at metav1.Time) (swapv1.StatusTransition, bool) {
	if c.IsZero() || st.Status.IsTerminal() {
		return swapv1.StatusTransition{}, false
	}
	t := record(st, c, at)
	st.Status = c.To
	st.StatusReason = c.Reason
	return t, true
}

// RecordHeld records that a new order waits before asking for its deposit address: a
// history entry (and so a webhook) showing it PENDING with st's substatus, while the stored
// status stays empty because the address is still to be requested. It returns false once the
// order has a status or the entry is recorded.
func RecordHeld(st *swapv1.SwapOrderStatus, reason string, at metav1.Time) (swapv1.StatusTransition, bool) {
	if st.Status != "" || st.LastSeq > 0 {
		return swapv1.StatusTransition{}, false
	}
	return record(st, Change{To: swapv1.OrderPending, Reason: reason}, at), true
}

// record appends c's history entry with the next seq, dropping the oldest entries beyond
// swapv1.MaxHistory. Its previous status is what the partner last saw: the status, or for an
// order held before its address, the status of that hold's entry.
func record(st *swapv1.SwapOrderStatus, c Change, at metav1.Time) swapv1.StatusTransition {
	st.LastSeq++
	t := swapv1.StatusTransition{
		Seq:            st.LastSeq,
		Status:         c.To,
		PreviousStatus: st.Status,
		Reason:         c.Reason,
		Substatus:      st.Substatus,
		At:             swapv1.NewPreciseTime(at.Time),
	}
	if t.PreviousStatus == "" && len(st.History) > 0 {
		t.PreviousStatus = st.History[len(st.History)-1].Status
	}
	st.History = append(st.History, t)
	if over := len(st.History) - swapv1.MaxHistory; over > 0 {
		st.History = append([]swapv1.StatusTransition(nil), st.History[over:]...)
	}
	return t
}

// Unnotified returns the history entries whose webhook delivery is not ensured yet, oldest
// first.
func Unnotified(st *swapv1.SwapOrderStatus) []swapv1.StatusTransition {
	var out []swapv1.StatusTransition
	for _, t := range st.History {
		if t.Seq > st.NotifiedSeq {
			out = append(out, t)
		}
	}
	return out
}

// TerminalAt is when the order became terminal: the time of its last transition. ok is
// false for a non-terminal order or one whose history lost that entry.
func TerminalAt(st *swapv1.SwapOrderStatus) (metav1.Time, bool) {
	if !st.Status.IsTerminal() || len(st.History) == 0 {
		return metav1.Time{}, false
	}
	last := st.History[len(st.History)-1]
	if last.Seq != st.LastSeq || last.Status != st.Status {
		return metav1.Time{}, false
	}
	return metav1.NewTime(last.At.Time), true
}
