package apiserver

import (
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// A partner that sets no limits of its own gets its tier's: the rate limit headers, the
// usage answer and the quota follow the tier table (tiers.Default here: free = 60/min and
// 10,000 quotes a month).
func TestTierSetsDefaultLimits(t *testing.T) {
	h := newHarness(t,
		partnerObj("small", swapv1.PartnerSpec{Tier: "free", Keys: []swapv1.PartnerKey{keyFor("small-key-1")}}),
		secretFor("small-key-1", "sk_small_secret"),
		partnerObj("own", swapv1.PartnerSpec{Tier: "free", RequestsPerMinute: 90, Keys: []swapv1.PartnerKey{keyFor("own-key-1")}}),
		secretFor("own-key-1", "sk_own_secret"))
	type usage struct {
		RequestsPerMinute struct {
			Limit int `json:"limit"`
		} `json:"requestsPerMinute"`
		Quotes struct {
			Limit *int64 `json:"limit"`
		} `json:"quotes"`
	}
	rec := h.do(req{method: "GET", path: "/v1/usage", keyID: "small-key-1", secret: "sk_small_secret"})
	u := decode[usage](t, rec, 200)
	if u.RequestsPerMinute.Limit != 60 || u.Quotes.Limit == nil || *u.Quotes.Limit != 10000 || rec.Header().Get("X-RateLimit-Limit") != "60" {
		t.Errorf("free tier: %+v, X-RateLimit-Limit %s", u, rec.Header().Get("X-RateLimit-Limit"))
	}
	u = decode[usage](t, h.do(req{method: "GET", path: "/v1/usage", keyID: "own-key-1", secret: "sk_own_secret"}), 200)
	if u.RequestsPerMinute.Limit != 90 || u.Quotes.Limit == nil || *u.Quotes.Limit != 10000 {
		t.Errorf("free tier with its own rate: %+v", u)
	}
}
