package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where the run happened.
type Machine struct {
	CPUModel  string `json:"cpuModel"`
	CPUs      int    `json:"nproc"`
	MemoryMiB int64  `json:"memoryMiB"`
	Kernel    string `json:"kernel,omitempty"`
	GoVersion string `json:"goVersion"`
}

func (m Machine) String() string {
	return fmt.Sprintf("%s × %d CPUs (nproc), %d MiB memory, Linux %s, %s",
		m.CPUModel, m.CPUs, m.MemoryMiB, m.Kernel, m.GoVersion)
}

// DescribeMachine reads /proc/cpuinfo, /proc/meminfo and the usable CPU count.
func DescribeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), CPUModel: "unknown CPU"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(b)
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemoryMiB = memTotalMiB(b)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

func cpuModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func memTotalMiB(meminfo []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb / 1024
		}
	}
	return 0
}

// Commit is `git rev-parse HEAD` of the working directory, with "-dirty" when the tree has
// uncommitted changes to tracked files, or "unknown".
func Commit() string {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if exec.Command("git", "diff", "--quiet", "HEAD", "--").Run() != nil {
		c += "-dirty"
	}
	return c
}
