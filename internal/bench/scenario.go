package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/provider"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
)

// The pair every scenario trades: every provider routes ETH→SOL.
const (
	ethETH      = "eip155:1/slip44:60"
	solSOL      = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	sender      = "0x1111111111111111111111111111111111111111"
	solDest     = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	pointOneETH = "100000000000000000"
)

// providers are the two that orders alternate between.
var providers = []swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB}

// quoteProviders are every provider a quote fans out to: route_A (1Click), route_B
// (Chainflip) and relay (Relay), all on the simulator.
var quoteProviders = []swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB, simulator.Relay}

// protocols are the quote providers' protocols, for the direct baselines.
var protocols = map[swapv1.ProviderID]swapv1.ProviderProtocol{
	swapv1.ProviderRouteA: swapv1.ProtocolOneClick, swapv1.ProviderRouteB: swapv1.ProtocolChannel, simulator.Relay: swapv1.ProtocolRelay,
}

func namespaceObject(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// quoteLatency sets the injected latency of every provider's quote call (0 removes it).
func (h *harness) setQuoteLatency(d time.Duration) {
	for _, p := range quoteProviders {
		h.env.Simulator.SetFault(p, simulator.CallQuote, simulator.Fault{Latency: d})
	}
}

// frontendQuote is a partner's dry quote.
func (h *harness) frontendQuote(ctx context.Context, _, _ int) error {
	resp, err := h.api.RequestQuote(ctx, nil, dryQuote(solSOL))
	return expect(resp, err, http.StatusOK, nil)
}

// candidates is how many candidates a dry quote of the pair has (-1 when it fails).
func (h *harness) candidates(ctx context.Context) int {
	var answer struct {
		Candidates []swapclient.QuoteCandidate `json:"candidates"`
	}
	resp, err := h.api.RequestQuote(ctx, nil, dryQuote(solSOL))
	if err := expect(resp, err, http.StatusOK, &answer); err != nil {
		return -1
	}
	return len(answer.Candidates)
}

// ensureRelay applies a RoutingProvider for the simulator's Relay unless the installation
// has one, and waits until quotes fan out to every quote provider.
func (h *harness) ensureRelay(ctx context.Context) error {
	var list swapv1.RoutingProviderList
	if err := h.env.Client.List(ctx, &list, client.InNamespace(benchNamespace)); err != nil {
		return err
	}
	for _, rp := range list.Items {
		if rp.Spec.ProviderID == simulator.Relay {
			h.relay = client.ObjectKeyFromObject(&rp)
			return h.awaitCandidates(ctx, len(quoteProviders))
		}
	}
	rp := &swapv1.RoutingProvider{
		ObjectMeta: metav1.ObjectMeta{Name: "relay", Namespace: benchNamespace},
		Spec: swapv1.RoutingProviderSpec{
			ProviderID: simulator.Relay, DisplayName: "Relay", Protocol: swapv1.ProtocolRelay,
			Endpoint: h.env.SimulatorURL + "/" + string(simulator.Relay), Timeout: metav1.Duration{Duration: 5 * time.Second},
			PollInterval: swapv1.PollInterval{
				Min: metav1.Duration{Duration: h.pollMin}, Max: metav1.Duration{Duration: h.pollMax},
			},
			AssetRefreshInterval: metav1.Duration{Duration: 5 * time.Minute},
			Enabled:              true,
		},
	}
	if err := h.env.Client.Create(ctx, rp); err != nil {
		return fmt.Errorf("RoutingProvider relay: %w", err)
	}
	h.relay = client.ObjectKeyFromObject(rp)
	return h.awaitCandidates(ctx, len(quoteProviders))
}

// setRelayEnabled enables or disables the relay RoutingProvider and waits until quotes have
// three candidates, or two.
func (h *harness) setRelayEnabled(ctx context.Context, enabled bool) error {
	rp := &swapv1.RoutingProvider{}
	if err := h.env.Client.Get(ctx, h.relay, rp); err != nil {
		return err
	}
	base := rp.DeepCopy()
	rp.Spec.Enabled = enabled
	if err := h.env.Client.Patch(ctx, rp, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("enabling relay (%v): %w", enabled, err)
	}
	want := len(quoteProviders)
	if !enabled {
		want--
	}
	return h.awaitCandidates(ctx, want)
}

// awaitCandidates waits until a dry quote has n candidates.
func (h *harness) awaitCandidates(ctx context.Context, n int) error {
	var got int
	if !waitFor(ctx, h.cfg.budget(time.Minute), 20*time.Millisecond, func() bool { got = h.candidates(ctx); return got == n }) {
		return fmt.Errorf("dry quotes have %d candidates, want %d", got, n)
	}
	return nil
}

// directQuote asks one provider through its adapter, as the frontend's router does.
func (h *harness) directQuote(id swapv1.ProviderID) Op {
	p := h.direct[id]
	return func(ctx context.Context, _, _ int) error {
		_, err := p.Quote(ctx, provider.QuoteRequest{
			OriginAsset: ethETH, DestinationAsset: solSOL, Amount: pointOneETH, SwapType: swapv1.ExactInput,
		})
		return err
	}
}

// directFanOut asks every quote provider at once through its adapter and waits for all: the
// simulator's share of a frontend quote, without the frontend.
func (h *harness) directFanOut() Op {
	ops := make([]Op, len(quoteProviders))
	for i, id := range quoteProviders {
		ops[i] = h.directQuote(id)
	}
	return func(ctx context.Context, worker, i int) error {
		errs := make([]error, len(ops))
		var wg sync.WaitGroup
		for j, op := range ops {
			wg.Go(func() { errs[j] = op(ctx, worker, i) })
		}
		wg.Wait()
		return errors.Join(errs...)
	}
}

// newOrder is a SwapOrder as the frontend would create it, for provider p.
func (h *harness) newOrder(namespace string, p swapv1.ProviderID) *swapv1.SwapOrder {
	id := orderid.New()
	return &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{
			Name: orderid.ObjectName(id), Namespace: namespace,
			Labels: map[string]string{auth.PartnerLabel: h.env.Partner},
		},
		Spec: swapv1.SwapOrderSpec{
			OrderID: id, Partner: h.env.Partner, OriginAsset: ethETH, DestinationAsset: solSOL,
			Amount: pointOneETH, SwapType: swapv1.ExactInput, Sender: sender, Recipient: solDest, ProviderID: p,
		},
	}
}

// createOrders creates n SwapOrders directly at the given concurrency and returns their ids.
func (h *harness) createOrders(ctx context.Context, namespace string, n, concurrency int) ([]string, LoadResult) {
	var mu sync.Mutex
	ids := make([]string, 0, n)
	res := Closed(ctx, concurrency, 0, n, func(ctx context.Context, _, i int) error {
		o := h.newOrder(namespace, providers[i%2])
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

// depositAddressesCreated counts the deposit addresses the simulator handed out.
func (h *harness) depositAddressesCreated() int {
	n := 0
	for _, byRecipient := range h.env.Simulator.Stats().DepositAddressesCreated {
		for _, created := range byRecipient {
			n += created
		}
	}
	return n
}

// statusCalls counts status calls the simulator answered, both providers.
func (h *harness) statusCalls() int {
	n := 0
	for _, calls := range h.env.Simulator.Stats().Calls {
		n += calls[simulator.CallStatus]
	}
	return n
}

// waitFor polls cond every interval until it holds or timeout passes (never, for unbounded).
func waitFor(ctx context.Context, timeout, interval time.Duration, cond func() bool) bool {
	start := time.Now()
	for {
		if cond() {
			return true
		}
		if time.Since(start) > timeout || ctx.Err() != nil {
			return false
		}
		time.Sleep(interval)
	}
}

// activeOrders lists the orders of the bench namespace from the API server.
func (h *harness) activeOrders(ctx context.Context) ([]swapv1.SwapOrder, error) {
	var list swapv1.SwapOrderList
	if err := h.env.Client.List(ctx, &list, client.InNamespace(benchNamespace)); err != nil {
		return nil, err
	}
	return list.Items, nil
}

func errNote(what string, r LoadResult) string {
	if r.Errors == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d of %d operations failed (first: %v)", what, r.Errors, r.Errors+r.OK(), r.FirstErr)
}
