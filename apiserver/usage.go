package apiserver

import (
	"net/http"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/quota"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
)

// usageRecord is GET /v1/usage: where the caller stands against its limits.
type usageRecord struct {
	RequestsPerMinute requestsUsage `json:"requestsPerMinute"`
	Quotes            quotesUsage   `json:"quotes"`
}

type requestsUsage struct {
	Limit     int    `json:"limit"`
	Remaining int    `json:"remaining"`
	ResetAt   string `json:"resetAt"`
}

type quotesUsage struct {
	Month string `json:"month"`
	Used  int64  `json:"used"`
	// Limit is null when the partner has no monthly cap.
	Limit   *int64 `json:"limit"`
	ResetAt string `json:"resetAt"`
}

func newUsageRecord(p *swapv1.Partner, rate ratelimit.Decision, quotesUsed int64, now time.Time) usageRecord {
	rec := usageRecord{
		RequestsPerMinute: requestsUsage{Limit: rate.Limit, Remaining: rate.Remaining, ResetAt: timestamp(time.Unix(rate.ResetUnix(), 0))},
		Quotes: quotesUsage{Month: quota.Month(now), Used: quotesUsed,
			ResetAt: timestamp(now.Add(quota.UntilNextMonth(now)))},
	}
	if p.Spec.MonthlyQuoteQuota > 0 {
		limit := p.Spec.MonthlyQuoteQuota
		rec.Quotes.Limit = &limit
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
