package node

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// imageUser is the uid swaprouter's image runs as (hack/image), unless a Pod says otherwise.
const imageUser = 65532

// procStatus reads /proc/<pid>/status as field → value.
func procStatus(pid int) (map[string]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out, nil
}

// rootMountOptions are the mount options of the process's root file system.
func rootMountOptions(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 5 && f[4] == "/" {
			return strings.Split(f[5], ","), nil
		}
	}
	return nil, fmt.Errorf("process %d has no root mount", pid)
}

// memoryLimit is the memory limit of the process's cgroup (cgroup v1's memory controller or
// v2's memory.max).
func memoryLimit(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		file := ""
		switch {
		case f[1] == "memory":
			file = filepath.Join("/sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes")
		case f[0] == "0" && f[1] == "":
			file = filepath.Join("/sys/fs/cgroup", f[2], "memory.max")
		default:
			continue
		}
		limit, err := os.ReadFile(file)
		return strings.TrimSpace(string(limit)), err
	}
	return "", fmt.Errorf("process %d is in no memory cgroup", pid)
}

// runsAsSpecified says how a container's process differs from what its Pod spec asks ("" when
// it does not): its user, no capabilities, no privilege escalation, the runtime's seccomp
// filter, a read-only root and its memory limit.
func runsAsSpecified(pid int, pod corev1.Pod, c corev1.Container) (string, error) {
	status, err := procStatus(pid)
	if err != nil {
		return "", err
	}
	root, err := rootMountOptions(pid)
	if err != nil {
		return "", err
	}
	limit, err := memoryLimit(pid)
	if err != nil {
		return "", err
	}
	uid := int64(imageUser)
	if sc := pod.Spec.SecurityContext; sc != nil && sc.RunAsUser != nil {
		uid = *sc.RunAsUser
	}
	if sc := c.SecurityContext; sc != nil && sc.RunAsUser != nil {
		uid = *sc.RunAsUser
	}
	var wrong []string
	for field, want := range map[string]string{
		"Uid":        fmt.Sprintf("%[1]d\t%[1]d\t%[1]d\t%[1]d", uid),
		"CapEff":     "0000000000000000",
		"CapBnd":     "0000000000000000",
		"NoNewPrivs": "1",
		"Seccomp":    "2",
	} {
		if status[field] != want {
			wrong = append(wrong, fmt.Sprintf("%s is %q, want %q", field, status[field], want))
		}
	}
	if !strings.Contains(","+strings.Join(root, ",")+",", ",ro,") {
		wrong = append(wrong, fmt.Sprintf("the root is mounted %v, want ro", root))
	}
	if want := fmt.Sprint(c.Resources.Limits.Memory().Value()); limit != want {
		wrong = append(wrong, fmt.Sprintf("the memory limit is %s, want %s", limit, want))
	}
	return strings.Join(wrong, "; "), nil
}
