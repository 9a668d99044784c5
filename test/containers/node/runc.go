package node

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// Runc runs containers with runc, its state under Root.
type Runc struct{ Root string }

// Container is one running container.
type Container struct {
	ID     string
	runc   Runc
	cmd    *exec.Cmd
	exited chan struct{}

	mu       sync.Mutex
	exitCode int
}

// Run writes spec into bundle (whose rootfs is already there) and runs the container in the
// foreground of a `runc run`, its output appended to logPath.
func (r Runc) Run(id, bundle string, spec *specs.Spec, logPath string) (*Container, error) {
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(bundle, "config.json"), b, 0o600); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer func() { _ = log.Close() }()
	cmd := exec.Command("runc", "--root", r.Root, "run", "--bundle", bundle, id)
	cmd.Stdout, cmd.Stderr = log, log
	// runc's own signals are not the container's: the kubelet signals through `runc kill`.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &Container{ID: id, runc: r, cmd: cmd, exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		c.mu.Lock()
		c.exitCode = cmd.ProcessState.ExitCode()
		if err != nil && c.exitCode == 0 {
			c.exitCode = -1
		}
		c.mu.Unlock()
		close(c.exited)
	}()
	return c, nil
}

// Signal sends sig to the container's process.
func (c *Container) Signal(sig syscall.Signal) error {
	out, err := exec.Command("runc", "--root", c.runc.Root, "kill", c.ID, fmt.Sprint(int(sig))).CombinedOutput()
	if err != nil {
		return fmt.Errorf("runc kill %s %d: %w: %s", c.ID, sig, err, out)
	}
	return nil
}

// Exited is closed when the container's process has ended.
func (c *Container) Exited() <-chan struct{} { return c.exited }

// ExitCode is the process's exit status once Exited is closed (128+n for signal n).
func (c *Container) ExitCode() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitCode
}

// Remove kills the container if it still runs and deletes its state and cgroup.
func (c *Container) Remove() {
	select {
	case <-c.exited:
	default:
		_ = c.Signal(syscall.SIGKILL)
		<-c.exited
	}
	_ = exec.Command("runc", "--root", c.runc.Root, "delete", "--force", c.ID).Run()
}

// Pid is the container's process as the machine sees it.
func (c *Container) Pid() (int, error) {
	out, err := exec.Command("runc", "--root", c.runc.Root, "state", c.ID).Output()
	if err != nil {
		return 0, fmt.Errorf("runc state %s: %w", c.ID, err)
	}
	var state struct {
		Pid int `json:"pid"`
	}
	return state.Pid, json.Unmarshal(out, &state)
}

// cgroupPrefix starts the name of each test run's cgroup, under which its containers' are.
const cgroupPrefix = "swaprouter-node-"

// NewCgroupParent returns this run's cgroup for the containers, after ending the containers
// of earlier runs whose test process died without removing them (killed on a timeout).
func NewCgroupParent() string {
	hierarchies, _ := filepath.Glob("/sys/fs/cgroup/*/" + cgroupPrefix + "*")
	for _, parent := range hierarchies {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(parent), cgroupPrefix))
		if err != nil || syscall.Kill(pid, 0) == nil {
			continue
		}
		leaves, _ := filepath.Glob(filepath.Join(parent, "*", "cgroup.procs"))
		for _, procs := range leaves {
			b, _ := os.ReadFile(procs)
			for _, f := range strings.Fields(string(b)) {
				if p, err := strconv.Atoi(f); err == nil {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			}
			_ = os.Remove(filepath.Dir(procs))
		}
		_ = os.Remove(parent)
	}
	return "/" + cgroupPrefix + strconv.Itoa(os.Getpid())
}

// RemoveCgroupParent removes parent (from NewCgroupParent) once its containers are gone.
func RemoveCgroupParent(parent string) {
	dirs, _ := filepath.Glob("/sys/fs/cgroup/*" + parent)
	for _, d := range dirs {
		_ = os.Remove(d)
	}
}
