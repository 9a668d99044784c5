package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupMount is where this machine mounts its cgroup v1 hierarchies.
const cgroupMount = "/sys/fs/cgroup"

// cgroupRootName is the node's cgroup root: named after its network namespace, which is unique
// among the live ones, so that nodes of suites running beside it keep apart.
func cgroupRootName() (string, error) {
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return "", err
	}
	id := strings.Trim(strings.TrimPrefix(ns, "net:"), "[]")
	return "/swaprouter-test-node-" + id, nil
}

// hierarchies are the mounted cgroup hierarchies' directories.
func hierarchies() []string {
	entries, _ := os.ReadDir(cgroupMount)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(cgroupMount, e.Name()))
		}
	}
	return dirs
}

// makeCgroupRoot creates the root in every hierarchy (the kubelet wants it to exist); a new
// cpuset cgroup has no CPUs or memory nodes until given its parent's.
func (n *Node) makeCgroupRoot() error {
	for _, h := range hierarchies() {
		dir := filepath.Join(h, n.cgroupRoot)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			parent, err := os.ReadFile(filepath.Join(h, f))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, f), parent, 0o644); err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(dir, f), err)
			}
		}
	}
	return nil
}

// cgroupDirs are the cgroups under root in every hierarchy, deepest first.
func cgroupDirs(root string) []string {
	var dirs []string
	for _, h := range hierarchies() {
		_ = filepath.WalkDir(filepath.Join(h, root), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return dirs
}

// killCgroupTree kills every process in the cgroups under root: the node's containers.
func killCgroupTree(root string) {
	for _, dir := range cgroupDirs(root) {
		procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(procs)) {
			if pid, err := strconv.Atoi(field); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// removeCgroupTree removes the cgroups under root once their killed processes are gone.
func removeCgroupTree(root string) {
	deadline := time.Now().Add(30 * time.Second)
	for _, dir := range cgroupDirs(root) {
		for os.Remove(dir) != nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
	}
}
