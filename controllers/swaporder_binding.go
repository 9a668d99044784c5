package controllers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/quotebind"
)

// breaksQuoteBinding is the quote binding's check, made where the deposit address first
// exists and before it is written anywhere a partner reads (status, GET, the creation answer,
// webhooks): an order bound to a quoteId whose provider now answers worse than the bound
// fails with QuoteChanged, keeping the provider's fresh answer in status.quote (the frontend
// offers it with the 409), and the address is never shown. Reports whether it failed the order.
func (r *SwapOrderReconciler) breaksQuoteBinding(p *orderPass, dep provider.Deposit) bool {
	o, st := p.order, &p.order.Status
	bound := o.Spec.Quote
	if bound == nil || bound.QuoteID == "" || bound.ProviderID != o.Spec.ProviderID {
		return false
	}
	limit := quotebind.BoundOf(o.Spec.SwapType, *bound)
	if !quotebind.Worse(o.Spec.SwapType, limit, dep.Quote) {
		return false
	}
	fresh := dep.Quote.DeepCopy()
	fresh.ProviderID, fresh.QuoteID = o.Spec.ProviderID, ""
	st.Quote = fresh
	p.effect.count(r.metrics.unshown, string(o.Spec.ProviderID), unshownQuoteChanged)
	p.log.Info("provider's binding quote is worse than the accepted one; failing the order before its address is shown",
		"bound", limit, "fresh", quotebind.BoundOf(o.Spec.SwapType, dep.Quote))
	p.effect.event("Warning", orders.ReasonQuoteChanged, "CreateDeposit",
		"provider %s answers %s, the accepted quote bound %s", o.Spec.ProviderID, quotebind.BoundOf(o.Spec.SwapType, dep.Quote), limit)
	p.transition(orders.Change{To: swapv1.OrderFailed, Reason: orders.ReasonQuoteChanged})
	orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
	return true
}
