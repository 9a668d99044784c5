package apiserver

import (
	"maps"
	"net/http"
	"slices"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// rateEntry is one target's answer: exactly one of best and error is set.
type rateEntry struct {
	To    string
	Best  *swapv1.QuoteCandidate
	Error *apierror.Error
}

// newRatesResponse is the answer of POST /v1/rates (wire.RatesResponse).
func newRatesResponse(from, amount string, swapType swapv1.SwapType, entries []rateEntry) wire.RatesResponse {
	out := wire.RatesResponse{From: from, Amount: amount, SwapType: wire.RatesResponseSwapType(swapType),
		Rates: make([]wire.RateEntry, 0, len(entries))}
	for _, e := range entries {
		rate := wire.RateEntry{To: e.To, Best: optionalCandidate(e.Best)}
		if e.Error != nil {
			rate.Error = new(errorBody(e.Error))
		}
		out.Rates = append(out.Rates, rate)
	}
	return out
}

// POST /v1/rates → 200 {from, amount, swapType, rates[{to, best|null, error|null}]}. Targets
// are priced concurrently (the router caps the parallelism); a failing target only fills its
// own error. Each known target counts as one quote against the monthly quota, since each is
// a provider fan-out like a quote, unless no provider answered it (502/504). Targets beyond
// the month's remaining quotes answer error `quota exceeded` (best null) in their entry.
func (s *Server) rates(w http.ResponseWriter, r *http.Request) error {
	var req wire.RatesRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	base, verr := validateRates(&req)
	if verr != nil {
		return verr
	}
	if _, ok := s.opts.Catalog.Lookup(req.From); !ok {
		return s.unknownAsset("from", req.From)
	}
	if err := base.resolveFee(principal(r.Context()).Partner.Spec.Fees); err != nil {
		return err
	}
	entries := make([]rateEntry, len(req.Targets))
	var known []string
	for i, to := range req.Targets {
		entries[i].To = to
		if _, ok := s.opts.Catalog.Lookup(to); ok {
			known = append(known, to)
		} else {
			entries[i].Error = s.unknownAsset("target", to)
		}
	}
	// Only known targets a provider answered count against the quota. A request partly over
	// the monthly cap prices the targets that fit, in request order, and marks the rest
	// `quota exceeded`; none fitting is a 429.
	partner := principal(r.Context()).Partner
	settle, granted, qerr := s.reserveQuotaUpTo(r.Context(), partner, int64(len(known)))
	if qerr != nil {
		return qerr
	}
	overCap := map[string]bool{}
	for _, to := range known[granted:] {
		overCap[to] = true
	}
	known = known[:granted]
	results := map[string]routing.Result{}
	if len(known) > 0 {
		for _, rate := range s.opts.Router.Rates(r.Context(), base.providerRequest("", "", ""), known) {
			results[rate.To] = rate.Result
		}
	}
	settle(answered(slices.Collect(maps.Values(results))...))
	st, err := s.providerStanding(r.Context())
	if err != nil {
		return err
	}
	for i := range entries {
		if entries[i].Error != nil {
			continue
		}
		res, ok := results[entries[i].To]
		// Best is never a provider GET /v1/providers reports UNAVAILABLE.
		res.Choose(routing.PreferPrice, base.SwapType, st.unavailable, nil)
		switch {
		case !ok && overCap[entries[i].To]:
			entries[i].Error = apierror.Newf(apierror.QuotaExceeded, "monthly quote quota of %d reached; not priced", partner.Spec.MonthlyQuoteQuota)
		case !ok:
			entries[i].Error = apierror.New(apierror.Internal, "")
		case res.Best != nil:
			entries[i].Best = res.Best
		default:
			entries[i].Error = apierror.FromProvider(res.Failure())
		}
	}
	return writeJSON(w, http.StatusOK, newRatesResponse(req.From, req.Amount, base.SwapType, entries))
}

// errorBody is e as a rate entry carries it: the error answer's body.
func errorBody(e *apierror.Error) wire.Error {
	b := wire.Error{Error: wire.ErrorCode(e.Code), Detail: optional(e.Detail), OrderID: optional(e.OrderID),
		Quote: optionalCandidate(e.Quote)}
	if u := e.Upstream; u != nil {
		b.Upstream = &wire.Upstream{Status: u.Status, Path: u.Path}
	}
	return b
}
