package bench

import "runtime/metrics"

// gcWork is this process's garbage collection so far, from runtime/metrics: CPU seconds of
// all GC work, of which mark assists (taken from allocating goroutines, requests included),
// and completed cycles.
type gcWork struct {
	cpu, assist, cycles float64
}

var gcWorkMetrics = []string{"/cpu/classes/gc/total:cpu-seconds", "/cpu/classes/gc/mark/assist:cpu-seconds", "/gc/cycles/total:gc-cycles"}

func readGCWork() gcWork {
	samples := make([]metrics.Sample, len(gcWorkMetrics))
	for i, name := range gcWorkMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	value := func(s metrics.Sample) float64 {
		switch s.Value.Kind() {
		case metrics.KindFloat64:
			return s.Value.Float64()
		case metrics.KindUint64:
			return float64(s.Value.Uint64())
		}
		return 0
	}
	return gcWork{cpu: value(samples[0]), assist: value(samples[1]), cycles: value(samples[2])}
}

func (w gcWork) since(before gcWork) gcWork {
	return gcWork{cpu: w.cpu - before.cpu, assist: w.assist - before.assist, cycles: w.cycles - before.cycles}
}
