package apiserver

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/screening"
)

// noListRetryAfter is the Retry-After of a request refused for want of a sanctions list: an
// operator has to load one, which takes longer than a moment.
const noListRetryAfter = 60

// Screener asks every configured screening source about an order's addresses.
type Screener interface {
	Screen(ctx context.Context, subjects []screening.Subject) []screening.Answer
}

// screen screens the new order's addresses, each on its asset's chain, under the partner's
// policy: 403 `address not allowed` naming the field when it blocks, 503 `service
// unavailable` when there is no usable sanctions list and the partner is fail-closed, else
// spec keeps the decision (none when no source is configured). It runs before anything is
// created, counted or asked of a provider.
func (s *Server) screen(ctx context.Context, partner *swapv1.Partner, spec *swapv1.SwapOrderSpec) error {
	if s.opts.Screener == nil {
		return nil
	}
	o, _ := s.opts.Catalog.Lookup(spec.OriginAsset)
	d, _ := s.opts.Catalog.Lookup(spec.DestinationAsset)
	subjects := []screening.Subject{{Field: "sender", Chain: o.Chain, Address: spec.Sender}, {Field: "recipient", Chain: d.Chain, Address: spec.Recipient}}
	if spec.RefundTo != "" {
		subjects = append(subjects, screening.Subject{Field: "refundTo", Chain: o.Chain, Address: spec.RefundTo})
	}
	dec := screening.Decide(partner.Spec.Screening, s.opts.Screener.Screen(ctx, subjects), metav1.NewTime(s.opts.Now()))
	label := dec.Verdict.String()
	if dec.Record != nil && dec.Record.Outcome == swapv1.ScreeningFailedOpen {
		label = "failed_open"
	}
	s.metrics.screeningDecisions.WithLabelValues(label).Inc()
	switch dec.Verdict {
	case screening.Block:
		return apierror.Newf(apierror.AddressNotAllowed, "%s: this address may not be served", dec.Blocked.Field)
	case screening.Refuse:
		// What is wrong with the list is the operator's to see (the Partner's SanctionsList
		// condition, the metrics), not the partner's.
		e := apierror.New(apierror.Unavailable, "addresses cannot be screened right now (no usable sanctions list); nothing was created or counted; retry later")
		e.RetryAfterSeconds = noListRetryAfter
		return e
	}
	spec.Screening = dec.Record
	return nil
}
