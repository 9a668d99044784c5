package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"time"
)

// Figure is one measured figure of a scenario with its target.
type Figure struct {
	Scenario int    `json:"scenario"`
	Name     string `json:"name"`
	// Value is the median over the rounds (NaN when nothing could be measured; written as null).
	Value float64 `json:"-"`
	// Rounds are the per-round values the median is taken over.
	Rounds []float64 `json:"-"`
	Unit   string    `json:"unit,omitempty"`
	Target Target    `json:"-"`
	// Info figures have no target: context for the reader (raw rates, latencies).
	Info bool `json:"info,omitempty"`
}

// Pass reports whether a targeted figure met its target.
func (f Figure) Pass() bool { return !f.Info && f.Target.Met(f.Value) }

// MarshalJSON writes NaN as null and the target as text and bounds.
func (f Figure) MarshalJSON() ([]byte, error) {
	type plain Figure
	out := struct {
		plain
		Value  *float64  `json:"value"`
		Rounds []float64 `json:"rounds,omitempty"`
		Target string    `json:"target,omitempty"`
		Min    *float64  `json:"targetMin,omitempty"`
		Max    *float64  `json:"targetMax,omitempty"`
		Pass   *bool     `json:"pass,omitempty"`
	}{plain: plain(f)}
	if !math.IsNaN(f.Value) && !math.IsInf(f.Value, 0) {
		v := f.Value
		out.Value = &v
	}
	for _, r := range f.Rounds {
		if !math.IsNaN(r) && !math.IsInf(r, 0) {
			out.Rounds = append(out.Rounds, r)
		}
	}
	if !f.Info {
		out.Target, out.Min, out.Max = f.Target.String(), f.Target.Min, f.Target.Max
		pass := f.Pass()
		out.Pass = &pass
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote (null is NaN), for carrying figures over.
func (f *Figure) UnmarshalJSON(b []byte) error {
	type plain Figure
	var in struct {
		plain
		Value  *float64  `json:"value"`
		Rounds []float64 `json:"rounds"`
		Min    *float64  `json:"targetMin"`
		Max    *float64  `json:"targetMax"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*f = Figure(in.plain)
	f.Value, f.Rounds, f.Target = math.NaN(), in.Rounds, Target{Min: in.Min, Max: in.Max}
	if in.Value != nil {
		f.Value = *in.Value
	}
	return nil
}

// Scenario is the outcome of one scenario.
type Scenario struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	// Setup says how it was measured (sizes, durations, rounds, scaling).
	Setup   string   `json:"setup"`
	Figures []Figure `json:"figures"`
	// Notes explain figures: attribution, what a profile showed.
	Notes []string `json:"notes,omitempty"`
	// Profile lists the hottest functions of a CPU profile taken during the scenario.
	Profile []ProfileLine `json:"profile,omitempty"`
	// Waits is where the order reconciler's goroutines stood, sampled mid-window (scenario 4).
	Waits []WaitPoint `json:"goroutineWaits,omitempty"`
	// Err is set when the scenario could not run to the end.
	Err      string        `json:"error,omitempty"`
	Duration time.Duration `json:"durationNanos"`
	// Curve holds the latency-against-concurrency points of scenario 1.
	Curve []CurvePoint `json:"curve,omitempty"`
	// CarriedFrom names the earlier run a scenario was measured in, when this run did not
	// measure it (a run of some scenarios keeps the others' figures).
	CarriedFrom string `json:"carriedFrom,omitempty"`

	printed int
}

// add records a figure whose value is the median of its rounds.
func (s *Scenario) add(name string, rounds []float64, t Target) {
	s.Figures = append(s.Figures, Figure{Scenario: s.Number, Name: name, Value: Median(rounds), Rounds: rounds, Target: t})
}

// info records a figure without a target.
func (s *Scenario) info(name, unit string, rounds []float64) {
	s.Figures = append(s.Figures, Figure{Scenario: s.Number, Name: name, Value: Median(rounds), Rounds: rounds, Unit: unit, Info: true})
}

// note adds an explanation.
func (s *Scenario) note(format string, args ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf(format, args...))
}

// CurvePoint is one concurrency level of scenario 1.
type CurvePoint struct {
	Concurrency int     `json:"concurrency"`
	FrontendP50 float64 `json:"frontendP50Ms"`
	FrontendP99 float64 `json:"frontendP99Ms"`
	DirectP50   float64 `json:"directP50Ms"`
	DirectP99   float64 `json:"directP99Ms"`
}

// Report is one run of the harness.
type Report struct {
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNanos"`
	Short    bool          `json:"short"`
	Commit   string        `json:"commit"`
	Machine  Machine       `json:"machine"`
	// Scenarios in the order of the issue.
	Scenarios []*Scenario `json:"scenarios"`
}

// CarryOver adds the scenarios of an earlier report (written at path) that r did not run,
// marked with the run they come from, so a run of some scenarios keeps the others' figures.
// Short and full runs are not mixed; a missing or unreadable file carries nothing.
func (r *Report) CarryOver(path string) {
	b, err := os.ReadFile(path)
	var prev Report
	if err != nil || json.Unmarshal(b, &prev) != nil || prev.Short != r.Short {
		return
	}
	ran := map[int]bool{}
	for _, s := range r.Scenarios {
		ran[s.Number] = true
	}
	for _, s := range prev.Scenarios {
		if ran[s.Number] {
			continue
		}
		if s.CarriedFrom == "" {
			s.CarriedFrom = fmt.Sprintf("the run of %s (commit `%.12s`)", prev.Started.UTC().Format("2006-01-02 15:04 UTC"), prev.Commit)
		}
		r.Scenarios = append(r.Scenarios, s)
	}
	slices.SortFunc(r.Scenarios, func(a, b *Scenario) int { return a.Number - b.Number })
}

// Figures lists every figure of every scenario.
func (r *Report) Figures() []Figure {
	var out []Figure
	for _, s := range r.Scenarios {
		out = append(out, s.Figures...)
	}
	return out
}
