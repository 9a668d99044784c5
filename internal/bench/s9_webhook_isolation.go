package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// hungPartner is scenario 9's second partner, whose webhook endpoint never answers.
const hungPartner = "bench-hung"

// Scenario 9: a second partner's webhook endpoint accepts connections and never answers
// (every attempt runs into the delivery timeout) while that partner's orders keep emitting
// webhooks; meanwhile the bench partner's orders are measured as in scenario 7. The figure
// is the bench partner's status change → verified webhook p99 as a ratio of the poll
// interval: a hanging partner must not delay anyone else's webhooks.
func (h *harness) webhookIsolation(ctx context.Context, s *Scenario) error {
	hang, err := startHangingEndpoint()
	if err != nil {
		return err
	}
	defer hang.close()
	if err := h.createHungPartner(ctx, hang.url); err != nil {
		return err
	}

	// The hung partner's orders, fully deposited: each emits its PENDING, PROCESSING and
	// SUCCESS webhooks into the hanging endpoint, where they stay pending (retried on the
	// schedule, or probing an open circuit) while the bench partner is measured. The orders
	// settle first, so the measured window adds no order-path work of theirs, only webhooks.
	n := h.cfg.count(60, 12)
	hungOrders, res := h.createPartnerOrders(ctx, hungPartner, n, 8)
	if note := errNote("creating the hung partner's orders", res); note != "" {
		s.note("%s", note)
	}
	h.depositWhenAddressed(ctx, hungOrders)
	budget := h.cfg.budget(4*h.pollMax + time.Minute)
	if !waitFor(ctx, budget, 200*time.Millisecond, func() bool { return h.allTerminal(ctx, hungOrders) }) {
		s.note("not every order of %s settled within %s", hungPartner, budget)
	}
	h.logf("  %d orders of %s settled; their webhooks hang (%d attempts so far, %d hanging now)",
		len(hungOrders), hungPartner, hang.requests.Load(), hang.open.Load())

	lat, orders, err := h.measureWebhookLatency(ctx, s)
	h.addTransitionLatency(s, lat, "verified webhook", ", another partner's endpoint hanging", 0.1)
	s.Figures = append(s.Figures,
		Figure{Scenario: 9, Name: "attempts the hanging endpoint received", Value: float64(hang.requests.Load()), Info: true,
			Unit: fmt.Sprintf("(of %d orders' webhooks; a circuit opens after 5 timeouts in a row)", len(hungOrders))},
		Figure{Scenario: 9, Name: "most attempts hanging at once", Value: float64(hang.maxOpen.Load()), Info: true,
			Unit: "(the per-partner cap is 4)"},
	)
	s.Setup = fmt.Sprintf("partner %s: %d orders created directly, fully deposited and settled before the measurement, their webhooks to an endpoint on 127.0.0.1 "+
		"that accepts and never answers (attempts end at the 15 s delivery timeout); measured: %d orders of the bench partner through the frontend, %d status changes timed from the "+
		"API server's watch event to the verified webhook (pooled percentiles; poll interval mean %s)",
		hungPartner, len(hungOrders), orders, len(lat), h.pollMean())
	return err
}

// hangingEndpoint is an HTTP endpoint that takes every request and never answers it: the
// caller's own timeout ends each one.
type hangingEndpoint struct {
	url      string
	srv      *http.Server
	stop     chan struct{}
	requests atomic.Int64
	open     atomic.Int64
	maxOpen  atomic.Int64
}

func startHangingEndpoint() (*hangingEndpoint, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &hangingEndpoint{url: "http://" + ln.Addr().String() + "/hooks", stop: make(chan struct{})}
	e.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice when the sender gives up and closes the
		// connection, so open counts only attempts the sender still waits for.
		_, _ = io.Copy(io.Discard, r.Body)
		e.requests.Add(1)
		now := e.open.Add(1)
		defer e.open.Add(-1)
		for m := e.maxOpen.Load(); now > m && !e.maxOpen.CompareAndSwap(m, now); m = e.maxOpen.Load() {
		}
		select {
		case <-r.Context().Done():
		case <-e.stop:
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

func (e *hangingEndpoint) close() {
	close(e.stop)
	_ = e.srv.Close()
}

// createHungPartner creates (or points) scenario 9's partner at url, with a signing secret.
func (h *harness) createHungPartner(ctx context.Context, url string) error {
	secret, err := webhooks.NewSecret()
	if err != nil {
		return err
	}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: hungPartner + "-webhook", Namespace: benchNamespace},
		Data:       map[string][]byte{"secret": []byte(secret)},
	}
	if err := h.env.Client.Create(ctx, sec); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("hung partner's secret: %w", err)
	}
	p := &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: hungPartner, Namespace: benchNamespace},
		Spec: swapv1.PartnerSpec{DisplayName: "Partner whose endpoint hangs", Tier: "dev", RequestsPerMinute: benchRPM,
			Webhook: &swapv1.PartnerWebhook{URL: url, Enabled: true, SecretRef: swapv1.SecretKeyRef{Name: sec.Name, Key: "secret"}}},
	}
	if err := h.env.Client.Create(ctx, p); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("hung partner: %w", err)
	}
	return nil
}

// createPartnerOrders creates n SwapOrders of partner directly, alternating providers.
func (h *harness) createPartnerOrders(ctx context.Context, partner string, n, concurrency int) ([]string, LoadResult) {
	var mu sync.Mutex
	ids := make([]string, 0, n)
	res := Closed(ctx, concurrency, 0, n, func(ctx context.Context, _, i int) error {
		o := h.newOrder(benchNamespace, providers[i%2])
		o.Spec.Partner = partner
		o.Labels[auth.PartnerLabel] = partner
		if err := h.env.Client.Create(ctx, o); err != nil {
			return err
		}
		mu.Lock()
		ids = append(ids, o.Spec.OrderID)
		mu.Unlock()
		return nil
	})
	return ids, res
}

// allTerminal reports whether every order of ids has a terminal status.
func (h *harness) allTerminal(ctx context.Context, ids []string) bool {
	for _, id := range ids {
		var o swapv1.SwapOrder
		if err := h.env.Client.Get(ctx, client.ObjectKey{Namespace: benchNamespace, Name: orderid.ObjectName(id)}, &o); err != nil ||
			!o.Status.Status.IsTerminal() {
			return false
		}
	}
	return true
}

// depositWhenAddressed deposits the full amount to each order once it has its address.
// Deleting from the map while ranging over it is safe in Go.
func (h *harness) depositWhenAddressed(ctx context.Context, ids []string) {
	pending := map[string]bool{}
	for _, id := range ids {
		pending[id] = true
	}
	for len(pending) > 0 && ctx.Err() == nil {
		for id := range pending {
			var o swapv1.SwapOrder
			err := h.env.Client.Get(ctx, client.ObjectKey{Namespace: benchNamespace, Name: orderid.ObjectName(id)}, &o)
			if err == nil && o.Status.DepositAddress == "" && o.Status.Status.IsTerminal() {
				delete(pending, id) // failed before it had an address: nothing to deposit
			}
			if err != nil || o.Status.DepositAddress == "" {
				continue
			}
			if _, err := h.env.Simulator.Deposit(o.Status.DepositAddress, pointOneETH); err != nil && !errors.Is(err, context.Canceled) {
				h.logf("  deposit to %s: %v", o.Status.DepositAddress, err)
			}
			delete(pending, id)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
