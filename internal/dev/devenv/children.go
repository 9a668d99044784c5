package devenv

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// envtest starts etcd and kube-apiserver in their own process groups (so a terminal's Ctrl-C
// does not reach them) and without a parent-death signal: if swaprouter dies without running
// its cleanup they live on and keep the etcd data folder locked. These helpers make sure a
// run's control plane ends with it, or at the latest with the next run.

// controlPlaneNames are the executables envtest starts.
var controlPlaneNames = map[string]bool{"etcd": true, "kube-apiserver": true}

// process is one entry of /proc.
type process struct {
	pid, ppid int
	comm      string
	args      []string
}

// processes lists the etcd and kube-apiserver processes of the machine.
func processes() []process {
	entries, _ := os.ReadDir("/proc")
	var out []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// stat is "pid (comm) state ppid ...": comm may hold spaces, so split after ')'.
		open, close := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || close < open {
			continue
		}
		comm := string(stat[open+1 : close])
		fields := strings.Fields(string(stat[close+1:]))
		if !controlPlaneNames[comm] || len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, process{pid: pid, ppid: ppid, comm: comm, args: strings.Split(string(cmdline), "\x00")})
	}
	return out
}

// flag returns the value of --name=value in args.
func (p process) flag(name string) string {
	for _, a := range p.args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// childControlPlane lists this process's etcd and kube-apiserver children.
func childControlPlane() []int {
	var pids []int
	for _, p := range processes() {
		if p.ppid == os.Getpid() {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// reapStale ends a control plane an earlier run of this data folder left behind: the etcd
// serving etcdDir (it holds the folder's lock, so a new one could not start) and every
// kube-apiserver talking to it.
func reapStale(etcdDir string, out io.Writer) {
	all := processes()
	var stale []int
	for _, etcd := range all {
		if etcd.comm != "etcd" || etcd.flag("data-dir") != etcdDir {
			continue
		}
		stale = append(stale, etcd.pid)
		for _, api := range all {
			if api.comm == "kube-apiserver" && api.flag("etcd-servers") == etcd.flag("listen-client-urls") {
				stale = append(stale, api.pid)
			}
		}
	}
	if len(stale) > 0 {
		fmt.Fprintf(out, "Stopping %d control-plane process(es) an earlier run left behind: %v\n", len(stale), stale)
		terminate(stale, 10*time.Second)
	}
}

// isControlPlane reports whether pid is a live etcd or kube-apiserver (pids are reused).
func isControlPlane(pid int) bool {
	comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return err == nil && controlPlaneNames[strings.TrimSpace(string(comm))]
}

// terminate sends SIGTERM, waits up to grace for the processes to go, then SIGKILLs the rest.
func terminate(pids []int, grace time.Duration) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		alive := false
		for _, pid := range pids {
			alive = alive || isControlPlane(pid)
		}
		if !alive {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, pid := range pids {
		if isControlPlane(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// KillControlPlane ends this process's etcd and kube-apiserver at once; for a second Ctrl-C,
// when there is no time for an orderly stop.
func KillControlPlane() { terminate(childControlPlane(), 2*time.Second) }
