package node

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/postgres"
	"github.com/swaprouter/swaprouter/internal/testing/node"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// The servers beyond the node's NIC (node.OutsideIP) that a cluster of a user's reaches: the
// order archive's PostgreSQL, a mirror of OFAC's files, and the partner's webhook receiver.
const (
	archivePort  = "5432"
	mirrorPort   = "80"
	receiverPort = "8000"
)

// outside is what the test runs beyond the node: what the README tells a user to provide.
type outside struct {
	archiveDSN   string
	mirrorURL    string
	receiverURL  string
	receiver     *devenv.Receiver
	sanctionsDir string
}

// startOutside starts the servers, each stopped when the test ends.
func startOutside(ctx context.Context, t *testing.T, dir string) (*outside, error) {
	o := &outside{receiver: &devenv.Receiver{}, sanctionsDir: filepath.Join(testenv.RepoRoot(), "internal", "screening", "testdata")}
	log, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = log.Close() })
	pg, stop, err := postgres.StartThrowaway(ctx, log)
	if err != nil {
		return nil, err
	}
	t.Cleanup(stop)
	if _, err := pg.CreateDatabase(ctx, "swaprouter"); err != nil {
		return nil, err
	}
	// The server listens on loopback only (and trusts it): the archive's address is a relay.
	if err := relay(t, net.JoinHostPort(node.OutsideIP, archivePort), pg.Addr); err != nil {
		return nil, err
	}
	o.archiveDSN = "postgres://postgres@" + net.JoinHostPort(node.OutsideIP, archivePort) + "/swaprouter?sslmode=disable"

	// A mirror serving the sample files in OFAC's published format.
	if err := serve(t, net.JoinHostPort(node.OutsideIP, mirrorPort), http.FileServer(http.Dir(o.sanctionsDir))); err != nil {
		return nil, err
	}
	o.mirrorURL = "http://" + net.JoinHostPort(node.OutsideIP, mirrorPort)

	// The partner's receiver verifies every delivery's signature (Standard Webhooks).
	if err := serve(t, net.JoinHostPort(node.OutsideIP, receiverPort), o.receiver); err != nil {
		return nil, err
	}
	o.receiverURL = "http://" + net.JoinHostPort(node.OutsideIP, receiverPort) + "/webhooks"
	return o, nil
}

func serve(t *testing.T, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return nil
}

// relay accepts connections on addr and joins each to a connection to target.
func relay(t *testing.T, addr, target string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				continue
			}
			go func() {
				defer in.Close()
				out, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in); _ = out.(*net.TCPConn).CloseWrite() }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
	return nil
}
