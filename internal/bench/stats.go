package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Percentile returns the p-th percentile (0 < p <= 100) of samples by the nearest-rank
// method: the smallest sample with at least p % of the samples at or below it. It returns 0
// for no samples. samples is not modified.
func Percentile(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// PercentileMs is Percentile in milliseconds, NaN for no samples (so a round where nothing
// succeeded can never look fast).
func PercentileMs(samples []time.Duration, p float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	return float64(Percentile(samples, p)) / float64(time.Millisecond)
}

// Median returns the median of the values of xs that are numbers (the mean of the two middle
// values for an even count), NaN when there are none. xs is not modified.
func Median(xs []float64) float64 {
	var s []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return math.NaN()
	}
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Ratio is a/b, NaN when b is zero or either is NaN.
func Ratio(a, b float64) float64 {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}

// Seconds is d in seconds as a float.
func Seconds(d time.Duration) float64 { return d.Seconds() }

// Target is what a figure must reach: at most Max, at least Min, or within both.
type Target struct {
	Min, Max *float64
}

// AtMost is a target "≤ v".
func AtMost(v float64) Target { return Target{Max: &v} }

// AtLeast is a target "≥ v".
func AtLeast(v float64) Target { return Target{Min: &v} }

// Within is a target "lo–hi".
func Within(lo, hi float64) Target { return Target{Min: &lo, Max: &hi} }

// Met reports whether v meets the target; a NaN never does.
func (t Target) Met(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if t.Min != nil && v < *t.Min {
		return false
	}
	if t.Max != nil && v > *t.Max {
		return false
	}
	return true
}

// String writes the target as in the issue: "≤ 1.05", "≥ 0.30", "0.85–1.15".
func (t Target) String() string {
	switch {
	case t.Min != nil && t.Max != nil:
		return fmt.Sprintf("%s–%s", num(*t.Min), num(*t.Max))
	case t.Max != nil:
		return "≤ " + num(*t.Max)
	case t.Min != nil:
		return "≥ " + num(*t.Min)
	}
	return "—"
}

// num formats a figure with two decimals, or three significant digits below 0.1.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case v != 0 && math.Abs(v) < 0.1:
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.2f", v)
}
