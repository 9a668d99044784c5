// Package localproc runs a local server as a child process for `make run` and the tests: on a
// free loopback port, with its own data folder, waited on until it answers, stopped when its
// context ends and reused across runs (the data folder keeps the port it last had and the
// pid of a process a crashed run left behind, which is stopped before a new one starts).
// It knows nothing about any particular server: PostgreSQL today, Redis or Chromium later
// describe themselves with a Spec.
package localproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Spec describes one server.
type Spec struct {
	// Name labels log lines and errors ("postgres").
	Name string
	// DataDir is the server's folder; created when missing.
	DataDir string
	// Command returns the executable and arguments to serve on 127.0.0.1:port.
	Command func(port int) (path string, args []string)
	// Init, when set, runs once before the first start of a fresh DataDir (e.g. initdb). It
	// must leave DataDir initialised only on success; Initialized tells whether it ran before.
	Init func(ctx context.Context, run Runner) error
	// Initialized reports whether DataDir already holds an initialised server.
	Initialized func() bool
	// Ready reports nil once the server answers on addr.
	Ready func(ctx context.Context, addr string) error
	// User, when set and this process runs as root, runs the server (and Init) as that user:
	// servers like PostgreSQL refuse to run as root.
	User string
	// StopSignal ends the server gracefully (SIGTERM when zero); after StopGrace (10 s when
	// zero) it is killed.
	StopSignal syscall.Signal
	StopGrace  time.Duration
	// StartTimeout bounds the wait for Ready (60 s when zero).
	StartTimeout time.Duration
	// Log receives the server's output; discarded when nil.
	Log io.Writer
}

// Runner runs a helper command (as Spec.User when that applies) and returns its error with
// its output attached.
type Runner func(ctx context.Context, path string, args ...string) error

// Proc is a running server.
type Proc struct {
	// Addr is host:port on 127.0.0.1.
	Addr string
	// Port is Addr's port.
	Port int

	spec Spec
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

const (
	portFile = "localproc.port"
	pidFile  = "localproc.pid"
)

// Start runs the server described by s and returns once it is ready. The server ends when ctx
// ends or Stop is called.
func Start(ctx context.Context, s Spec) (*Proc, error) {
	if s.StopSignal == 0 {
		s.StopSignal = syscall.SIGTERM
	}
	if s.StopGrace <= 0 {
		s.StopGrace = 10 * time.Second
	}
	if s.StartTimeout <= 0 {
		s.StartTimeout = time.Minute
	}
	if s.Log == nil {
		s.Log = io.Discard
	}
	cred, err := credential(s.User)
	if err != nil {
		return nil, err
	}
	if err := prepareDir(s.DataDir, cred); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	stopStale(s.DataDir, s.StopGrace)
	if s.Init != nil && (s.Initialized == nil || !s.Initialized()) {
		if err := s.Init(ctx, runner(cred, s.DataDir)); err != nil {
			return nil, fmt.Errorf("%s: initialising %s: %w", s.Name, s.DataDir, err)
		}
	}
	port, err := pickPort(s.DataDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	path, args := s.Command(port)
	cmd := exec.Command(path, args...)
	cmd.Dir = s.DataDir
	cmd.Stdout, cmd.Stderr = s.Log, s.Log
	// Own process group: a terminal's Ctrl-C reaches us, and we stop the server in order.
	// Pdeathsig ends it with us if we die without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: cred}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: starting %s: %w", s.Name, path, err)
	}
	p := &Proc{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Port: port, spec: s, cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	_ = os.WriteFile(filepath.Join(s.DataDir, pidFile), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	_ = os.WriteFile(filepath.Join(s.DataDir, portFile), []byte(strconv.Itoa(port)), 0o644)

	if err := p.waitReady(ctx); err != nil {
		p.Stop()
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	go func() {
		select {
		case <-ctx.Done():
			p.Stop()
		case <-p.done:
		}
	}()
	return p, nil
}

func (p *Proc) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, p.spec.StartTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		select {
		case <-p.done:
			return fmt.Errorf("exited before it was ready: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s: %v", p.spec.StartTimeout, last)
		case <-tick.C:
			if last = p.spec.Ready(ctx, p.Addr); last == nil {
				return nil
			}
		}
	}
}

// Stop ends the server gracefully (StopSignal, then SIGKILL after StopGrace) and waits for it.
// Calling it again is harmless.
func (p *Proc) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(p.spec.StopSignal)
	select {
	case <-p.done:
	case <-time.After(p.spec.StopGrace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	// Helpers the server started in its group (Chromium's zygote and renderers) must not
	// outlive it; PostgreSQL's have ended before it does, so this finds none.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = os.Remove(filepath.Join(p.spec.DataDir, pidFile))
}

// DataDir is the server's folder.
func (p *Proc) DataDir() string { return p.spec.DataDir }

// Done is closed when the server has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// credential is who the server runs as: s.User when this process is root, else ourselves.
func credential(name string) (*syscall.Credential, error) {
	if name == "" || os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("running as root needs the user %q to run the server as: %w", name, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// prepareDir creates dir and, when the server runs as another user, hands it over and checks
// that user can reach it: a checkout in a root-only folder (/root/src/...) cannot host it.
func prepareDir(dir string, cred *syscall.Credential) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if cred == nil {
		return nil
	}
	if err := filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(cred.Uid), int(cred.Gid))
	}); err != nil {
		return fmt.Errorf("handing %s to uid %d: %w", dir, cred.Uid, err)
	}
	return Reachable(filepath.Dir(dir), cred.Uid, cred.Gid)
}

// Reachable reports an error naming the first folder on the way to dir that uid (group gid)
// may not traverse.
func Reachable(dir string, uid, gid uint32) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := abs; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		mode := fi.Mode().Perm()
		if ok {
			traversable := mode&0o001 != 0 ||
				(st.Gid == gid && mode&0o010 != 0) ||
				(st.Uid == uid && mode&0o100 != 0)
			if !traversable {
				return fmt.Errorf("uid %d cannot enter %s (mode %v); use a data folder it can reach", uid, d, mode)
			}
		}
		if d == "/" {
			return nil
		}
	}
}

// runner runs helper commands as cred in dir.
func runner(cred *syscall.Credential, dir string) Runner {
	return func(ctx context.Context, path string, args ...string) error {
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %w: %s", filepath.Base(path), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
}

// stopStale ends a server an earlier run of this data folder left behind (it would hold the
// folder's lock), identified by the pid file and still running the same executable path.
func stopStale(dir string, grace time.Duration) {
	b, err := os.ReadFile(filepath.Join(dir, pidFile))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 || !alive(pid) || !usesDir(pid, dir) {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	// A zombie (state Z) has exited already.
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// usesDir reports whether pid runs in dir (its working folder), so a reused pid of an
// unrelated process is never signalled.
func usesDir(pid int, dir string) bool {
	cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
	abs, _ := filepath.Abs(dir)
	return err == nil && cwd == abs
}

// pickPort returns the port the data folder last used when it is free again (clients that
// kept a DSN keep working), else a free loopback port.
func pickPort(dir string) (int, error) {
	if b, err := os.ReadFile(filepath.Join(dir, portFile)); err == nil {
		if port, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && portFree(port) {
			return port, nil
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func portFree(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// ErrNotFound is returned by FindExecutable when no candidate exists.
var ErrNotFound = errors.New("executable not found")

// FindExecutable returns the first executable name found in the folders matching the glob
// patterns (newest version first: patterns are sorted in reverse) or on PATH.
func FindExecutable(name string, globs ...string) (string, error) {
	for _, g := range globs {
		dirs, _ := filepath.Glob(g)
		sortVersionsDesc(dirs)
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s: %w (looked in %s and PATH)", name, ErrNotFound, strings.Join(globs, ", "))
}

// sortVersionsDesc orders paths by the numbers in them, highest first, so
// /usr/lib/postgresql/17/bin comes before .../15/bin and .../9.6/bin.
func sortVersionsDesc(paths []string) {
	slices.SortFunc(paths, func(a, b string) int { return -compareVersions(numbers(a), numbers(b)) })
}

func numbers(s string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

func compareVersions(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] - b[i]
		}
	}
	return len(a) - len(b)
}

// ThrowawayDir makes a fresh temporary folder for a test server's DataDir (a "data" folder
// inside it) and returns remove. The parent is traversable (not readable) for others, so a
// server running as Spec.User can reach its data folder when we run as root.
func ThrowawayDir(prefix string) (dataDir string, remove func(), err error) {
	parent, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	if err := os.Chmod(parent, 0o711); err != nil {
		_ = os.RemoveAll(parent)
		return "", nil, err
	}
	return filepath.Join(parent, "data"), func() { _ = os.RemoveAll(parent) }, nil
}
