package bench

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Scenario 1: dry quotes with every provider (route_A, route_B and relay) answering after
// 50 ms of injected latency, at concurrency 1, 16 and 64. Each round measures the frontend
// with the three providers, then with relay disabled (two providers, the slowest latency
// unchanged), then each provider directly through its adapter at the same concurrency. The
// figures are the frontend's p50 (p99) with three providers divided by the slowest
// provider's p50 (p99) of the same round, and the frontend's p50 with three providers
// divided by its p50 with two: what one more route costs a quote. A last measurement asks
// the three providers at once directly (the simulator's share of a frontend quote, whose
// three calls compete for the same cores): the frontend's p50 divided by its p50 is what
// the frontend itself adds. The round ends with the machine's floor (fanOutFloor): a stub
// frontend fanning out to three stub providers in this process, against one stub directly.
const injectedLatency = 50 * time.Millisecond

var latencyConcurrency = []int{1, 16, 64}

func (h *harness) quoteLatency(ctx context.Context, s *Scenario) error {
	h.setQuoteLatency(injectedLatency)
	defer h.setQuoteLatency(0)
	feDur, dirDur := h.cfg.sized(2*time.Second, 500*time.Millisecond), h.cfg.sized(time.Second, 300*time.Millisecond)
	floor, err := startFloor(injectedLatency, len(quoteProviders))
	if err != nil {
		return err
	}
	defer floor.close()
	s.Setup = fmt.Sprintf("%d rounds per concurrency; a round is %s of frontend quotes (closed loop) with the %d providers, %s with relay disabled (two providers), then %s against each provider directly and %s against the three at once; injected latency %s on every provider's quote call; then the machine's floor: %s through a stub frontend fanning out to %d stub providers answering after %s, and %s against one stub directly",
		h.cfg.Rounds, feDur, len(quoteProviders), feDur, dirDur, dirDur, injectedLatency, feDur, len(quoteProviders), injectedLatency, dirDur)
	for _, c := range latencyConcurrency {
		var p50, p99, added, own, fe50, fe99, two50, d50, d99, all50, floor50, floor99 []float64
		for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
			fe := Closed(ctx, c, feDur, 0, h.frontendQuote)
			if err := h.setRelayEnabled(ctx, false); err != nil {
				return err
			}
			two := Closed(ctx, c, feDur, 0, h.frontendQuote)
			if err := h.setRelayEnabled(ctx, true); err != nil {
				return err
			}
			notes := []string{errNote("frontend", fe), errNote("frontend with two providers", two)}
			var slow50, slow99 float64
			for _, id := range quoteProviders {
				d := Closed(ctx, c, dirDur, 0, h.directQuote(id))
				notes = append(notes, errNote("direct "+string(id), d))
				slow50, slow99 = math.Max(slow50, PercentileMs(d.Latencies, 50)), math.Max(slow99, PercentileMs(d.Latencies, 99))
			}
			all := Closed(ctx, c, dirDur, 0, h.directFanOut())
			h.directClient.CloseIdleConnections() // nothing of the baselines stays behind for the next round
			notes = append(notes, errNote("direct, the three at once", all))
			stub, stubDirect := Closed(ctx, c, feDur, 0, floor.quote), Closed(ctx, c, dirDur, 0, floor.direct)
			floor.hangUp()
			notes = append(notes, errNote("floor", stub), errNote("floor, one stub directly", stubDirect))
			for _, n := range notes {
				if n != "" {
					s.note("concurrency %d: %s", c, n)
				}
			}
			f50, f99, t50 := PercentileMs(fe.Latencies, 50), PercentileMs(fe.Latencies, 99), PercentileMs(two.Latencies, 50)
			p50 = append(p50, Ratio(f50, slow50))
			p99 = append(p99, Ratio(f99, slow99))
			added = append(added, Ratio(f50, t50))
			a50 := PercentileMs(all.Latencies, 50)
			own = append(own, Ratio(f50, a50))
			fe50, fe99, two50, d50, d99, all50 = append(fe50, f50), append(fe99, f99), append(two50, t50), append(d50, slow50), append(d99, slow99), append(all50, a50)
			floor50 = append(floor50, Ratio(PercentileMs(stub.Latencies, 50), PercentileMs(stubDirect.Latencies, 50)))
			floor99 = append(floor99, Ratio(PercentileMs(stub.Latencies, 99), PercentileMs(stubDirect.Latencies, 99)))
		}
		s.add(fmt.Sprintf("c=%d: frontend p50 ÷ slowest provider p50", c), p50, AtMost(1.05))
		s.add(fmt.Sprintf("c=%d: frontend p99 ÷ slowest provider p99", c), p99, AtMost(1.15))
		s.add(fmt.Sprintf("c=%d: quote p50 with three providers ÷ with two", c), added, AtMost(1.05))
		s.info(fmt.Sprintf("c=%d: frontend p50 / p99", c), fmt.Sprintf("ms (p99 %.1f ms)", Median(fe99)), fe50)
		s.info(fmt.Sprintf("c=%d: frontend p50 with two providers", c), "ms", two50)
		s.info(fmt.Sprintf("c=%d: slowest provider direct p50 / p99", c), fmt.Sprintf("ms (p99 %.1f ms)", Median(d99)), d50)
		s.info(fmt.Sprintf("c=%d: the three providers called directly at once, p50", c), "ms", all50)
		s.info(fmt.Sprintf("c=%d: frontend p50 ÷ the three called directly at once", c), "", own)
		s.info(fmt.Sprintf("c=%d: machine floor, stub fan-out p50 ÷ one stub p50", c), "", floor50)
		s.info(fmt.Sprintf("c=%d: machine floor, stub fan-out p99 ÷ one stub p99", c), "", floor99)
		s.Curve = append(s.Curve, CurvePoint{Concurrency: c, FrontendP50: Median(fe50), FrontendP99: Median(fe99), DirectP50: Median(d50), DirectP99: Median(d99)})
	}
	return ctx.Err()
}
