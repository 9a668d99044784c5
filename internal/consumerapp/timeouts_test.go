package consumerapp

import (
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// A client that sends a request's headers and never its body cannot hold the connection: the
// server's read timeout ends it, as /v1's does.
func TestSlowClientIsCutOff(t *testing.T) {
	s := newTestServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = s.Serve(ctx, ln) }()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /api/rates HTTP/1.1\r\nHost: app\r\nContent-Length: 100\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// A bound far above the read timeout: only a server without one keeps the line open.
	_ = conn.SetReadDeadline(time.Now().Add(4 * readTimeout))
	if _, err := io.Copy(io.Discard, conn); err != nil { // nil: the server answered and closed it
		t.Errorf("the server kept a client that never sent its body (%v); want it closed", err)
	}
}
