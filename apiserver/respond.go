package apiserver

import (
	"encoding/json"
	"net/http"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
)

// writeJSON sends v with status. API answers are per caller and change, so nothing caches them.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// takeQuota counts n quotes for partner or answers `quota exceeded` until the next UTC month.
func (s *Server) takeQuota(p *swapv1.Partner, n int64) *apierror.Error {
	ok, wait := s.quota.Take(p, n, s.opts.Now())
	if ok {
		return nil
	}
	e := apierror.Newf(apierror.QuotaExceeded, "monthly quote quota of %d reached", p.Spec.MonthlyQuoteQuota)
	e.RetryAfterSeconds = int64((wait + time.Second - 1) / time.Second)
	return e
}
