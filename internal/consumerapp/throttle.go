package consumerapp

import (
	"net"
	"net/http"
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
}

// allow takes a token from both of the user's buckets; when one is empty it returns how long
// until the user may try again.
func (t *throttle) allow(sid string, r *http.Request) (bool, ratelimit.Decision) {
	now := t.now()
	if d := t.limiter.Allow("session:"+sid, t.perSession, now); !d.Allowed {
		return false, d
	}
	if d := t.limiter.Allow("client:"+clientAddress(r), t.perClientAddress, now); !d.Allowed {
		return false, d
	}
	return true, ratelimit.Decision{}
}

// clientAddress is the peer's IP (the app listens directly; behind a proxy put it on loopback
// and let the proxy throttle by the real address).
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
