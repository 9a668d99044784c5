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
	Errors     []providerError         `json:"errors"`
}

type providerError struct {
	ProviderID swapv1.ProviderID `json:"providerId"`
	Error      apierror.Code     `json:"error"`
	Detail     string            `json:"detail,omitempty"`
}

func newQuoteResponse(res routing.Result) quoteResponse {
	out := quoteResponse{Candidates: res.Candidates, Best: res.Best, Errors: []providerError{}}
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
		res, err := s.countedQuote(r.Context(), p.Partner, req.providerRequest(req.Sender, req.Recipient, req.RefundTo))
		if err != nil {
			return err
		}
		if res.Best == nil {
			return apierror.FromProvider(res.Failure())
		}
		s.bindCandidates(p.Partner.Name, req.swapFields, &res)
		return writeJSON(w, http.StatusOK, newQuoteResponse(res))
	}

	if err := s.checkOrderAddresses(req.OriginAsset, req.DestinationAsset, req.Sender, req.Recipient, req.RefundTo); err != nil {
		return err
	}
	key := r.Header.Get("Idempotency-Key")
	if err := checkIdempotencyKey(key); err != nil {
		return err
	}
	if err := checkClientReference(req.ClientReference); err != nil {
		return err
	}
	req.Dry = new(bool) // canonical form: explicit false
	canonical, _ := json.Marshal(req)
	spec := req.orderSpec(p.Partner.Name, req.Sender, req.Recipient, req.RefundTo)
	spec.ClientReference = req.ClientReference
	order, err := s.place(r.Context(), p, placement{
		spec:           spec,
		idempotencyKey: key,
		canonical:      append([]byte("POST /v1/quote\n"), canonical...),
		prepare: func(ctx context.Context, spec *swapv1.SwapOrderSpec) error {
			if err := s.screen(ctx, p.Partner, spec); err != nil {
				return err
			}
			if req.QuoteID != "" {
				// Bound to an accepted candidate: its provider, no new quote.
				q, err := s.acceptQuote(p.Partner.Name, req.QuoteID, req.swapFields, "")
				if err != nil {
					return err
				}
				spec.ProviderID, spec.Quote = q.ProviderID, q
				return nil
			}
			res, err := s.countedQuote(ctx, p.Partner, req.providerRequest(req.Sender, req.Recipient, req.RefundTo))
			if err != nil {
				return err
			}
			if res.Best == nil {
				return apierror.FromProvider(res.Failure())
			}
			best := *res.Best
			spec.ProviderID = best.ProviderID
			spec.Quote = &best
			return nil
		},
	})
	if err != nil {
		return err
	}
	return writeOrderAnswer(w, order, map[string]any{
		"order": newOrderRecord(order),
		"quote": order.Spec.Quote,
	})
}

// countedQuote asks the router within partner's monthly quota; the quote counts unless no
// provider answered.
func (s *Server) countedQuote(ctx context.Context, partner *swapv1.Partner, req provider.QuoteRequest) (routing.Result, error) {
	settle, err := s.reserveQuota(ctx, partner, 1)
	if err != nil {
		return routing.Result{}, err
	}
	res := s.opts.Router.Quote(ctx, req)
	settle(answered(res))
	return res, nil
}
