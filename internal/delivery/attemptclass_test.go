package delivery

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/swaprouter/swaprouter/internal/netguard"
)

// dialErr is how net/http reports a failed dial to a receiver.
func dialErr(err error) error {
	return &url.Error{Op: "Post", URL: "https://hooks.partner.example/swap", Err: &net.OpError{Op: "dial", Net: "tcp",
		Addr: &net.TCPAddr{IP: net.ParseIP("10.96.3.7"), Port: 443}, Err: err}}
}

// TestDescribeAttempt: a partner sees a failed attempt as a class, never the error's text
// (resolver addresses, internal IPs, the guard's reasoning).
func TestDescribeAttempt(t *testing.T) {
	forbidden := netguard.CheckAddr(netip.MustParseAddr("10.1.2.3"), netguard.Options{})
	_, badURL := netguard.ValidateURL("ftp://hooks.partner.example/", netguard.Options{})
	for _, tc := range []struct {
		name string
		res  Result
		want string
	}{
		{"HTTP 500", Result{Code: 500}, "HTTP 500"},
		{"HTTP 410", Result{Code: 410}, "HTTP 410"},
		{"redirect", Result{Code: 307}, "redirect not followed (HTTP 307)"},
		{"refused", Result{Err: dialErr(&os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED})}, "connection refused"},
		{"no such host", Result{Err: dialErr(&net.DNSError{Err: "no such host", Name: "hooks.partner.example", Server: "10.96.0.10:53", IsNotFound: true})}, "DNS failure"},
		{"resolver timeout", Result{Err: dialErr(&net.DNSError{Err: "i/o timeout", Name: "hooks.partner.example", Server: "10.96.0.10:53", IsTimeout: true})}, "DNS failure"},
		{"dial timeout", Result{Err: dialErr(os.ErrDeadlineExceeded)}, "timeout"},
		{"client timeout", Result{Err: &url.Error{Op: "Post", URL: "https://h", Err: context.DeadlineExceeded}}, "timeout"},
		{"reset", Result{Err: dialErr(&os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET})}, "connection reset"},
		{"closed early", Result{Err: &url.Error{Op: "Post", URL: "https://h", Err: io.EOF}}, "connection reset"},
		{"unreachable", Result{Err: dialErr(&os.SyscallError{Syscall: "connect", Err: syscall.EHOSTUNREACH})}, "host unreachable"},
		{"network unreachable", Result{Err: dialErr(&os.SyscallError{Syscall: "connect", Err: syscall.ENETUNREACH})}, "host unreachable"},
		{"unknown CA", Result{Err: &url.Error{Op: "Post", URL: "https://h", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}}, "TLS error"},
		{"wrong host", Result{Err: &url.Error{Op: "Post", URL: "https://h", Err: x509.HostnameError{Certificate: &x509.Certificate{}, Host: "10.0.0.9"}}}, "TLS error"},
		{"plain HTTP on 443", Result{Err: &url.Error{Op: "Post", URL: "https://h", Err: tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}}}, "TLS error"},
		{"handshake alert", Result{Err: &url.Error{Op: "Post", URL: "https://h", Err: tls.AlertError(40)}}, "TLS error"},
		{"guard at dial", Result{Err: dialErr(forbidden)}, "destination not allowed"},
		{"guard on the URL", Result{Err: forbidden}, "destination not allowed"},
		{"bad URL", Result{Err: badURL}, "invalid webhook URL"},
		{"signing secret", Result{Err: fmt.Errorf("%w: acme-webhook not found", ErrSigningSecret)}, "signing secret unavailable"},
		{"anything else", Result{Err: errors.New("proxyconnect tcp: 10.0.0.1:3128 said no")}, "connection failed"},
	} {
		got := describe(tc.res)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		for _, leak := range []string{"10.", "hooks.partner.example", ":53", "acme-webhook"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: %q shows %q", tc.name, got, leak)
			}
		}
	}
}
