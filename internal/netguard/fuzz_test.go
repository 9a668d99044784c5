package netguard

import (
	"errors"
	"net/netip"
	"net/url"
	"testing"
)

// internal reports whether a is an address no webhook may reach, judged with the standard
// library's classifiers (independent of this package's range tables), after unmapping
// IPv4-mapped IPv6.
func internal(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() ||
		(a.Is4() && (a.As4()[0] == 0 || a.As4()[0] >= 240 || a.As4()[0] == 100 && a.As4()[1]&0xc0 == 64))
}

// FuzzValidateURL: a webhook target that passes is an http(s) URL with a host and no user
// info, and when the host is an IP literal it is not loopback (unless allowed), private,
// link-local, multicast, unspecified, CGNAT or reserved. Nothing panics.
func FuzzValidateURL(f *testing.F) {
	for _, s := range []string{
		"https://hooks.acme.example/swap", "http://127.0.0.1:8080/hook", "http://[::1]/", "http://[::ffff:127.0.0.1]/",
		"http://[fe80::1%25eth0]/", "http://169.254.169.254/latest/meta-data", "http://0x7f.1/", "http://2130706433/",
		"http://127.1/", "http://user:pass@example.com/", "ftp://example.com/", "https:///path", "http://[64:ff9b::a9fe:a9fe]/",
		"http://[2002:7f00:1::1]/", "HTTP://EXAMPLE.COM/", "http://example.com:99999/", "//example.com", "http://%31%32%37.0.0.1/",
		"http://[::]/", "http://0.0.0.0/", "http://100.64.0.1/", "http://[fd00::1]/", "javascript:alert(1)", "http://8.8.8.8/",
		"http://[0:0:0:0:0:ffff:7f00:1]/", "http://10.0.0.1./", "http://①②⑦.0.0.1/",
	} {
		f.Add(s, false)
	}
	f.Add("http://127.0.0.1:8080/hook", true)
	f.Add("http://[::ffff:10.0.0.1]/", true)
	f.Fuzz(func(t *testing.T, raw string, allowLoopback bool) {
		u, err := ValidateURL(raw, Options{AllowLoopback: allowLoopback})
		if err != nil {
			if u != nil {
				t.Fatalf("ValidateURL(%q) refused but returned %v", raw, u)
			}
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("ValidateURL(%q) accepted scheme %q", raw, u.Scheme)
		}
		if u.User != nil || u.Hostname() == "" {
			t.Fatalf("ValidateURL(%q) accepted user info or no host", raw)
		}
		// What the delivery client will dial is this URL as printed and parsed again.
		again, err := url.Parse(u.String())
		if err != nil || again.Hostname() != u.Hostname() {
			t.Fatalf("ValidateURL(%q) = %q, which parses back to host %q (%v)", raw, u, again.Hostname(), err)
		}
		ip, err := netip.ParseAddr(u.Hostname())
		if err != nil {
			return // a name: judged on the resolved address by Control
		}
		if internal(ip) && !(allowLoopback && ip.Unmap().IsLoopback()) {
			t.Fatalf("ValidateURL(%q) accepted the internal address %s (AllowLoopback=%v)", raw, ip, allowLoopback)
		}
	})
}

// FuzzControl: the dialer hook admits only TCP to an address CheckAddr admits, and nothing
// internal, whatever the network and address strings are.
func FuzzControl(f *testing.F) {
	for _, s := range []string{"8.8.8.8:443", "127.0.0.1:80", "[::1]:80", "[fe80::1%eth0]:80", "[::ffff:169.254.169.254]:80",
		"10.0.0.1", "example.com:80", "[2606:4700::1111]:443", "[64:ff9b::808:808]:443", ""} {
		f.Add("tcp4", s, false)
		f.Add("tcp6", s, true)
	}
	f.Add("udp4", "8.8.8.8:53", false)
	f.Add("unix", "/var/run/docker.sock", true)
	f.Fuzz(func(t *testing.T, network, address string, allowLoopback bool) {
		err := Options{AllowLoopback: allowLoopback}.Control(network, address, nil)
		if err != nil {
			if !errors.Is(err, ErrForbidden) {
				t.Fatalf("Control(%q, %q) refused with %v, which is not ErrForbidden", network, address, err)
			}
			return
		}
		if network != "tcp4" && network != "tcp6" {
			t.Fatalf("Control admitted network %q", network)
		}
		ap, perr := netip.ParseAddrPort(address)
		if perr != nil {
			t.Fatalf("Control admitted unparsable address %q", address)
		}
		if internal(ap.Addr()) && !(allowLoopback && ap.Addr().Unmap().IsLoopback()) {
			t.Fatalf("Control admitted internal %s (AllowLoopback=%v)", ap.Addr(), allowLoopback)
		}
	})
}
