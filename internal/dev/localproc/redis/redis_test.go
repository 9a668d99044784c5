package redis

import (
	"context"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// A stopped server comes back on the same port: what the topology rig relies on when it
// restarts Redis under the frontends, whose clients keep the URL.
func TestStopRestartKeepsPort(t *testing.T) {
	ctx := context.Background()
	s, stop, err := StartThrowaway(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr, MaxRetries: -1, DialTimeout: time.Second})
	defer func() { _ = c.Close() }()

	s.Stop()
	if err := c.Ping(ctx).Err(); err == nil {
		t.Fatal("a stopped server answered")
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("the same client after restart: %v", err)
	}
}
