package topology

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// proc is one OS process of the topology, supervised as a kubelet supervises a container:
// when it exits (killed, crashed, stepped down) it is started again with the same command,
// until the rig stops it. It runs in its own process group, and Pdeathsig ends it with the
// test binary even when the test dies without cleaning up.
type proc struct {
	name    string
	args    []string
	env     []string
	logPath string

	mu       sync.Mutex
	path     string
	cmd      *exec.Cmd
	exited   chan struct{} // closed when the current incarnation ends
	stopping bool
	held     bool // exits are not restarted while held (a rolling restart swaps the binary)
	starts   int
	done     chan struct{} // closed when supervision ends
}

func newProc(name, path string, args, env []string, logPath string) *proc {
	return &proc{name: name, path: path, args: args, env: env, logPath: logPath, done: make(chan struct{})}
}

// start runs the first incarnation and supervises it.
func (p *proc) start() error {
	if err := p.spawn(); err != nil {
		return err
	}
	go p.supervise()
	return nil
}

func (p *proc) spawn() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer func() { _ = log.Close() }()
	fmt.Fprintf(log, "=== %s start #%d %s\n", time.Now().Format(time.RFC3339Nano), p.starts+1, p.path)
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	p.cmd, p.exited = cmd, make(chan struct{})
	p.starts++
	go func(cmd *exec.Cmd, exited chan struct{}) {
		_ = cmd.Wait()
		close(exited)
	}(cmd, p.exited)
	return nil
}

// supervise restarts the process after each exit, with a short back-off, until stop.
func (p *proc) supervise() {
	defer close(p.done)
	for {
		p.mu.Lock()
		exited := p.exited
		p.mu.Unlock()
		<-exited
		for {
			p.mu.Lock()
			stopping, held := p.stopping, p.held
			p.mu.Unlock()
			if stopping {
				return
			}
			if !held {
				break
			}
			time.Sleep(50 * time.Millisecond) // a rolling restart is building its binary
		}
		time.Sleep(200 * time.Millisecond) // the kubelet's restart back-off, much shortened
		if err := p.spawn(); err != nil {
			return
		}
	}
}

// signal sends sig to the current incarnation's process group.
func (p *proc) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return errors.New(p.name + " not started")
	}
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// pid is the current incarnation's process id.
func (p *proc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Pid
}

// current returns the channel closed when the current incarnation exits.
func (p *proc) current() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

// replace ends the current incarnation gracefully (SIGTERM, as a rolling update does) and
// starts path instead.
func (p *proc) replace(path string) {
	p.mu.Lock()
	p.held = true
	p.mu.Unlock()
	exited := p.current()
	_ = p.signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(45 * time.Second): // terminationGracePeriodSeconds
		_ = p.signal(syscall.SIGKILL)
		<-exited
	}
	p.mu.Lock()
	p.path, p.held = path, false
	p.mu.Unlock()
}

// stop ends supervision and the process: SIGCONT (it may be paused), SIGTERM, then SIGKILL.
func (p *proc) stop() {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	exited := p.current()
	_ = p.signal(syscall.SIGCONT)
	_ = p.signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = p.signal(syscall.SIGKILL)
		<-exited
	}
	<-p.done
}
