// Package redis runs a local Redis server (Debian's redis-server package) through localproc,
// without persistence: the rate-limit suites start a throw-away one, and stop it mid-run to
// prove the frontend keeps answering.
package redis

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/swaprouter/swaprouter/internal/dev/localproc"
)

// Server is a running redis-server.
type Server struct {
	*localproc.Proc
	spec localproc.Spec
}

// URL is the server's redis:// URL (database 0).
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// StartThrowaway runs a fresh server (as the unprivileged `redis` user when we are root) in a
// new temporary folder and returns once it answers PING; stop ends it and removes the folder.
func StartThrowaway(ctx context.Context, log io.Writer) (s *Server, stop func(), err error) {
	bin, err := localproc.FindExecutable("redis-server", "/usr/bin", "/usr/local/bin")
	if err != nil {
		return nil, nil, fmt.Errorf("Redis is not installed (make tools installs Debian's redis-server): %w", err)
	}
	dir, remove, err := localproc.ThrowawayDir("swaprouter-redis-")
	if err != nil {
		return nil, nil, err
	}
	spec := localproc.Spec{
		Name:    "redis",
		DataDir: dir,
		User:    "redis",
		Log:     log,
		Command: func(port int) (string, []string) {
			return bin, []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
				"--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no"}
		},
		Ready: func(ctx context.Context, addr string) error {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			c := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
			defer c.Close()
			return c.Ping(ctx).Err()
		},
	}
	p, err := localproc.Start(ctx, spec)
	if err != nil {
		remove()
		return nil, nil, err
	}
	s = &Server{Proc: p, spec: spec}
	return s, func() { s.Stop(); remove() }, nil
}

// Restart starts the server again on the same port after Stop, empty (no persistence), as a
// Redis pod replaced by its Deployment comes back: clients that kept the URL reconnect.
func (s *Server) Restart(ctx context.Context) error {
	p, err := localproc.Start(ctx, s.spec)
	if err != nil {
		return err
	}
	if p.Addr != s.Addr {
		p.Stop()
		return fmt.Errorf("restarted on %s, not %s: the port was taken meanwhile", p.Addr, s.Addr)
	}
	s.Proc = p
	return nil
}
