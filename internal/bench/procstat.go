package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of the CPU times in /proc/<pid>/stat (100 on Linux).
const clockTick = 100

// ProcStat is a process's accumulated CPU time and resident memory at one moment.
type ProcStat struct {
	At  time.Time
	CPU time.Duration
	RSS int64 // bytes
	// RSSAnon is the anonymous part of RSS (heap, stacks, runtime): RSS less the pages of
	// the executable and other mapped files, which grow as code first runs, not with data.
	RSSAnon int64 // bytes
}

// ReadProc samples /proc/<pid>/stat and /proc/<pid>/status ("self" for this process).
func ReadProc(pid string) (ProcStat, error) {
	st := ProcStat{At: time.Now()}
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return st, err
	}
	cpu, _, _, err := parseStat(b)
	if err != nil {
		return st, err
	}
	st.CPU = cpu
	if b, err := os.ReadFile(filepath.Join("/proc", pid, "status")); err == nil {
		st.RSS, st.RSSAnon = statusBytes(b, "VmRSS"), statusBytes(b, "RssAnon")
	}
	return st, nil
}

// parseStat reads utime+stime, the parent pid and the command name of a /proc/<pid>/stat
// line. The command is in parentheses and may itself contain spaces and parentheses.
func parseStat(b []byte) (cpu time.Duration, ppid int, comm string, err error) {
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return 0, 0, "", fmt.Errorf("malformed stat line")
	}
	comm = string(b[open+1 : closing])
	f := strings.Fields(string(b[closing+1:]))
	// f[0] is field 3 (state); ppid is field 4, utime 14, stime 15.
	if len(f) < 13 {
		return 0, 0, "", fmt.Errorf("short stat line")
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	stt, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, "", fmt.Errorf("bad cpu times")
	}
	return time.Duration(ut+stt) * time.Second / clockTick, ppid, comm, nil
}

// statusBytes reads a "<field>: <n> kB" line of /proc/<pid>/status.
func statusBytes(status []byte, field string) int64 {
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// Children returns the pids and command names of this process's direct children (the
// envtest kube-apiserver and etcd).
func Children() map[string]string {
	out := map[string]string{}
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if _, ppid, comm, err := parseStat(b); err == nil && ppid == self {
			out[e.Name()] = comm
		}
	}
	return out
}

// CPUMeter measures CPU cores used by this process and its children over a window.
type CPUMeter struct {
	self     ProcStat
	children map[string]ProcStat
	names    map[string]string
}

// StartCPU takes the first sample.
func StartCPU() *CPUMeter {
	m := &CPUMeter{children: map[string]ProcStat{}, names: Children()}
	m.self, _ = ReadProc("self")
	for pid := range m.names {
		if st, err := ReadProc(pid); err == nil {
			m.children[pid] = st
		}
	}
	return m
}

// Usage is CPU cores used over a window: this process, and each child by command name.
type Usage struct {
	Window   time.Duration
	Self     float64
	Children map[string]float64
	RSS      int64
}

// Stop takes the second sample and returns the cores used in between.
func (m *CPUMeter) Stop() Usage {
	now, _ := ReadProc("self")
	u := Usage{Window: now.At.Sub(m.self.At), Children: map[string]float64{}, RSS: now.RSS}
	secs := u.Window.Seconds()
	if secs <= 0 {
		return u
	}
	u.Self = (now.CPU - m.self.CPU).Seconds() / secs
	for pid, before := range m.children {
		if after, err := ReadProc(pid); err == nil {
			u.Children[m.names[pid]] += (after.CPU - before.CPU).Seconds() / secs
		}
	}
	return u
}
