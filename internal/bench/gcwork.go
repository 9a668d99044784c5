package bench

import "runtime/metrics"

// gcWork is this process's garbage collection so far, from runtime/metrics: CPU seconds of
// all GC work (mark assists taken from allocating goroutines included) and completed cycles.
type gcWork struct {
	cpu, cycles float64
}

var gcWorkMetrics = []string{"/cpu/classes/gc/total:cpu-seconds", "/gc/cycles/total:gc-cycles"}

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
	return gcWork{cpu: value(samples[0]), cycles: value(samples[1])}
}

func (w gcWork) since(before gcWork) gcWork {
	return gcWork{cpu: w.cpu - before.cpu, cycles: w.cycles - before.cycles}
}
