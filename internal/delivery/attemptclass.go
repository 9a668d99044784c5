package delivery

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/swaprouter/swaprouter/internal/netguard"
)

// ErrSigningSecret is wrapped by every error about the partner's webhook signing Secret
// (missing, no such key, not a usable secret).
var ErrSigningSecret = errors.New("webhook signing secret unavailable")

// describe is what the partner sees of a failed attempt (status.attempts[].error): the HTTP
// status, or the class of the error that kept a response from coming, never the error's own
// text, which can carry resolver and internal addresses or the guard's reasoning. Short and
// stable (no timestamps or request ids). Operators find the error itself in the log and the
// attempt's Event.
func describe(res Result) string {
	switch {
	case res.Err != nil:
		return classify(res.Err)
	case res.Code >= 300 && res.Code < 400:
		return fmt.Sprintf("redirect not followed (HTTP %d)", res.Code)
	default:
		return fmt.Sprintf("HTTP %d", res.Code)
	}
}

// classify names the class of an error that kept an attempt from getting a response.
func classify(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, netguard.ErrForbidden):
		return "destination not allowed"
	case errors.Is(err, netguard.ErrInvalidURL):
		return "invalid webhook URL"
	case errors.Is(err, ErrSigningSecret):
		return "signing secret unavailable"
	case errors.As(err, &dns):
		return "DNS failure"
	case timedOut(err):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case tlsFailure(err):
		return "TLS error"
	}
	return "connection failed"
}

func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout()
}

func tlsFailure(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
		alert    tls.AlertError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &record) || errors.As(err, &alert) ||
		errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid)
}
