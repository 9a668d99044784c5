package bench

import (
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShortRun runs the harness end to end in short mode against the real system and checks
// that it produced every scenario's figures and every output file. It does not assert the
// targets: short sizes say nothing about performance. Short mode has no time budgets (only
// go test's -timeout bounds it), so every figure is produced on a slow machine too.
func TestShortRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole system")
	}
	dir := t.TempDir()
	cfg := Config{
		Short: true, Orders: 200,
		DocPath:   filepath.Join(dir, "docs", "benchmarks.md"),
		JSONPath:  filepath.Join(dir, "bench", "results.json"),
		ChartPath: filepath.Join(dir, "docs", "bench-latency.png"),
		Out:       testWriter{t},
	}
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}

	if len(rep.Scenarios) != ScenarioCount {
		t.Fatalf("%d scenarios reported, want %d", len(rep.Scenarios), ScenarioCount)
	}
	for i, s := range rep.Scenarios {
		if s.Number != i+1 {
			t.Errorf("scenario %d reported in position %d", s.Number, i+1)
		}
		if s.Err != "" {
			t.Errorf("scenario %d failed: %s", s.Number, s.Err)
		}
		targeted := 0
		for _, f := range s.Figures {
			if f.Info {
				continue
			}
			targeted++
			// The short run's 300 orders grow RSS by a few MiB, less than what the earlier
			// scenarios' garbage returns to the OS meanwhile: that growth may be negative.
			memoryGrowth := s.Number == 4 && strings.Contains(f.Name, "RSS")
			if math.IsNaN(f.Value) || math.IsInf(f.Value, 0) || (f.Value < 0 && !memoryGrowth) {
				t.Errorf("scenario %d: %s was not measured (%v)", s.Number, f.Name, f.Value)
			}
		}
		if want := map[int]int{1: 9, 2: 1, 3: 1, 4: 4, 5: 2, 6: 1, 7: 2, 8: 4, 9: 1, 10: 3, 11: 1, 12: 0, 13: 2, 14: 1}[s.Number]; targeted != want {
			t.Errorf("scenario %d has %d targeted figures, want %d", s.Number, targeted, want)
		}
	}
	if len(rep.Scenarios[0].Curve) != 3 {
		t.Errorf("scenario 1 curve has %d points, want 3", len(rep.Scenarios[0].Curve))
	}
	if len(rep.Scenarios[3].Profile) == 0 {
		t.Error("scenario 4 recorded no CPU profile")
	}

	doc, err := os.ReadFile(cfg.DocPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 1 |", "| 2 |", "| 3 |", "| 4 |", "| 5 |", "| 6 |", "| 7 |", "| 8 |", "| 9 |", "| 10 |", "## 11. ", "Commit:", "Machine:", "bench-latency.png", "short run"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("benchmarks.md lacks %q", want)
		}
	}
	raw, err := os.ReadFile(cfg.JSONPath)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Commit    string `json:"commit"`
		Scenarios []struct {
			Figures []struct {
				Name  string   `json:"name"`
				Value *float64 `json:"value"`
			} `json:"figures"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(raw, &parsed); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	if parsed.Commit == "" || len(parsed.Scenarios) != ScenarioCount {
		t.Errorf("results.json: commit %q, %d scenarios", parsed.Commit, len(parsed.Scenarios))
	}
	f, err := os.Open(cfg.ChartPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("chart is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
		t.Errorf("chart is only %v", b)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
