package consumerapp

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestProxiesClient(t *testing.T) {
	ingress := proxies{netip.MustParsePrefix("10.0.0.0/8")}
	for _, c := range []struct {
		name       string
		p          proxies
		remote     string
		xff, proto string
		tls        bool
		want       string
		https      bool
	}{
		{"direct client, headers ignored", nil, "203.0.113.7:4000", "198.51.100.1", "https", false, "203.0.113.7", false},
		{"direct TLS", nil, "203.0.113.7:4000", "", "", true, "203.0.113.7", true},
		{"untrusted peer cannot pick its address", ingress, "203.0.113.7:4000", "198.51.100.1", "https", false, "203.0.113.7", false},
		{"behind the ingress", ingress, "10.1.2.3:4000", "198.51.100.1", "https", false, "198.51.100.1", true},
		{"a forged hop left of the real one is ignored", ingress, "10.1.2.3:4000", "1.1.1.1, 198.51.100.1", "https", false, "198.51.100.1", true},
		{"chained trusted proxies", ingress, "10.1.2.3:4000", "198.51.100.1, 10.9.9.9", "http", false, "198.51.100.1", false},
		{"only trusted hops", ingress, "10.1.2.3:4000", "10.9.9.9", "", false, "10.9.9.9", false},
		{"no header from the ingress", ingress, "10.1.2.3:4000", "", "", false, "10.1.2.3", false},
		{"garbage hop stops the walk", ingress, "10.1.2.3:4000", "198.51.100.1, junk", "", false, "10.1.2.3", false},
		{"mapped IPv4 peer", ingress, "[::ffff:10.1.2.3]:4000", "198.51.100.1", "", false, "198.51.100.1", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		got, https := c.p.client(r)
		if got.String() != c.want || https != c.https {
			t.Errorf("%s: %s https=%v; want %s https=%v", c.name, got, https, c.want, c.https)
		}
	}
}

func TestBucketGroupsAnIPv6Household(t *testing.T) {
	a, b := netip.MustParseAddr("2001:db8:1:2::1"), netip.MustParseAddr("2001:db8:1:2:ffff::9")
	if bucket(a) != bucket(b) {
		t.Errorf("one /64, two buckets: %s %s", bucket(a), bucket(b))
	}
	if bucket(a) == bucket(netip.MustParseAddr("2001:db8:1:3::1")) {
		t.Error("two /64s share a bucket")
	}
	if bucket(netip.MustParseAddr("192.0.2.1")) != "192.0.2.1" {
		t.Error("IPv4 is its own bucket")
	}
}
