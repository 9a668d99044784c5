package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A run of some scenarios keeps the other scenarios' figures from the earlier results,
// marked with the run they were measured in, and replaces the ones it measured again.
func TestCarryOverKeepsScenariosNotRunAgain(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{JSONPath: filepath.Join(dir, "results.json"), DocPath: filepath.Join(dir, "benchmarks.md")}
	scenario := func(n int, v float64) *Scenario {
		s := &Scenario{Number: n, Title: "scenario"}
		s.add("ratio", []float64{v, v}, AtMost(1))
		return s
	}
	earlier := &Report{Started: time.Date(2026, 11, 21, 20, 45, 0, 0, time.UTC), Commit: "e128b3a4e2c81fa2011f20b1f624195e29d8da2d",
		Scenarios: []*Scenario{scenario(1, 0.5), scenario(8, 7.06)}}
	if err := earlier.write(cfg); err != nil {
		t.Fatal(err)
	}

	now := &Report{Started: time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC), Commit: "abc", Scenarios: []*Scenario{scenario(8, 0.9)}}
	if err := now.write(cfg); err != nil {
		t.Fatal(err)
	}
	if len(now.Scenarios) != 2 || now.Scenarios[0].Number != 1 || now.Scenarios[1].Number != 8 {
		t.Fatalf("scenarios after carrying over: %+v", now.Scenarios)
	}
	one, eight := now.Scenarios[0], now.Scenarios[1]
	if !strings.Contains(one.CarriedFrom, "2026-11-21 20:45 UTC") || !strings.Contains(one.CarriedFrom, "e128b3a4e2c8") || eight.CarriedFrom != "" {
		t.Fatalf("carried from %q and %q", one.CarriedFrom, eight.CarriedFrom)
	}
	if f := one.Figures[0]; f.Value != 0.5 || !f.Pass() || len(f.Rounds) != 2 {
		t.Fatalf("carried figure %+v", f)
	}
	if f := eight.Figures[0]; f.Value != 0.9 {
		t.Fatalf("scenario 8 kept the earlier figure: %+v", f)
	}
	md := now.Markdown("", "")
	if !strings.Contains(md, "scenarios 1 are carried over") {
		t.Errorf("the report does not say scenario 1 is carried over:\n%s", md)
	}

	// Rendering from the results alone writes the same document.
	written, err := os.ReadFile(cfg.DocPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cfg.DocPath); err != nil {
		t.Fatal(err)
	}
	if err := Render(cfg); err != nil {
		t.Fatal(err)
	}
	if rendered, _ := os.ReadFile(cfg.DocPath); string(rendered) != string(written) {
		t.Errorf("rendered document differs from the written one:\n%s\n---\n%s", rendered, written)
	}

	short := &Report{Short: true, Scenarios: []*Scenario{scenario(8, 1)}}
	short.CarryOver(cfg.JSONPath)
	if len(short.Scenarios) != 1 {
		t.Error("a short run carried over a full run's figures")
	}
}
