package bench

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Scenario 1: dry quotes with both providers answering after 50 ms of injected latency, at
// concurrency 1, 16 and 64. Each round measures the frontend, then each provider directly
// through its adapter at the same concurrency; the figure is the frontend's p50 (p99)
// divided by the slower provider's p50 (p99) of the same round.
const injectedLatency = 50 * time.Millisecond

var latencyConcurrency = []int{1, 16, 64}

func (h *harness) quoteLatency(ctx context.Context, s *Scenario) error {
	h.setQuoteLatency(injectedLatency)
	defer h.setQuoteLatency(0)
	feDur, dirDur := h.cfg.sized(2*time.Second, 500*time.Millisecond), h.cfg.sized(time.Second, 300*time.Millisecond)
	s.Setup = fmt.Sprintf("%d rounds per concurrency; a round is %s of frontend quotes (closed loop) then %s against each provider directly; injected latency %s on both providers' quote call",
		h.cfg.Rounds, feDur, dirDur, injectedLatency)
	for _, c := range latencyConcurrency {
		var p50, p99, fe50, fe99, d50, d99 []float64
		for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
			fe := Closed(ctx, c, feDur, 0, h.frontendQuote)
			a := Closed(ctx, c, dirDur, 0, h.directQuote(providers[0]))
			b := Closed(ctx, c, dirDur, 0, h.directQuote(providers[1]))
			for _, n := range []string{errNote("frontend", fe), errNote("direct route_A", a), errNote("direct route_B", b)} {
				if n != "" {
					s.note("concurrency %d: %s", c, n)
				}
			}
			slow50 := math.Max(PercentileMs(a.Latencies, 50), PercentileMs(b.Latencies, 50))
			slow99 := math.Max(PercentileMs(a.Latencies, 99), PercentileMs(b.Latencies, 99))
			f50, f99 := PercentileMs(fe.Latencies, 50), PercentileMs(fe.Latencies, 99)
			p50 = append(p50, Ratio(f50, slow50))
			p99 = append(p99, Ratio(f99, slow99))
			fe50, fe99, d50, d99 = append(fe50, f50), append(fe99, f99), append(d50, slow50), append(d99, slow99)
		}
		s.add(fmt.Sprintf("c=%d: frontend p50 ÷ slower provider p50", c), p50, AtMost(1.05))
		s.add(fmt.Sprintf("c=%d: frontend p99 ÷ slower provider p99", c), p99, AtMost(1.15))
		s.info(fmt.Sprintf("c=%d: frontend p50 / p99", c), fmt.Sprintf("ms (p99 %.1f ms)", Median(fe99)), fe50)
		s.info(fmt.Sprintf("c=%d: slower provider direct p50 / p99", c), fmt.Sprintf("ms (p99 %.1f ms)", Median(d99)), d50)
		s.Curve = append(s.Curve, CurvePoint{Concurrency: c, FrontendP50: Median(fe50), FrontendP99: Median(fe99), DirectP50: Median(d50), DirectP99: Median(d99)})
	}
	return ctx.Err()
}
