package bench

import (
	"bytes"
	"cmp"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
)

// WaitPoint is where a number of goroutines stood when sampled: the innermost function of
// this module on their stack and the function they were in.
type WaitPoint struct {
	Where string `json:"where"`
	Leaf  string `json:"leaf"`
	Count int    `json:"count"`
}

// GoroutineWaits samples every goroutine whose stack contains match and groups them by
// where they stood, most first.
func GoroutineWaits(match string) []WaitPoint {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return nil
	}
	return parseGoroutineWaits(buf.String(), match)
}

func parseGoroutineWaits(dump, match string) []WaitPoint {
	counts := map[[2]string]int{}
	for _, block := range strings.Split(dump, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) < 2 {
			continue
		}
		n, err := strconv.Atoi(strings.Fields(lines[0])[0])
		if err != nil {
			continue
		}
		var frames []string
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			if len(f) >= 3 && f[0] == "#" {
				fn, _, _ := strings.Cut(f[2], "+0x")
				frames = append(frames, fn)
			}
		}
		if !slices.ContainsFunc(frames, func(fn string) bool { return strings.Contains(fn, match) }) {
			continue
		}
		where := ""
		for _, fn := range frames {
			if strings.HasPrefix(fn, "github.com/swaprouter/swaprouter/") {
				where = strings.TrimPrefix(fn, "github.com/swaprouter/swaprouter/")
				break
			}
		}
		leaf := ""
		for _, fn := range frames {
			if !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/") {
				leaf = fn
				break
			}
		}
		counts[[2]string{where, leaf}] += n
	}
	var out []WaitPoint
	for k, n := range counts {
		out = append(out, WaitPoint{Where: k[0], Leaf: k[1], Count: n})
	}
	slices.SortFunc(out, func(a, b WaitPoint) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Where, b.Where))
	})
	return out
}
