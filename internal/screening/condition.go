package screening

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// ListCondition is a partner's SanctionsList condition for the list assessed as a: the list's
// state, and what it does to the partner's new orders under p (nil: the defaults).
func ListCondition(a Assessment, p *swapv1.PartnerScreening) metav1.Condition {
	c := metav1.Condition{Type: swapv1.ConditionSanctionsList, Status: metav1.ConditionTrue, Reason: string(a.State)}
	if a.State.Usable() {
		c.Message = "new orders are screened with the list " + a.Version() + ": " + a.Detail
		return c
	}
	c.Status = metav1.ConditionFalse
	effect := "new orders are refused with 503 service unavailable (onUnavailable: fail-closed) until a usable list is loaded"
	if _, onUnavailable := policy(p); onUnavailable == swapv1.ScreeningFailOpen {
		effect = "new orders are created without being screened by the list, recorded FailedOpen (onUnavailable: fail-open)"
	}
	if a.State == StateIncomplete {
		effect += "; the addresses it does list still match (onMatch)"
	}
	c.Message = a.Detail + "; " + effect
	return c
}
