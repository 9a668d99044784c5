package bench

import (
	"context"
	"fmt"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"net/http"
	"time"
)

// Scenario 6: POST /v1/rates with 50 targets while every provider answers after 50 ms; its
// p50 divided by the p50 of a single dry quote, measured in alternating rounds, one request
// at a time.
const rateTargets = 50

func (h *harness) rates(ctx context.Context, s *Scenario) error {
	h.setQuoteLatency(injectedLatency)
	defer h.setQuoteLatency(0)
	var targets []string
	for _, a := range h.assets {
		if a != ethETH {
			targets = append(targets, a)
		}
	}
	if len(targets) == 0 {
		return fmt.Errorf("the catalog lists no target for %s", ethETH)
	}
	distinct := len(targets)
	for len(targets) < rateTargets {
		targets = append(targets, targets[len(targets)%distinct])
	}
	targets = targets[:rateTargets]
	if distinct < rateTargets {
		s.note("the simulator's catalog has %d assets besides ETH; the 50 targets repeat them", distinct)
	}
	ratesDur, quoteDur := h.cfg.sized(4*time.Second, time.Second), h.cfg.sized(2*time.Second, 500*time.Millisecond)
	s.Setup = fmt.Sprintf("%d rounds; a round is %s of rates requests (50 targets from ETH) then %s of single dry quotes, one request at a time; %s injected latency on every provider",
		h.cfg.Rounds, ratesDur, quoteDur, injectedLatency)
	body := swapclient.RatesRequest{From: ethETH, Amount: pointOneETH, Targets: targets}
	ratesOp := func(ctx context.Context, _, _ int) error {
		resp, err := h.api.GetRates(ctx, body)
		return expect(resp, err, http.StatusOK, nil)
	}
	var ratio, r50, q50 []float64
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		rr := Closed(ctx, 1, ratesDur, 0, ratesOp)
		qq := Closed(ctx, 1, quoteDur, 0, h.frontendQuote)
		for _, n := range []string{errNote("rates", rr), errNote("quote", qq)} {
			if n != "" {
				s.note("%s", n)
			}
		}
		a, b := PercentileMs(rr.Latencies, 50), PercentileMs(qq.Latencies, 50)
		ratio = append(ratio, Ratio(a, b))
		r50, q50 = append(r50, a), append(q50, b)
	}
	s.add("rates (50 targets) p50 ÷ single dry quote p50", ratio, AtMost(1.5))
	s.info("rates p50", "ms", r50)
	s.info("single dry quote p50", "ms", q50)
	return ctx.Err()
}
