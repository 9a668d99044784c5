// Package netguard keeps outbound webhook traffic away from internal networks (SSRF). The
// check runs in the dialer's Control hook, i.e. on the IP actually being connected to after
// DNS resolution, so a hostname that resolves (or re-resolves) to an internal address is
// refused too.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Options tune the guard.
type Options struct {
	// AllowLoopback admits loopback destinations (127.0.0.0/8, ::1) and nothing else beyond
	// public addresses; for dev mode and tests whose receiver runs on 127.0.0.1.
	AllowLoopback bool
}

// ErrForbidden is wrapped by every refusal; test with errors.Is.
var ErrForbidden = errors.New("destination not allowed")

// ErrInvalidURL is wrapped by every ValidateURL error that is not a refused address.
var ErrInvalidURL = errors.New("invalid webhook URL")

// ForbiddenError says which address was refused and why.
type ForbiddenError struct {
	Addr   netip.Addr
	Reason string
}

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("%s: %s is %s", ErrForbidden, e.Addr, e.Reason)
}

func (e *ForbiddenError) Unwrap() error { return ErrForbidden }

type rangeRule struct {
	prefix netip.Prefix
	reason string
}

func rule(cidr, reason string) rangeRule { return rangeRule{netip.MustParsePrefix(cidr), reason} }

// forbidden4 are IPv4 ranges no partner endpoint legitimately lives in.
var forbidden4 = []rangeRule{
	rule("0.0.0.0/8", "in \"this network\" 0.0.0.0/8"),
	rule("10.0.0.0/8", "private (RFC 1918)"),
	rule("100.64.0.0/10", "carrier-grade NAT (RFC 6598)"),
	rule("127.0.0.0/8", "loopback"),
	rule("169.254.0.0/16", "link-local"),
	rule("172.16.0.0/12", "private (RFC 1918)"),
	rule("192.0.0.0/24", "IETF protocol assignments"),
	rule("192.0.2.0/24", "documentation (TEST-NET-1)"),
	rule("192.88.99.0/24", "6to4 relay anycast"),
	rule("192.168.0.0/16", "private (RFC 1918)"),
	rule("198.18.0.0/15", "benchmarking"),
	rule("198.51.100.0/24", "documentation (TEST-NET-2)"),
	rule("203.0.113.0/24", "documentation (TEST-NET-3)"),
	rule("224.0.0.0/4", "multicast"),
	rule("240.0.0.0/4", "reserved or broadcast"),
}

// forbidden6 are IPv6 ranges refused outright. IPv4-mapped, IPv4-translated, NAT64
// (64:ff9b::/96) and 6to4 addresses are judged by the IPv4 address they embed, before this
// list; the other forms that carry one (IPv4-compatible, local-use NAT64, Teredo) are in it.
var forbidden6 = []rangeRule{
	rule("::1/128", "loopback"), // before ::/96, which contains it
	rule("::/96", "unspecified or IPv4-compatible (deprecated)"),
	rule("64:ff9b:1::/48", "local-use NAT64 (RFC 8215; embedding is operator-defined)"),
	rule("100::/64", "discard-only"),
	rule("100:0:0:1::/64", "dummy prefix (RFC 9780)"),
	rule("2001::/23", "IETF protocol assignments (Teredo, benchmarking, ORCHID)"),
	rule("2001:db8::/32", "documentation"),
	rule("3fff::/20", "documentation (RFC 9637)"),
	rule("5f00::/16", "segment routing SIDs (RFC 9602)"),
	rule("fc00::/7", "unique-local"),
	rule("fe80::/10", "link-local"),
	rule("fec0::/10", "site-local (deprecated)"),
	rule("ff00::/8", "multicast"),
}

var (
	// ipv4Translated is SIIT's ::ffff:0:a.b.c.d (RFC 2765), distinct from IPv4-mapped ::ffff:a.b.c.d.
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

// CheckAddr reports whether a webhook may connect to addr: nil when allowed, a
// *ForbiddenError otherwise. It is pure: no DNS, no traffic.
func CheckAddr(addr netip.Addr, opts Options) error {
	if !addr.IsValid() {
		return &ForbiddenError{Addr: addr, Reason: "not a valid address"}
	}
	addr = addr.WithZone("")
	// ::ffff:a.b.c.d reaches a.b.c.d: judge it as that IPv4 address.
	if addr.Is4In6() {
		addr = addr.Unmap()
	}
	if addr.IsLoopback() && opts.AllowLoopback {
		return nil
	}
	if addr.Is6() {
		if v4, how, ok := embeddedIPv4(addr); ok {
			// A translator would deliver to v4 on its own network: never admit loopback there.
			if err := CheckAddr(v4, Options{}); err != nil {
				return &ForbiddenError{Addr: addr, Reason: fmt.Sprintf("%s of %s, which is %s", how, v4, err.(*ForbiddenError).Reason)}
			}
			return nil
		}
	}
	rules := forbidden6
	if addr.Is4() {
		rules = forbidden4
	}
	for _, r := range rules {
		if r.prefix.Contains(addr) {
			return &ForbiddenError{Addr: addr, Reason: r.reason}
		}
	}
	return nil
}

// embeddedIPv4 extracts the IPv4 address an IPv4-translated (::ffff:0:0:0/96), NAT64
// (64:ff9b::/96) or 6to4 (2002::/16) address routes to.
func embeddedIPv4(a netip.Addr) (netip.Addr, string, bool) {
	b := a.As16()
	switch {
	case ipv4Translated.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "IPv4-translated form", true
	case nat64WellKnown.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "NAT64 form", true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), "6to4 form", true
	}
	return netip.Addr{}, "", false
}

// ValidateURL checks a webhook target: http or https, a host, no user info. A literal IP
// host is checked right away; names are checked when dialing.
func ValidateURL(raw string, opts Options) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%w: scheme %q is not http or https", ErrInvalidURL, u.Scheme)
	case u.User != nil:
		return nil, fmt.Errorf("%w: user info is not allowed", ErrInvalidURL)
	case u.Hostname() == "":
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
		if err := CheckAddr(ip, opts); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// Control is a net.Dialer Control hook: it runs after DNS, just before connect, with the
// address actually dialed, and refuses forbidden ones and non-TCP networks.
func (o Options) Control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: network %q", ErrForbidden, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable address %q", ErrForbidden, address)
	}
	return CheckAddr(ap.Addr(), o)
}

// NewDialer returns a dialer whose every connection passes CheckAddr.
func NewDialer(opts Options) *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: opts.Control}
}

// DeliveryTimeout bounds one webhook attempt end to end.
const DeliveryTimeout = 15 * time.Second

// NewHTTPClient returns the client for webhook delivery: guarded dialer, no proxy (a proxy
// would connect on our behalf, past the guard), redirects not followed (the 3xx response is
// returned as is), DeliveryTimeout per request.
func NewHTTPClient(opts Options) *http.Client {
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            NewDialer(opts).DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  DeliveryTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   DeliveryTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
