package apiserver

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
)

type (
	principalKey    struct{}
	rateDecisionKey struct{}
)

// principal is the authenticated caller of a request behind authenticated.
func principal(ctx context.Context) *auth.Principal {
	p, _ := ctx.Value(principalKey{}).(*auth.Principal)
	return p
}

// authenticated runs next for a request with a valid key (or, where streamToken allows it, a
// valid stream token in ?token=), within the key's rate limit and from an allowed origin.
// Every response after authentication carries the X-RateLimit-* headers.
func (s *Server) authenticated(next http.Handler, streamToken bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p *auth.Principal
		var err error
		refusal := "valid X-Key-Id and Authorization: Bearer <secret> required"
		if token := r.URL.Query().Get("token"); streamToken && token != "" {
			p, err = s.tokenHolder(r.Context(), token)
			refusal = "the token is not valid or has expired; POST /v1/events/token issues a new one"
		} else {
			p, err = s.auth.Authenticate(r.Context(), r.Header.Get(auth.HeaderKeyID), r.Header.Get("Authorization"))
		}
		if errors.Is(err, auth.ErrUnauthorized) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="swaprouter"`)
			s.writeError(w, r, apierror.New(apierror.Unauthorized, refusal))
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		infoFrom(r.Context()).keyID = p.KeyID
		s.keyUse.Used(p.Partner, p.KeyID, s.opts.Now())
		p.Partner = s.withTierLimits(p.Partner)
		// The caller is known: from here on only its own origins may read the answer.
		origin := r.Header.Get("Origin")
		originOK := auth.OriginAllowed(p.Partner, origin)
		if !originOK {
			clearCORSHeaders(w.Header())
		}

		d := s.limiter.Allow(r.Context(), p.KeyID, int(p.Partner.Spec.RequestsPerMinute))
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(d.ResetUnix(), 10))
		if !d.Allowed {
			e := apierror.Newf(apierror.RateLimitExceeded, "%d requests per minute", d.Limit)
			e.RetryAfterSeconds = d.RetryAfterSeconds()
			s.writeError(w, r, e)
			return
		}

		if !originOK {
			s.writeError(w, r, apierror.New(apierror.OriginNotAllowed, ""))
			return
		}
		ctx := context.WithValue(r.Context(), principalKey{}, p)
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, rateDecisionKey{}, d)))
	})
}

// rateDecision is the key's bucket state after this request (behind authenticated).
func rateDecision(ctx context.Context) ratelimit.Decision {
	d, _ := ctx.Value(rateDecisionKey{}).(ratelimit.Decision)
	return d
}

// withTierLimits is the partner as the request sees it: its requestsPerMinute and
// monthlyQuoteQuota are the effective ones (its own where set, else its tier's). A shallow
// copy: the cached object is shared and never changed.
func (s *Server) withTierLimits(p *swapv1.Partner) *swapv1.Partner {
	eff := *p
	l := s.opts.Tiers.For(p)
	eff.Spec.RequestsPerMinute, eff.Spec.MonthlyQuoteQuota = l.RequestsPerMinute, l.MonthlyQuoteQuota
	return &eff
}
