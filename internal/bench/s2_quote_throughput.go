package bench

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Scenario 2: dry quotes with no injected latency at concurrency 64: frontend quotes/s
// divided by the simulator's own quotes/s when its quote endpoint is called directly
// (through the same adapter code) at the same concurrency. A frontend quote asks every
// provider, so the simulator does three times the work per frontend quote; the baseline is
// the slowest provider's rate.
const throughputConcurrency = 64

func (h *harness) quoteThroughput(ctx context.Context, s *Scenario) error {
	h.setQuoteLatency(0)
	feDur, dirDur := h.cfg.sized(3*time.Second, 700*time.Millisecond), h.cfg.sized(1500*time.Millisecond, 400*time.Millisecond)
	s.Setup = fmt.Sprintf("%d rounds; a round is %s of frontend quotes then %s against each provider directly, all closed loop at concurrency %d",
		h.cfg.Rounds, feDur, dirDur, throughputConcurrency)
	stop := h.profile(s, "scenario2")
	var ratio, fe, direct []float64
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		f := Closed(ctx, throughputConcurrency, feDur, 0, h.frontendQuote)
		notes, slower := []string{errNote("frontend", f)}, math.Inf(1)
		for _, id := range quoteProviders {
			d := Closed(ctx, throughputConcurrency, dirDur, 0, h.directQuote(id))
			notes, slower = append(notes, errNote("direct "+string(id), d)), min(slower, d.PerSecond())
		}
		for _, n := range notes {
			if n != "" {
				s.note("%s", n)
			}
		}
		ratio = append(ratio, Ratio(f.PerSecond(), slower))
		fe, direct = append(fe, f.PerSecond()), append(direct, slower)
	}
	stop()
	s.add("frontend quotes/s ÷ slowest provider's direct quotes/s", ratio, AtLeast(0.30))
	s.info("frontend quotes/s", "/s", fe)
	s.info("slowest provider direct quotes/s", "/s", direct)
	return ctx.Err()
}
