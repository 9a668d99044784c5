// Package metricsum reads what a registry would show a scrape: the sum of a metric family's
// series, for tests and the benchmark.
package metricsum

import "github.com/prometheus/client_golang/prometheus"

// Of adds up the series of the family name in g whose labels include want: counter and
// gauge values, histogram sample counts.
func Of(g prometheus.Gatherer, name string, want map[string]string) (float64, error) {
	families, err := g.Gather()
	if err != nil {
		return 0, err
	}
	var total float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total, nil
}
