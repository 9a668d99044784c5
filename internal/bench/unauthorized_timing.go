package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"
)

// unauthorizedTiming measures whether a 401 tells an attacker anything by its timing: GET
// /v1/assets with an unknown key id and with a known key id and a wrong secret, interleaved
// in a random order each round so drift in machine load hits both alike. The figure is the
// median of the wrong-secret answers ÷ the median of the unknown-key answers (part of
// scenario 5: reads of the API).
func (h *harness) unauthorizedTiming(ctx context.Context, s *Scenario) error {
	callers := map[string]*APIClient{}
	for name, key := range map[string][2]string{
		"unknown key id": {"bench-no-such-key", h.api.Secret},
		"wrong secret":   {h.api.KeyID, "wrong-" + h.api.Secret},
	} {
		c, err := NewAPIClient(h.api.Base, key[0], key[1], h.api.HTTP)
		if err != nil {
			return err
		}
		callers[name] = c
	}
	names := []string{"unknown key id", "wrong secret"}
	rounds, warmup := h.cfg.count(2000, 200), 30
	samples := map[string][]time.Duration{}
	for r := 0; r < rounds+warmup && ctx.Err() == nil; r++ {
		rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		for _, name := range names {
			start := time.Now()
			resp, err := callers[name].ListAssets(ctx, nil)
			err = expect(resp, err, http.StatusUnauthorized, nil)
			took := time.Since(start)
			if err != nil {
				var se *StatusError
				if errors.As(err, &se) {
					return err // anything but 401 is a bug, not a measurement
				}
				continue
			}
			if r >= warmup {
				samples[name] = append(samples[name], took)
			}
		}
	}
	unknown, wrong := PercentileMs(samples["unknown key id"], 50), PercentileMs(samples["wrong secret"], 50)
	s.add("401 median: wrong secret ÷ unknown key id", []float64{Ratio(wrong, unknown)}, Within(0.5, 2))
	s.info("401 median, unknown key id", "ms", []float64{unknown})
	s.info("401 median, wrong secret", "ms", []float64{wrong})
	return ctx.Err()
}
