package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A stopped server comes back on the same port with its data: what the archive suites rely
// on when they stop PostgreSQL mid-run, and `make run` across runs.
func TestStopRestartKeepsPortAndData(t *testing.T) {
	ctx := context.Background()
	s, stop, err := StartThrowaway(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dsn, err := s.CreateDatabase(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	exec(t, dsn, "CREATE TABLE t (v int); INSERT INTO t VALUES (42)")

	s.Stop()
	if _, err := pgx.Connect(ctx, dsn); err == nil {
		t.Fatal("connected to a stopped server")
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, "SELECT v FROM t").Scan(&v); err != nil || v != 42 {
		t.Fatalf("after restart: v=%d err=%v", v, err)
	}
}

func exec(t *testing.T, dsn, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
}
