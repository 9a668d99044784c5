package controllers

import (
	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// appFee is the provider-side form of the order's partner fee.
func appFee(f *swapv1.OrderFee) *provider.AppFee {
	if f == nil {
		return nil
	}
	return &provider.AppFee{Bps: f.Bps, Recipient: f.Recipient}
}
