package bench

import (
	"context"
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
)

// The pair every scenario trades: both providers route ETH→SOL.
const (
	ethETH      = "eip155:1/slip44:60"
	solSOL      = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	sender      = "0x1111111111111111111111111111111111111111"
	solDest     = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	pointOneETH = "100000000000000000"
)

var providers = []swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB}

func namespaceObject(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// quoteLatency sets the injected latency of both providers' quote calls (0 removes it).
func (h *harness) setQuoteLatency(d time.Duration) {
	for _, p := range providers {
		h.env.Simulator.SetFault(p, simulator.CallQuote, simulator.Fault{Latency: d})
	}
}

// frontendQuote is a partner's dry quote.
func (h *harness) frontendQuote(ctx context.Context, _, _ int) error {
	resp, err := h.api.RequestQuote(ctx, nil, dryQuote(solSOL))
	return expect(resp, err, http.StatusOK, nil)
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
