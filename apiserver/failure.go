package apiserver

import (
	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/orders"
)

// creationFailure is the answer to an order the reconciler failed at creation (the provider
// refused the deposit address). The partner gets the contract error matching the reason, as a
// dry quote would have answered, and never the order: it is FAILED and needs no further action.
// The order stays readable with GET /v1/order/{id} (its id is in the detail).
func creationFailure(o *swapv1.SwapOrder) *apierror.Error {
	id := o.Spec.OrderID
	var limits swapv1.QuoteLimits
	if q := firstNonNil(o.Status.Quote, o.Spec.Quote); q != nil && q.Limits != nil {
		limits = *q.Limits
	}
	switch o.Status.StatusReason {
	case orders.ReasonAmountTooLow:
		if limits.MinAmountIn != "" {
			return apierror.Newf(apierror.AmountTooLow, "minimum amount is %s (order %s failed)", limits.MinAmountIn, id)
		}
		return apierror.Newf(apierror.AmountTooLow, "below the provider's minimum (order %s failed)", id)
	case orders.ReasonAmountTooHigh:
		if limits.MaxAmountIn != "" {
			return apierror.Newf(apierror.AmountTooHigh, "maximum amount is %s (order %s failed)", limits.MaxAmountIn, id)
		}
		return apierror.Newf(apierror.AmountTooHigh, "above the provider's maximum (order %s failed)", id)
	case orders.ReasonUnsupportedPair, orders.ReasonProviderDisabled, orders.ReasonProviderNotConfigured:
		return apierror.Newf(apierror.UnsupportedPair, "%s cannot route this pair now (order %s failed: %s)",
			o.Spec.ProviderID, id, o.Status.StatusReason)
	case orders.ReasonProviderRefused:
		return apierror.Newf(apierror.InvalidRequest, "the provider refused the order (order %s failed)", id)
	}
	return apierror.Newf(apierror.UpstreamError, "order %s failed: %s", id, o.Status.StatusReason)
}
