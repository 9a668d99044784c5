package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Scenario 3: POST /v1/order until its 201 with a deposit address, at concurrency 16; the
// figure is orders/s divided by raw SwapOrder creates/s against the same control plane at
// the same concurrency (in a namespace the manager does not watch, so nothing reconciles
// them).
const orderConcurrency = 16

func (h *harness) orderCreation(ctx context.Context, s *Scenario) error {
	feDur, rawDur := h.cfg.sized(3*time.Second, 700*time.Millisecond), h.cfg.sized(2*time.Second, 500*time.Millisecond)
	s.Setup = fmt.Sprintf("%d rounds; a round is %s of POST /v1/order (route_A and route_B alternating) then %s of raw SwapOrder creates, both closed loop at concurrency %d",
		h.cfg.Rounds, feDur, rawDur, orderConcurrency)
	order := func(ctx context.Context, _, i int) error {
		var out struct {
			DepositAddress string `json:"depositAddress"`
		}
		err := h.api.Do(ctx, http.MethodPost, "/v1/order", map[string]any{
			"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH,
			"sender": sender, "recipient": solDest, "providerId": providers[i%2],
		}, http.StatusCreated, &out)
		if err == nil && out.DepositAddress == "" {
			err = fmt.Errorf("201 without a deposit address")
		}
		return err
	}
	raw := func(ctx context.Context, _, i int) error {
		return h.env.Client.Create(ctx, h.newOrder(rawNamespace, providers[i%2]))
	}
	stop := h.profile(s, "scenario3")
	var ratio, fe, rr, lat []float64
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		f := Closed(ctx, orderConcurrency, feDur, 0, order)
		b := Closed(ctx, orderConcurrency, rawDur, 0, raw)
		for _, n := range []string{errNote("POST /v1/order", f), errNote("raw create", b)} {
			if n != "" {
				s.note("%s", n)
			}
		}
		ratio = append(ratio, Ratio(f.PerSecond(), b.PerSecond()))
		fe, rr, lat = append(fe, f.PerSecond()), append(rr, b.PerSecond()), append(lat, PercentileMs(f.Latencies, 50))
	}
	stop()
	s.add("orders/s ÷ raw SwapOrder creates/s", ratio, AtLeast(0.40))
	s.info("orders/s (201 with deposit address)", "/s", fe)
	s.info("raw SwapOrder creates/s", "/s", rr)
	s.info("POST /v1/order p50", "ms", lat)
	return ctx.Err()
}
