package apiserver

import (
	"context"
	"encoding/json"
	"net/http"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// quoteResponse is the dry quote answer: every candidate, the best, and per-provider failures.
type quoteResponse struct {
	Candidates []swapv1.QuoteCandidate `json:"candidates"`
	Best       *swapv1.QuoteCandidate  `json:"best"`
	// BestChosenBy is the preference that chose best: the one asked for, or price when the
	// providers' measurements cannot decide (routing.Choose).
	BestChosenBy routing.Preference `json:"bestChosenBy"`
	Errors       []providerError    `json:"errors"`
}

type providerError struct {
	ProviderID swapv1.ProviderID `json:"providerId"`
	Error      apierror.Code     `json:"error"`
	Detail     string            `json:"detail,omitempty"`
}

func newQuoteResponse(res routing.Result) quoteResponse {
	out := quoteResponse{Candidates: res.Candidates, Best: res.Best, BestChosenBy: res.BestBy, Errors: []providerError{}}
	if out.Candidates == nil {
		out.Candidates = []swapv1.QuoteCandidate{}
	}
	for _, pe := range res.Errors {
		e := apierror.FromProvider(pe.Err)
		out.Errors = append(out.Errors, providerError{ProviderID: pe.ProviderID, Error: e.Code, Detail: e.Detail})
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
	var req quoteRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	if err := s.checkPair(req.OriginAsset, req.DestinationAsset); err != nil {
		return err
	}
	p := principal(r.Context())
	if err := req.resolveFee(p.Partner.Spec.Fees); err != nil {
		return err
	}
	if req.dry() {
		res, err := s.countedQuote(r.Context(), p.Partner, req.providerRequest(req.Sender, req.Recipient, req.RefundTo), req.Preference)
		if err != nil {
			return err
		}
		if res.Best == nil {
			return apierror.FromProvider(res.Failure())
		}
		s.bindCandidates(p.Partner.Name, req.swapFields, &res)
		return writeJSON(w, http.StatusOK, newQuoteResponse(res))
	}

	req.Dry = new(bool) // canonical form: explicit false
	canonical, _ := json.Marshal(req)
	order, err := s.openOrder(r, newOrder{
		swapFields: req.swapFields, sender: req.Sender, recipient: req.Recipient, refundTo: req.RefundTo,
		clientReference: req.ClientReference, quoteID: req.QuoteID, preference: req.Preference,
		canonical: append([]byte("POST /v1/quote\n"), canonical...),
	})
	if err != nil {
		return err
	}
	return writeOrderAnswer(w, order, map[string]any{
		"order": newOrderRecord(order),
		"quote": order.Spec.Quote,
	})
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
