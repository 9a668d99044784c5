package bench

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"

	"github.com/google/pprof/profile"
)

// ProfileLine is one function of a CPU profile: its own (flat) and inclusive (cum) share of
// the sampled CPU time, and which part of the process it belongs to.
type ProfileLine struct {
	Function string  `json:"function"`
	Flat     float64 `json:"flat"`
	Cum      float64 `json:"cum"`
}

// Part names a share of the process's CPU. The manager, the in-process provider simulator
// and the harness run in one process; a CPU profile tells them apart by their stacks.
type Part string

const (
	PartManager   Part = "manager"
	PartSimulator Part = "simulator"
	PartHarness   Part = "harness"
	// PartRuntime is garbage collection and scheduler work not attributable by stack; it is
	// shared out in proportion to the other parts.
	PartRuntime Part = "runtime"
)

// Classify says which part a stack (leaf first, function names) belongs to. The simulator is
// everything under its handlers and the server side of HTTP connections (the frontend
// serves no requests while scenario 4 measures); the harness is everything under
// internal/bench; background runtime work is runtime; the rest is the manager.
func Classify(stack []string) Part {
	for _, fn := range stack {
		switch {
		case strings.Contains(fn, "/internal/dev/simulator"), strings.HasPrefix(fn, "net/http.(*conn)."):
			return PartSimulator
		case strings.Contains(fn, "/internal/bench."):
			return PartHarness
		}
	}
	for _, fn := range stack {
		switch fn {
		case "runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.sysmon",
			"runtime._System", "runtime._GC", "runtime._ExternalCode", "runtime.forcegchelper":
			return PartRuntime
		}
	}
	if len(stack) > 0 && (stack[len(stack)-1] == "runtime.mstart" || stack[len(stack)-1] == "runtime.mcall") {
		return PartRuntime // scheduler work outside any goroutine
	}
	return PartManager
}

// Shares are the fractions of sampled CPU per part, runtime work shared out in proportion.
type Shares map[Part]float64

// CPUProfile is a running in-process CPU profile. Only one runs at a time.
type CPUProfile struct {
	buf bytes.Buffer
}

var profileMu sync.Mutex

// StartProfile starts the process CPU profile; Stop must follow.
func StartProfile() (*CPUProfile, error) {
	profileMu.Lock()
	p := &CPUProfile{}
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		profileMu.Unlock()
		return nil, err
	}
	return p, nil
}

// Stop ends the profile, saves it to path when path is set, and returns the parts' shares
// and the top functions.
func (p *CPUProfile) Stop(path string, top int) (Shares, []ProfileLine, error) {
	pprof.StopCPUProfile()
	profileMu.Unlock()
	if path != "" {
		_ = os.WriteFile(path, p.buf.Bytes(), 0o644)
	}
	prof, err := profile.Parse(bytes.NewReader(p.buf.Bytes()))
	if err != nil {
		return nil, nil, err
	}
	shares, lines := Analyze(prof, top)
	return shares, lines, nil
}

// Analyze attributes a CPU profile's samples to parts and ranks functions by flat time.
func Analyze(prof *profile.Profile, top int) (Shares, []ProfileLine) {
	vi := len(prof.SampleType) - 1 // cpu nanoseconds (the last value of a Go CPU profile)
	for i, st := range prof.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	raw := map[Part]float64{}
	flat, cum := map[string]float64{}, map[string]float64{}
	var total float64
	for _, s := range prof.Sample {
		if vi < 0 || vi >= len(s.Value) {
			continue
		}
		v := float64(s.Value[vi])
		stack := stackOf(s) // leaf first, inlined frames before their callers
		total += v
		raw[Classify(stack)] += v
		if len(stack) > 0 {
			flat[stack[0]] += v
		}
		seen := map[string]bool{}
		for _, fn := range stack {
			if !seen[fn] {
				cum[fn] += v
				seen[fn] = true
			}
		}
	}
	shares := Shares{}
	if total == 0 {
		return shares, nil
	}
	attributed := total - raw[PartRuntime]
	for _, part := range []Part{PartManager, PartSimulator, PartHarness} {
		if attributed > 0 {
			shares[part] = raw[part] / attributed
		}
	}
	shares[PartRuntime] = raw[PartRuntime] / total
	var lines []ProfileLine
	for fn, v := range flat {
		lines = append(lines, ProfileLine{Function: fn, Flat: v / total, Cum: cum[fn] / total})
	}
	slices.SortFunc(lines, func(a, b ProfileLine) int {
		return cmp.Or(cmp.Compare(b.Flat, a.Flat), strings.Compare(a.Function, b.Function))
	})
	if len(lines) > top {
		lines = lines[:top]
	}
	// Then the module's own functions by inclusive time: which of our paths the time is under.
	var own []ProfileLine
	for fn, v := range cum {
		if strings.HasPrefix(fn, "github.com/swaprouter/swaprouter/") && !strings.Contains(fn, "/internal/bench.") {
			own = append(own, ProfileLine{Function: fn, Flat: flat[fn] / total, Cum: v / total})
		}
	}
	slices.SortFunc(own, func(a, b ProfileLine) int {
		return cmp.Or(cmp.Compare(b.Cum, a.Cum), strings.Compare(a.Function, b.Function))
	})
	if len(own) > top {
		own = own[:top]
	}
	return shares, append(lines, own...)
}

// HeapByPart is the in-use heap bytes of each part, from a heap profile taken after a GC;
// the profile is saved to path when path is set (`go tool pprof -base` compares two).
func HeapByPart(path string) (map[Part]float64, error) {
	// Two collections: the first moves sync.Pool contents to the victim cache, the second
	// frees them, as debug.FreeOSMemory does before RSS is read (a pool of parse buffers left
	// from the archive's migrations once showed as 16 MiB of "manager" heap).
	runtime.GC()
	runtime.GC()
	var buf bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&buf, 0); err != nil {
		return nil, err
	}
	if path != "" {
		_ = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	prof, err := profile.Parse(&buf)
	if err != nil {
		return nil, err
	}
	vi := -1
	for i, st := range prof.SampleType {
		if st.Type == "inuse_space" {
			vi = i
		}
	}
	out := map[Part]float64{}
	if vi < 0 {
		return out, fmt.Errorf("heap profile without inuse_space")
	}
	for _, s := range prof.Sample {
		out[Classify(stackOf(s))] += float64(s.Value[vi])
	}
	return out, nil
}

func stackOf(s *profile.Sample) []string {
	var stack []string
	for _, loc := range s.Location {
		for i := range loc.Line {
			if fn := loc.Line[i].Function; fn != nil {
				stack = append(stack, fn.Name)
			}
		}
	}
	return stack
}

// String writes the shares as "manager 61 %, simulator 30 %, ...".
func (s Shares) String() string {
	var parts []string
	for _, p := range []Part{PartManager, PartSimulator, PartHarness} {
		parts = append(parts, fmt.Sprintf("%s %.0f %%", p, 100*s[p]))
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (runtime background work, %.0f %% of samples, shared out in proportion)", 100*s[PartRuntime])
}
