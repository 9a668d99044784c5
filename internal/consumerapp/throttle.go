package consumerapp

import (
	"net/http"
	"net/netip"
	"time"

	"github.com/swaprouter/swaprouter/internal/ratelimit"
)

// throttle shares the partner's budget fairly (contract §7, retry strategy 3): every end user
// has a bucket per session and a larger one per client address, so neither a script that drops
// its cookie nor one user behind a shared address can exhaust the key.
type throttle struct {
	limiter                      *ratelimit.Limiter
	perSession, perClientAddress int
	now                          func() time.Time
	client                       func(*http.Request) (netip.Addr, bool)
}

// allow takes a token from both of the user's buckets; when one is empty it returns how long
// until the user may try again.
func (t *throttle) allow(sid string, r *http.Request) (bool, ratelimit.Decision) {
	now := t.now()
	if d := t.limiter.Allow("session:"+sid, t.perSession, now); !d.Allowed {
		return false, d
	}
	addr, _ := t.client(r)
	if d := t.limiter.Allow("client:"+bucket(addr), t.perClientAddress, now); !d.Allowed {
		return false, d
	}
	return true, ratelimit.Decision{}
}
