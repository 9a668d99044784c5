package consumerapp

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// proxies are the reverse proxies (an ingress) whose X-Forwarded-For and X-Forwarded-Proto
// the app believes; from anyone else those headers are ignored, so a client cannot pick the
// address it is throttled by.
type proxies []netip.Prefix

func (p proxies) trusted(a netip.Addr) bool {
	for _, pfx := range p {
		if pfx.Contains(a) {
			return true
		}
	}
	return false
}

// client is the end user's address and whether they reached the page over HTTPS: the peer
// itself, or behind trusted proxies the nearest untrusted hop of X-Forwarded-For and the
// scheme the outermost proxy saw.
func (p proxies) client(r *http.Request) (addr netip.Addr, https bool) {
	https = r.TLS != nil
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, https
	}
	peer = peer.Unmap()
	if !p.trusted(peer) {
		return peer, https
	}
	if protos := headerList(r.Header.Values("X-Forwarded-Proto")); len(protos) > 0 {
		https = strings.EqualFold(protos[0], "https")
	}
	hops := headerList(r.Header.Values("X-Forwarded-For"))
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break // a hop we cannot read: stop at the last address we trust
		}
		if a = a.Unmap(); !p.trusted(a) {
			return a, https
		}
		peer = a
	}
	return peer, https
}

// bucket is the throttle's key for an address: IPv6 users get a /64 each, as a household does,
// so rotating addresses inside it buys nothing.
func bucket(a netip.Addr) string {
	if a.Is6() {
		pfx, _ := a.Prefix(64)
		return pfx.String()
	}
	return a.String()
}

// headerList splits comma-separated header values into trimmed items.
func headerList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}
