// Package postgres runs a local PostgreSQL server (Debian's postgresql package) through
// localproc: `swaprouter-dev` keeps one under .swaprouter/postgres, the archive suites start a
// throw-away one per suite.
package postgres

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swaprouter/swaprouter/internal/dev/localproc"
)

// binGlobs is where Debian puts the server binaries (one folder per major version); they
// are not on PATH.
var binGlobs = []string{"/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin"}

// Options configure Start.
type Options struct {
	// DataDir is the cluster's folder; initdb runs when it holds no cluster yet.
	DataDir string
	// Throwaway trades durability for speed (fsync off): for test servers only.
	Throwaway bool
	// Log receives the server's output.
	Log io.Writer
}

// Server is a running PostgreSQL.
type Server struct {
	*localproc.Proc
	opts Options
}

// Start runs (and on first use initialises) the server, as the unprivileged `postgres` user
// when we are root, and returns once it accepts connections.
func Start(ctx context.Context, o Options) (*Server, error) {
	initdb, err := localproc.FindExecutable("initdb", binGlobs...)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL is not installed (make tools installs Debian's postgresql): %w", err)
	}
	server := filepath.Join(filepath.Dir(initdb), "postgres")
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, err
	}
	p, err := localproc.Start(ctx, localproc.Spec{
		Name:    "postgres",
		DataDir: dir,
		User:    "postgres",
		Log:     o.Log,
		Initialized: func() bool {
			_, err := os.Stat(filepath.Join(dir, "PG_VERSION"))
			return err == nil
		},
		Init: func(ctx context.Context, run localproc.Runner) error {
			return run(ctx, initdb, "-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync")
		},
		Command: func(port int) (string, []string) {
			args := []string{"-D", dir, "-p", strconv.Itoa(port),
				"-c", "listen_addresses=127.0.0.1",
				// TCP only: a socket path under a deep data folder can exceed the 107-byte limit.
				"-c", "unix_socket_directories=",
				"-c", "max_connections=200"}
			if o.Throwaway {
				args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
			}
			return server, args
		},
		Ready: func(ctx context.Context, addr string) error {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			conn, err := pgx.Connect(ctx, "postgres://postgres@"+addr+"/postgres?sslmode=disable")
			if err != nil {
				return err
			}
			return conn.Close(ctx)
		},
		// SIGINT is PostgreSQL's fast shutdown: SIGTERM would wait for every client to leave.
		StopSignal: syscall.SIGINT,
	})
	if err != nil {
		return nil, err
	}
	o.DataDir = dir
	return &Server{Proc: p, opts: o}, nil
}

// DSN is the connection string of database db (trust authentication on loopback).
func (s *Server) DSN(db string) string { return s.dsnAs("postgres", db) }

func (s *Server) dsnAs(role, db string) string {
	return "postgres://" + role + "@" + s.Addr + "/" + db + "?sslmode=disable"
}

// CreateReader creates role (unless it exists), lets it read every table of db's public
// schema and nothing else, as operators set up a read-only user, and returns its DSN for db.
func (s *Server) CreateReader(ctx context.Context, db, role string) (string, error) {
	conn, err := pgx.Connect(ctx, s.DSN(db))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	r := pgx.Identifier{role}.Sanitize()
	for _, sql := range []string{
		"DO $$ BEGIN CREATE ROLE " + r + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		"GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + r,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return "", fmt.Errorf("creating the read-only role %s: %w", role, err)
		}
	}
	return s.dsnAs(role, db), nil
}

// CreateDatabase creates db unless it exists and returns its DSN.
func (s *Server) CreateDatabase(ctx context.Context, db string) (string, error) {
	conn, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		return "", err
	}
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
			return "", fmt.Errorf("creating database %s: %w", db, err)
		}
	}
	return s.DSN(db), nil
}

// StartThrowaway runs a fresh fast server in a new temporary folder, for tests; stop removes
// it.
func StartThrowaway(ctx context.Context, log io.Writer) (s *Server, stop func(), err error) {
	dir, remove, err := localproc.ThrowawayDir("swaprouter-pg-")
	if err != nil {
		return nil, nil, err
	}
	s, err = Start(ctx, Options{DataDir: dir, Throwaway: true, Log: log})
	if err != nil {
		remove()
		return nil, nil, err
	}
	return s, func() { s.Stop(); remove() }, nil
}

// Restart starts the server again with its options (same data folder, same durability) on
// the same port after Stop, as an operator bringing a database back would.
func (s *Server) Restart(ctx context.Context) error {
	again, err := Start(ctx, s.opts)
	if err != nil {
		return err
	}
	if again.Addr != s.Addr {
		again.Stop()
		return fmt.Errorf("restarted on %s, not %s: the port was taken meanwhile", again.Addr, s.Addr)
	}
	s.Proc = again.Proc
	return nil
}
