package controllers

import (
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestProviderDepositRequestCarriesPartnerFee(t *testing.T) {
	o := &swapv1.SwapOrder{Spec: swapv1.SwapOrderSpec{OrderID: "ord_x", Amount: "1000",
		PartnerFee: &swapv1.OrderFee{Bps: 25, Recipient: "acme.near"}}}
	if f := providerDepositRequest(o).AppFee; f == nil || *f != (provider.AppFee{Bps: 25, Recipient: "acme.near"}) {
		t.Errorf("AppFee %+v", f)
	}
	o.Spec.PartnerFee = nil
	if f := providerDepositRequest(o).AppFee; f != nil {
		t.Errorf("an order without a partner fee charges %+v", f)
	}
}
