package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

func durations(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100..1, unsorted
	}
	for _, tc := range []struct {
		name    string
		samples []time.Duration
		p       float64
		want    time.Duration
	}{
		{"none", nil, 50, 0},
		{"one", durations(7), 99, 7 * time.Millisecond},
		{"median of odd", durations(3, 1, 2), 50, 2 * time.Millisecond},
		{"nearest rank rounds up", durations(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 100", durations(hundred...), 99, 99 * time.Millisecond},
		{"p100 is the max", durations(hundred...), 100, 100 * time.Millisecond},
		{"tiny p is the min", durations(5, 9, 1), 0.1, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]time.Duration(nil), tc.samples...)
			if got := Percentile(tc.samples, tc.p); got != tc.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tc.samples, tc.p, got, tc.want)
			}
			for i := range before {
				if before[i] != tc.samples[i] {
					t.Fatal("Percentile reordered its input")
				}
			}
		})
	}
	if !math.IsNaN(PercentileMs(nil, 50)) {
		t.Error("PercentileMs of no samples must be NaN, never a fast-looking 0")
	}
	if got := PercentileMs(durations(4, 8), 100); got != 8 {
		t.Errorf("PercentileMs = %v, want 8", got)
	}
}

func TestMedian(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		xs   []float64
		want float64
	}{
		{"none", nil, nan},
		{"odd", []float64{3, 1, 2}, 2},
		{"even", []float64{4, 1, 3, 2}, 2.5},
		{"NaN rounds are skipped", []float64{nan, 1, 5, nan, 3}, 3},
		{"only NaN", []float64{nan, nan}, nan},
		{"infinity skipped", []float64{math.Inf(1), 2}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Median(tc.xs)
			if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
			}
		})
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want float64
	}{
		{1, 2, 0.5}, {3, 0, math.NaN()}, {math.NaN(), 1, math.NaN()}, {1, math.NaN(), math.NaN()}, {0, 4, 0},
	} {
		got := Ratio(tc.a, tc.b)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("Ratio(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		target Target
		v      float64
		met    bool
		text   string
	}{
		{AtMost(1.05), 1.05, true, "≤ 1.05"},
		{AtMost(1.05), 1.0501, false, "≤ 1.05"},
		{AtLeast(0.3), 0.3, true, "≥ 0.30"},
		{AtLeast(0.3), 0.29, false, "≥ 0.30"},
		{Within(0.85, 1.15), 0.84, false, "0.85–1.15"},
		{Within(0.85, 1.15), 1.0, true, "0.85–1.15"},
		{Within(0.85, 1.15), 1.16, false, "0.85–1.15"},
		{AtMost(10), math.NaN(), false, "≤ 10.00"},
		{AtLeast(0.3), math.Inf(1), false, "≥ 0.30"},
		{AtMost(0.1), 0.05, true, "≤ 0.10"},
	} {
		if got := tc.target.Met(tc.v); got != tc.met {
			t.Errorf("%s met by %v = %v, want %v", tc.target, tc.v, got, tc.met)
		}
		if got := tc.target.String(); got != tc.text {
			t.Errorf("String() = %q, want %q", got, tc.text)
		}
	}
}

func TestFigurePassAndJSON(t *testing.T) {
	f := Figure{Name: "x", Value: 0.9, Rounds: []float64{0.8, 0.9, math.NaN()}, Target: AtMost(1)}
	if !f.Pass() {
		t.Error("0.9 ≤ 1 should pass")
	}
	b, err := f.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"value":0.9`, `"rounds":[0.8,0.9]`, `"target":"≤ 1.00"`, `"pass":true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	f.Value = math.NaN()
	b, _ = f.MarshalJSON()
	if f.Pass() || !strings.Contains(string(b), `"value":null`) || !strings.Contains(string(b), `"pass":false`) {
		t.Errorf("an unmeasured figure must be null and not pass: %s", b)
	}
	info := Figure{Name: "rate", Value: 5, Info: true}
	if info.Pass() {
		t.Error("an info figure has no target to pass")
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		stack []string
		want  Part
	}{
		{[]string{"encoding/json.Marshal", "github.com/swaprouter/swaprouter/internal/dev/simulator/oneclickapi.API.status", "net/http.HandlerFunc.ServeHTTP", "net/http.(*conn).serve"}, PartSimulator},
		{[]string{"bufio.(*Reader).Read", "net/http.(*conn).readRequest", "net/http.(*conn).serve"}, PartSimulator},
		{[]string{"time.Sleep", "github.com/swaprouter/swaprouter/internal/bench.(*harness).idlePolling"}, PartHarness},
		{[]string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker", "runtime.goexit"}, PartRuntime},
		{[]string{"runtime._GC"}, PartRuntime},
		{[]string{"runtime.schedule", "runtime.mstart"}, PartRuntime},
		{[]string{"encoding/json.Unmarshal", "github.com/swaprouter/swaprouter/controllers.(*SwapOrderReconciler).poll"}, PartManager},
		{[]string{"net/http.(*persistConn).readLoop"}, PartManager},
	} {
		if got := Classify(tc.stack); got != tc.want {
			t.Errorf("Classify(%v) = %s, want %s", tc.stack, got, tc.want)
		}
	}
}

func TestAnalyze(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	mgr, sim, gc, root := fn(1, "controllers.(*SwapOrderReconciler).poll"), fn(2, "github.com/x/internal/dev/simulator.handle"), fn(3, "runtime.gcBgMarkWorker"), fn(4, "runtime.goexit")
	loc := func(id uint64, f *profile.Function) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
	}
	lm, ls, lg, lr := loc(1, mgr), loc(2, sim), loc(3, gc), loc(4, root)
	prof := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lm, lr}, Value: []int64{6, 60}},
			{Location: []*profile.Location{ls, lr}, Value: []int64{2, 20}},
			{Location: []*profile.Location{lg, lr}, Value: []int64{2, 20}},
		},
	}
	shares, top := Analyze(prof, 2)
	if math.Abs(shares[PartManager]-0.75) > 1e-9 || math.Abs(shares[PartSimulator]-0.25) > 1e-9 || math.Abs(shares[PartRuntime]-0.2) > 1e-9 {
		t.Errorf("shares = %v, want manager 0.75, simulator 0.25 (runtime shared out), runtime 0.2 of samples", shares)
	}
	if len(top) != 2 || top[0].Function != mgr.Name || math.Abs(top[0].Flat-0.6) > 1e-9 || math.Abs(top[0].Cum-0.6) > 1e-9 {
		t.Errorf("top = %+v", top)
	}
}

func TestParseStat(t *testing.T) {
	line := []byte("4242 (kube apiserver) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 100 0 0")
	cpu, ppid, comm, err := parseStat(line)
	if err != nil || ppid != 17 || comm != "kube apiserver" || cpu != 3*time.Second {
		t.Errorf("parseStat = %v, %d, %q, %v; want 3s, 17, \"kube apiserver\"", cpu, ppid, comm, err)
	}
	if _, _, _, err := parseStat([]byte("garbage")); err == nil {
		t.Error("a malformed line must fail")
	}
	status := []byte("Name:\tx\nVmRSS:\t  2048 kB\nRssAnon:\t  1024 kB\n")
	if got := statusBytes(status, "VmRSS"); got != 2048*1024 {
		t.Errorf("VmRSS = %d", got)
	}
	if got := statusBytes(status, "RssAnon"); got != 1024*1024 {
		t.Errorf("RssAnon = %d", got)
	}
	if got := cpuModel([]byte("processor\t: 0\nmodel name\t: Test CPU @ 2GHz\n")); got != "Test CPU @ 2GHz" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := memTotalMiB([]byte("MemTotal:       2097152 kB\n")); got != 2048 {
		t.Errorf("memTotalMiB = %d", got)
	}
}

func TestParseGoroutineWaits(t *testing.T) {
	dump := `goroutine profile: total 9

5 @ 0x1 0x2
#	0x1	net/http.(*persistConn).roundTrip+0x10	/x.go:1
#	0x2	github.com/swaprouter/swaprouter/internal/provider/httpcall.(*Client).Do+0x20	/y.go:2
#	0x3	github.com/swaprouter/swaprouter/controllers.(*SwapOrderReconciler).poll+0x30	/z.go:3

3 @ 0x4
#	0x4	runtime.gopark+0x1	/r.go:1
#	0x5	sync.(*Cond).Wait+0x1	/s.go:1
#	0x6	github.com/swaprouter/swaprouter/controllers.(*SwapOrderReconciler).Reconcile+0x1	/z.go:9

1 @ 0x7
#	0x7	github.com/swaprouter/swaprouter/apiserver.(*Server).quote+0x1	/a.go:1
`
	got := parseGoroutineWaits(dump, "SwapOrderReconciler")
	want := []WaitPoint{
		{Where: "internal/provider/httpcall.(*Client).Do", Leaf: "net/http.(*persistConn).roundTrip", Count: 5},
		{Where: "controllers.(*SwapOrderReconciler).Reconcile", Leaf: "sync.(*Cond).Wait", Count: 3},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("parseGoroutineWaits = %+v, want %+v", got, want)
	}
}

func TestMostWithin(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(secs ...float64) []time.Time {
		var out []time.Time
		for _, s := range secs {
			out = append(out, t0.Add(time.Duration(s*float64(time.Second))))
		}
		return out
	}
	for _, c := range []struct {
		name  string
		times []time.Time
		want  int
	}{
		{"none", nil, 0},
		{"one", at(5), 1},
		{"all within the span", at(0, 10, 59.9), 3},
		{"a span is half-open", at(0, 60), 1},
		{"the busiest span is later", at(0, 70, 80, 90, 100), 4},
		{"a burst at the end", at(0, 1, 100, 100.5, 101, 101.5), 4},
	} {
		if got := mostWithin(c.times, time.Minute); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
