package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// newQuoteResponse is the dry quote answer: every candidate, the best, the preference that
// chose it (the one asked for, or price when the providers' measurements cannot decide:
// routing.Choose), and per-provider failures.
func newQuoteResponse(res routing.Result) wire.QuoteResponse {
	out := wire.QuoteResponse{Candidates: wireCandidates(res.Candidates), Errors: []wire.ProviderError{},
		BestChosenBy: wire.Preference(res.BestBy)}
	if res.Best != nil {
		out.Best = wireCandidate(*res.Best)
	}
	for _, pe := range res.Errors {
		e := apierror.FromProvider(pe.Err)
		out.Errors = append(out.Errors, wire.ProviderError{ProviderID: string(pe.ProviderID), Error: string(e.Code), Detail: optional(e.Detail)})
	}
	return out
}

// POST /v1/quote. dry (the default): 200 {candidates, best, errors}, nothing stored.
// dry:false: the best candidate becomes an order, 201 {order, quote} (202 while its address is
// still pending when the bounded wait ends); with quoteId, the candidate it names (no new
// quote, nothing counted).
// Both count one quote against the monthly quota when a provider answered (an idempotent
// replay of a dry:false quote does not: it quotes nothing).
func (s *Server) quote(w http.ResponseWriter, r *http.Request) error {
	var req wire.QuoteRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	f, verr := validateQuote(&req)
	if verr != nil {
		return verr
	}
	if err := s.checkPair(f.OriginAsset, f.DestinationAsset); err != nil {
		return err
	}
	p := principal(r.Context())
	if err := f.resolveFee(p.Partner.Spec.Fees); err != nil {
		return err
	}
	if dryQuote(&req) {
		res, err := s.countedQuote(r.Context(), p.Partner, f.providerRequest(deref(req.Sender), deref(req.Recipient), deref(req.RefundTo)), preferenceOf(&req))
		if err != nil {
			return err
		}
		if res.Best == nil {
			return apierror.FromProvider(res.Failure())
		}
		s.bindCandidates(p.Partner.Name, f, &res)
		return writeJSON(w, http.StatusOK, newQuoteResponse(res))
	}

	req.FeeBps, req.Dry = f.FeeBps, new(bool) // canonical form: the fee charged, explicit dry:false
	canonical, _ := json.Marshal(req)
	order, err := s.openOrder(r, newOrder{
		swapFields: f, sender: deref(req.Sender), recipient: deref(req.Recipient), refundTo: deref(req.RefundTo),
		clientReference: deref(req.ClientReference), quoteID: deref(req.QuoteID), preference: preferenceOf(&req),
		canonical: append([]byte("POST /v1/quote\n"), canonical...),
	})
	if err != nil {
		return err
	}
	if order.Spec.Quote == nil {
		return fmt.Errorf("order %s from a quote has no quote", order.Spec.OrderID)
	}
	return writeOrderAnswer(w, order, wire.QuoteOrderResponse{Order: newOrderRecord(order), Quote: wireCandidate(*order.Spec.Quote)})
}

// countedQuote asks the router within partner's monthly quota and chooses the best candidate
// for pref; the quote counts unless no provider answered.
func (s *Server) countedQuote(ctx context.Context, partner *swapv1.Partner, req provider.QuoteRequest, pref routing.Preference) (routing.Result, error) {
	settle, err := s.reserveQuota(ctx, partner, 1)
	if err != nil {
		return routing.Result{}, err
	}
	res := s.opts.Router.Quote(ctx, req)
	settle(answered(res))
	return res, s.choose(ctx, &res, pref, req.SwapType)
}
