package netguard

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestCheckAddrRefuses(t *testing.T) {
	forbidden := []string{
		"127.0.0.1", "127.1.2.3", "::1", // loopback
		"10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", // RFC 1918
		"169.254.169.254", "fe80::1", "fe80::1%eth0", // link-local, cloud metadata
		"100.64.0.1", "100.127.255.254", // CGNAT
		"fc00::1", "fd12:3456:789a::1", // unique-local
		"::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", // IPv4-mapped
		"64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::a9fe:a9fe", // NAT64 of loopback, private, metadata
		"64:ff9b:1::808:808",                 // local-use NAT64
		"2002:7f00:1::1", "2002:c0a8:101::1", // 6to4 of loopback and private
		"0.0.0.0", "::", "0.1.2.3", // unspecified / this network
		"224.0.0.1", "239.255.255.250", "ff02::1", // multicast
		"255.255.255.255", "240.0.0.1", // broadcast, reserved
		"192.0.2.10", "198.51.100.7", "203.0.113.9", "2001:db8::1", // documentation
		"198.18.0.1", "2001:2::1", // benchmarking
		"192.0.0.8", "::127.0.0.1", "fec0::1", "100::1", // misc special-purpose
	}
	for _, tc := range forbidden {
		t.Run(tc, func(t *testing.T) {
			err := CheckAddr(netip.MustParseAddr(tc), Options{})
			var fe *ForbiddenError
			if !errors.As(err, &fe) || !errors.Is(err, ErrForbidden) || fe.Reason == "" {
				t.Fatalf("CheckAddr(%s) = %v, want a refusal", tc, err)
			}
		})
	}
	if len(forbidden) < 20 {
		t.Fatal("the table must cover at least 20 targets")
	}
}

func TestCheckAddrAllowsPublic(t *testing.T) {
	for _, tc := range []string{
		"8.8.8.8", "1.1.1.1", "93.184.215.14", "172.32.0.1", "100.128.0.1", "192.169.0.1",
		"2606:4700:4700::1111", "2a00:1450:4001:80b::200e",
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", // embedded public IPv4
	} {
		if err := CheckAddr(netip.MustParseAddr(tc), Options{}); err != nil {
			t.Errorf("CheckAddr(%s) = %v, want allowed", tc, err)
		}
	}
}

func TestAllowLoopbackAdmitsOnlyLoopback(t *testing.T) {
	opts := Options{AllowLoopback: true}
	for _, ok := range []string{"127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1"} {
		if err := CheckAddr(netip.MustParseAddr(ok), opts); err != nil {
			t.Errorf("AllowLoopback: CheckAddr(%s) = %v", ok, err)
		}
	}
	for _, bad := range []string{"10.0.0.1", "192.168.0.1", "169.254.169.254", "fd00::1", "0.0.0.0", "64:ff9b::7f00:1"} {
		if err := CheckAddr(netip.MustParseAddr(bad), opts); !errors.Is(err, ErrForbidden) {
			t.Errorf("AllowLoopback: CheckAddr(%s) = %v, want refusal", bad, err)
		}
	}
}

func TestValidateURL(t *testing.T) {
	tests := []struct {
		url     string
		wantErr string // "" when valid
	}{
		{"https://hooks.partner.example/swaprouter", ""},
		{"http://hooks.partner.example:8080/x?y=1", ""},
		{"https://8.8.8.8/hook", ""},
		{"ftp://hooks.partner.example/", "scheme"},
		{"file:///etc/passwd", "scheme"},
		{"hooks.partner.example/x", "scheme"},
		{"https://user:pass@hooks.partner.example/", "user info"},
		{"https:///path-only", "no host"},
		{"https://10.0.0.5/hook", "private"},
		{"http://[::1]:8080/", "loopback"},
		{"http://[::ffff:0:7f00:1]:8080/", "loopback"},
		{"http://169.254.169.254/latest/meta-data", "link-local"},
		{"https://%zz", "invalid"},
	}
	for _, tc := range tests {
		_, err := ValidateURL(tc.url, Options{})
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("ValidateURL(%q) = %v, want ok", tc.url, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ValidateURL(%q) = %v, want error containing %q", tc.url, err, tc.wantErr)
		}
	}
	if _, err := ValidateURL("http://127.0.0.1:9/", Options{AllowLoopback: true}); err != nil {
		t.Errorf("loopback URL with AllowLoopback: %v", err)
	}
}

func TestControlRefusesNonTCP(t *testing.T) {
	if err := (Options{}).Control("udp4", "8.8.8.8:53", nil); !errors.Is(err, ErrForbidden) {
		t.Fatalf("udp: %v", err)
	}
	if err := (Options{}).Control("tcp4", "8.8.8.8:443", nil); err != nil {
		t.Fatalf("public tcp: %v", err)
	}
}

// The client talks only to a loopback server here: no traffic leaves the host.
func TestHTTPClientGuardsLoopbackAtConnectTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	// "localhost" resolves (via the hosts file) to loopback: the refusal must come from the
	// post-DNS check, since the URL itself names no IP.
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	for _, target := range []string{srv.URL, byName} {
		resp, err := NewHTTPClient(Options{}).Post(target, "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
			t.Fatalf("POST %s without AllowLoopback succeeded", target)
		}
		if !errors.Is(err, ErrForbidden) {
			t.Fatalf("POST %s: %v, want ErrForbidden", target, err)
		}
	}

	client := NewHTTPClient(Options{AllowLoopback: true})
	resp, err := client.Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("POST with AllowLoopback: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("status %d", resp.StatusCode)
	}

	resp, err = client.Post(srv.URL+"/moved", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("POST /moved: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/elsewhere" {
		t.Fatalf("redirect followed or lost: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestHTTPClientSettings(t *testing.T) {
	c := NewHTTPClient(Options{})
	if c.Timeout != DeliveryTimeout || DeliveryTimeout.Seconds() != 15 {
		t.Fatalf("timeout %v", c.Timeout)
	}
	if tr := c.Transport.(*http.Transport); tr.Proxy != nil {
		t.Fatal("a proxy would bypass the guard")
	}
}
