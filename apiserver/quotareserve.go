package apiserver

import (
	"context"
	"net/http"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// reserveQuota holds n quotes of partner's monthly cap or answers `quota exceeded` until the
// next UTC month; settle(answered) then counts only the quotes a provider answered.
func (s *Server) reserveQuota(ctx context.Context, p *swapv1.Partner, n int64) (settle func(answered int64), _ error) {
	settle, ok, wait, err := s.quota.Reserve(ctx, p, n, s.opts.Now())
	if err != nil {
		return nil, err // the cap's allowance could not be claimed: 503, never a false 429
	}
	if ok {
		return settle, nil
	}
	return nil, quotaExceeded(p, wait)
}

// reserveQuotaUpTo holds as many of n quotes as the partner's monthly cap still allows;
// none is 429 `quota exceeded`.
func (s *Server) reserveQuotaUpTo(ctx context.Context, p *swapv1.Partner, n int64) (settle func(answered int64), granted int64, _ error) {
	settle, granted, wait, err := s.quota.ReserveUpTo(ctx, p, n, s.opts.Now())
	if err != nil {
		return nil, 0, err
	}
	if granted == 0 && n > 0 {
		return nil, 0, quotaExceeded(p, wait)
	}
	return settle, granted, nil
}

func quotaExceeded(p *swapv1.Partner, wait time.Duration) *apierror.Error {
	e := apierror.Newf(apierror.QuotaExceeded, "monthly quote quota of %d reached", p.Spec.MonthlyQuoteQuota)
	e.RetryAfterSeconds = int64((wait + time.Second - 1) / time.Second)
	return e
}

// answered counts the results a provider answered, with a quote or a refusal of its own;
// upstream errors and timeouts (502/504, retried by partners) do not count as quotes.
func answered(results ...routing.Result) int64 {
	var n int64
	for _, res := range results {
		if res.Best != nil || apierror.FromProvider(res.Failure()).Status() < http.StatusInternalServerError {
			n++
		}
	}
	return n
}
