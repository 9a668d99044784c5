// Command swaprouter-bench starts the whole swaprouter system in-process (envtest control
// plane, provider simulator, manager with controllers and /v1 frontend) and measures the
// seven scenarios of the benchmark issue as ratios of two things measured in the same run. It
// writes docs/benchmarks.md, bench/results.json and docs/bench-latency.png.
//
//	go run ./cmd/swaprouter-bench            # full run (about 10–15 minutes on 2 cores)
//	go run ./cmd/swaprouter-bench -short     # smoke test, writes under bench/short/
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/swaprouter/swaprouter/internal/bench"
)

func main() {
	bench.HoldStreamsIfAsked() // this binary also serves as the event stream scenario's client process
	var (
		short     = flag.Bool("short", false, "a few seconds per scenario with small sizes (smoke test; targets not asserted)")
		out       = flag.String("out", "", "folder for docs/benchmarks.md, docs/bench-latency.png and bench/results.json (default: the repository root, or bench/short for -short)")
		rounds    = flag.Int("rounds", 0, "rounds per scenario (default 5, or 2 with -short)")
		orders    = flag.Int("orders", 0, "scenario 4's number of active orders (default 10000, or 300 with -short)")
		scenarios = flag.String("scenarios", "", "comma-separated scenarios to run (default all; 10: one provider hanging while the other is polled and quoted; 11: one abusive swap-app client; 12: the swap page in Chromium; 13: the GET /v1/events stream; 14: a 10,000-address sanctions list's cost to order creation)")
		timeout   = flag.Duration("timeout", 30*time.Minute, "abort the run after this long")
		verbose   = flag.Bool("v", false, "log the manager's messages to stderr")
		render    = flag.Bool("render", false, "measure nothing: rewrite docs/benchmarks.md and the chart from bench/results.json and bench/analysis.md")
		memRate   = flag.Int("memprofilerate", runtime.MemProfileRate, "bytes per heap profile sample (runtime.MemProfileRate; lower: finer scenario 4 heap profiles, more CPU)")
	)
	flag.Parse()
	runtime.MemProfileRate = *memRate
	if *verbose {
		ctrl.SetLogger(zap.New(zap.UseDevMode(false)))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	cfg := bench.Config{Short: *short, Rounds: *rounds, Orders: *orders, Out: os.Stdout}
	for _, f := range strings.FieldsFunc(*scenarios, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > bench.ScenarioCount {
			fmt.Fprintf(os.Stderr, "swaprouter-bench: -scenarios: %q is not a scenario number 1–%d\n", f, bench.ScenarioCount)
			os.Exit(2)
		}
		cfg.Scenarios = append(cfg.Scenarios, n)
	}
	root := *out
	if root == "" {
		root = "."
		if *short {
			root = filepath.Join("bench", "short")
		}
	}
	cfg.DocPath = filepath.Join(root, "docs", "benchmarks.md")
	cfg.ChartPath = filepath.Join(root, "docs", "bench-latency.png")
	cfg.JSONPath = filepath.Join(root, "bench", "results.json")
	cfg.ProfileDir = filepath.Join("bench", "profiles")
	cfg.AnalysisPath = filepath.Join("bench", "analysis.md")

	if *render {
		if err := bench.Render(cfg); err != nil {
			fmt.Fprintf(os.Stderr, "swaprouter-bench: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("wrote %s from %s\n", cfg.DocPath, cfg.JSONPath)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "swaprouter-bench: %v\n", err)
		os.Exit(1)
	}
	short_ := 0
	for _, f := range rep.Figures() {
		if !f.Info && !f.Pass() {
			short_++
		}
	}
	fmt.Printf("wrote %s, %s and %s; %d figures short of their target\n", cfg.DocPath, cfg.JSONPath, cfg.ChartPath, short_)
}
