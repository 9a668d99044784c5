package bench

import (
	"context"
	"fmt"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
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
		var out swapclient.Order
		resp, err := h.api.CreateOrder(ctx, nil, benchOrder(providers[i%2]))
		err = expect(resp, err, http.StatusCreated, &out)
		if err == nil && out.DepositAddress == nil {
			err = fmt.Errorf("201 without a deposit address")
		}
		return err
	}
	raw := func(ctx context.Context, _, i int) error {
		return h.env.Client.Create(ctx, h.newOrder(rawNamespace, providers[i%2]))
	}
	stop := h.profile(s, "scenario3")
	var ratio, fe, rr, lat, perOrder, apiCores, etcdCores, selfCores, rawAPICores, rawEtcdCores []float64
	var queueMs, reconcileMs, waitMs, createMs, reconcilesPerOrder []float64
	var lastWrites map[string]float64
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		// The control plane's own count of writes and CPU while orders are created: what an
		// order costs it, everything the order causes in the window included (webhooks, Events).
		w0, werr := h.apiWrites(ctx)
		meter, times, rec := StartCPU(), h.readOrderPathTimes(), reconcileTotal("swaporder")
		f := Closed(ctx, orderConcurrency, feDur, 0, order)
		u := meter.Stop()
		q, rt, wt, ct := times.meansMs(h.readOrderPathTimes())
		queueMs, reconcileMs, waitMs, createMs = append(queueMs, q), append(reconcileMs, rt), append(waitMs, wt), append(createMs, ct)
		if f.OK() > 0 {
			reconcilesPerOrder = append(reconcilesPerOrder, (reconcileTotal("swaporder")-rec)/float64(f.OK()))
		}
		w1, werr1 := h.apiWrites(ctx)
		rawMeter := StartCPU()
		b := Closed(ctx, orderConcurrency, rawDur, 0, raw)
		ru := rawMeter.Stop()
		if werr == nil && werr1 == nil && f.OK() > 0 {
			lastWrites = writesBetween(w0, w1)
			perOrder = append(perOrder, sumWrites(lastWrites)/float64(f.OK()))
		}
		apiCores, etcdCores, selfCores = append(apiCores, u.Children["kube-apiserver"]), append(etcdCores, u.Children["etcd"]), append(selfCores, u.Self)
		rawAPICores, rawEtcdCores = append(rawAPICores, ru.Children["kube-apiserver"]), append(rawEtcdCores, ru.Children["etcd"])
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
	s.info("API writes per order (kube-apiserver's count while creating)", "", perOrder)
	s.info("kube-apiserver cores while creating orders", "cores", apiCores)
	s.info("etcd cores while creating orders", "cores", etcdCores)
	s.info("harness process cores while creating orders (manager, simulator, load)", "cores", selfCores)
	s.info("kube-apiserver cores during raw creates", "cores", rawAPICores)
	s.info("etcd cores during raw creates", "cores", rawEtcdCores)
	s.info("POST /v1/order mean wait for the address (after its create)", "ms", waitMs)
	s.info("order reconciler mean workqueue wait", "ms", queueMs)
	s.info("order reconciler mean reconcile time", "ms", reconcileMs)
	s.info("order reconciles per order created", "", reconcilesPerOrder)
	s.info("provider call creating the deposit address, mean", "ms", createMs)
	if lastWrites != nil {
		s.note("API writes in the last round's order window, by verb and resource: %v", lastWrites)
	}
	return ctx.Err()
}
