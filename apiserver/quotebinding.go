package apiserver

import (
	"errors"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/quotebind"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// Quote binding: every candidate carries a quoteId that an order can name; see
// internal/quotebind for the token and controllers/swaporder_binding.go for the check against
// the provider's binding answer.

const (
	// defaultQuoteTTL applies when a provider's candidate has no expiresAt.
	defaultQuoteTTL = 2 * time.Minute
	// maxQuoteTTL caps how long any quoteId is accepted, whatever the provider says.
	maxQuoteTTL = 10 * time.Minute
)

// claimsFor is what candidate q of a quote for f binds for partner.
func (s *Server) claimsFor(partner string, f swapFields, q swapv1.QuoteCandidate) quotebind.Claims {
	now := s.opts.Now()
	exp := now.Add(defaultQuoteTTL)
	if q.ExpiresAt != nil {
		exp = q.ExpiresAt.Time
	}
	if limit := now.Add(maxQuoteTTL); exp.After(limit) {
		exp = limit
	}
	return quotebind.Claims{
		Partner: partner, Provider: q.ProviderID,
		OriginAsset: f.OriginAsset, DestinationAsset: f.DestinationAsset, Amount: f.Amount,
		SwapType: f.SwapType, SlippageBps: f.SlippageToleranceBps, FeeBps: f.feeBps(),
		AmountIn: q.AmountIn, AmountOut: q.AmountOut, Bound: quotebind.BoundOf(f.SwapType, q),
		ExpiresAt: exp.Unix(),
	}
}

// bindCandidates gives every candidate of res its quoteId, and best the quoteId of its
// candidate (sealing is randomized: a second signature would be another token).
func (s *Server) bindCandidates(partner string, f swapFields, res *routing.Result) {
	for i := range res.Candidates {
		res.Candidates[i].QuoteID = s.quoteIDs.Sign(s.claimsFor(partner, f, res.Candidates[i]))
	}
	if res.Best != nil {
		best := *res.Best
		if i := slices.IndexFunc(res.Candidates, func(c provider.Quote) bool { return c.ProviderID == best.ProviderID }); i >= 0 {
			best.QuoteID = res.Candidates[i].QuoteID
		} else {
			best.QuoteID = s.quoteIDs.Sign(s.claimsFor(partner, f, best))
		}
		res.Best = &best
	}
}

// acceptQuote checks quoteID for an order of partner with fields f and, when named, provider
// id, and returns the candidate the order is bound to.
func (s *Server) acceptQuote(partner, quoteID string, f swapFields, id swapv1.ProviderID) (*swapv1.QuoteCandidate, *apierror.Error) {
	c, err := s.quoteIDs.Verify(quoteID)
	if errors.Is(err, quotebind.ErrInvalid) {
		return nil, apierror.New(apierror.QuoteMismatch, "quoteId: "+err.Error()+"; take the quoteId of a candidate from POST /v1/quote")
	}
	var diff []string
	for _, d := range []struct {
		field    string
		contrary bool
	}{
		{"partner", c.Partner != partner},
		{"providerId", id != "" && c.Provider != id},
		{"originAsset", c.OriginAsset != f.OriginAsset},
		{"destinationAsset", c.DestinationAsset != f.DestinationAsset},
		{"amount", c.Amount != f.Amount},
		{"swapType", c.SwapType != f.SwapType},
		{"slippageToleranceBps", !sameBps(c.SlippageBps, f.SlippageToleranceBps)},
		{"feeBps", c.FeeBps != f.feeBps()},
	} {
		if d.contrary {
			diff = append(diff, d.field)
		}
	}
	if len(diff) > 0 {
		return nil, apierror.New(apierror.QuoteMismatch, "the request's "+strings.Join(diff, ", ")+" differ from the quote's; send them as quoted or quote again")
	}
	if c.Expired(s.opts.Now()) {
		return nil, apierror.Newf(apierror.QuoteExpired, "the quote expired at %s; quote again", time.Unix(c.ExpiresAt, 0).UTC().Format(time.RFC3339))
	}
	q := c.Candidate(quoteID)
	q.ExpiresAt = &metav1.Time{Time: time.Unix(c.ExpiresAt, 0).UTC()}
	return &q, nil
}

func sameBps(a, b *int32) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// quoteChanged is the answer to an order failed because its provider's binding answer broke
// the quote's bound: 409 with the fresh candidate, itself bound by a new quoteId, so the
// partner can show it and, once the user accepts, order again.
func (s *Server) quoteChanged(o *swapv1.SwapOrder) *apierror.Error {
	e := apierror.Newf(apierror.QuoteChanged, "the provider's price moved past the accepted quote; order %s failed without a deposit address", o.Spec.OrderID)
	if o.Status.Quote != nil {
		fresh := o.Status.Quote.DeepCopy()
		f := swapFields{OriginAsset: o.Spec.OriginAsset, DestinationAsset: o.Spec.DestinationAsset, Amount: o.Spec.Amount,
			SwapType: o.Spec.SwapType, SlippageToleranceBps: o.Spec.SlippageToleranceBps}
		if fee := o.Spec.PartnerFee; fee != nil {
			f.FeeBps = &fee.Bps
		}
		fresh.QuoteID = s.quoteIDs.Sign(s.claimsFor(o.Spec.Partner, f, *fresh))
		e.Quote = fresh
	}
	return e
}

// creationFailure is the answer to an order the reconciler failed at creation.
func (s *Server) creationFailure(o *swapv1.SwapOrder) *apierror.Error {
	if o.Status.StatusReason == orders.ReasonQuoteChanged {
		return s.quoteChanged(o)
	}
	return creationFailure(o)
}
