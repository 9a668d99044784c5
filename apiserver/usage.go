package apiserver

import (
	"net/http"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/quota"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
)

// newUsageRecord is GET /v1/usage: where the caller stands against its limits.
func newUsageRecord(p *swapv1.Partner, rate ratelimit.Decision, quotesUsed int64, now time.Time) wire.Usage {
	rec := wire.Usage{
		RequestsPerMinute: wire.RequestsUsage{Limit: rate.Limit, Remaining: rate.Remaining, ResetAt: timestamp(time.Unix(rate.ResetUnix(), 0))},
		Quotes: wire.QuotesUsage{Month: quota.Month(now), Used: quotesUsed,
			ResetAt: timestamp(now.Add(quota.UntilNextMonth(now)))},
	}
	if p.Spec.MonthlyQuoteQuota > 0 {
		// Null when the partner has no monthly cap.
		rec.Quotes.Limit = new(p.Spec.MonthlyQuoteQuota)
	}
	return rec
}

// GET /v1/usage → the key's request bucket after this request and the partner's quotes this
// UTC month against its cap.
func (s *Server) usage(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context()).Partner
	now := s.opts.Now()
	return writeJSON(w, http.StatusOK, newUsageRecord(p, rateDecision(r.Context()), s.quota.Used(p, now), now))
}
