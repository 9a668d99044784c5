package manifests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/orderdisplay"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

const (
	usdcArb  = "eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831"
	usdtTron = "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
	eth      = "eip155:1/slip44:60"
	sol      = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
)

// tableWidth is what a default `kubectl get` table of ours may take: a terminal of 100
// columns, without -o wide.
const tableWidth = 100

// Every default table fits tableWidth columns with values as wide as real ones get: kubectl
// itself prints them from the CRDs' printer columns, and the longest line is measured.
func TestDefaultTablesFitAHundredColumns(t *testing.T) {
	plane, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plane.Env.Stop() })
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, plane.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, c := context.Background(), plane.Client
	ns := "swaprouter-system"
	must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	for _, o := range realisticObjects(ns) {
		status := o.DeepCopyObject().(client.Object)
		must(t, c.Create(ctx, o))
		copyStatus(status, o)
		must(t, c.Status().Update(ctx, o))
	}

	for _, resource := range []string{"swaporders", "webhookdeliveries", "partners", "routingproviders", "redeliveryrequests"} {
		out := kubectl(t, kubeconfig, nil, "get", resource, "-n", ns)
		widest, line := 0, ""
		for l := range strings.SplitSeq(strings.TrimRight(string(out), "\n"), "\n") {
			if w := utf8.RuneCountInString(l); w > widest {
				widest, line = w, l
			}
		}
		// The objects were made a moment ago; a real table's last column, AGE, reads up to
		// "2y45d", not "0s".
		if header, _, _ := strings.Cut(string(out), "\n"); strings.HasSuffix(header, "AGE") {
			widest = max(widest, utf8.RuneCountInString(header)-len("AGE")+len("2y45d"))
		}
		if strings.Count(string(out), "\n") < 2 {
			t.Errorf("kubectl get %s shows no objects:\n%s", resource, out)
		}
		t.Logf("kubectl get %s (%d columns with a real AGE):\n%s", resource, widest, out)
		if widest > tableWidth {
			t.Errorf("kubectl get %s is %d columns wide, more than %d:\n%s\nwidest line:\n%s", resource, widest, tableWidth, out, line)
		}
	}
}

// copyStatus puts from's status (the one the object was declared with) on to, which Create
// returned without it.
func copyStatus(from, to client.Object) {
	switch f := from.(type) {
	case *swapv1.SwapOrder:
		to.(*swapv1.SwapOrder).Status = f.Status
	case *swapv1.WebhookDelivery:
		to.(*swapv1.WebhookDelivery).Status = f.Status
	case *swapv1.Partner:
		to.(*swapv1.Partner).Status = f.Status
	case *swapv1.RoutingProvider:
		to.(*swapv1.RoutingProvider).Status = f.Status
	case *swapv1.RedeliveryRequest:
		to.(*swapv1.RedeliveryRequest).Status = f.Status
	}
}

// realisticObjects are objects whose printed values are as wide as the service makes them:
// ids at their full length, the longest statuses and phases, amounts with every digit their
// assets have.
func realisticObjects(ns string) []client.Object {
	id := func(prefix string, i int) string {
		return fmt.Sprintf("%s_%s%c", prefix, strings.Repeat("q", 25), 'a'+i)
	}
	name := func(prefix string, i int) string { return strings.ReplaceAll(id(prefix, i), "_", "-") }
	long := func(d time.Duration) metav1.Time { return metav1.NewTime(time.Now().Add(-d)) }
	assets := map[string]catalog.Asset{
		usdcArb:  {AssetID: usdcArb, Chain: "arb", Symbol: "USDC", Decimals: 6},
		usdtTron: {AssetID: usdtTron, Chain: "tron", Symbol: "USDT", Decimals: 6},
		eth:      {AssetID: eth, Chain: "eth", Symbol: "ETH", Decimals: 18},
		sol:      {AssetID: sol, Chain: "sol", Symbol: "SOL", Decimals: 9},
	}
	lookup := func(id string) (catalog.Asset, bool) { a, ok := assets[id]; return a, ok }
	// order is an order as the frontend creates it and the controllers show it.
	order := func(i int, from, to, amount string, st swapv1.SwapOrderStatus) *swapv1.SwapOrder {
		o := &swapv1.SwapOrder{
			ObjectMeta: metav1.ObjectMeta{Name: name("ord", i), Namespace: ns},
			Spec: swapv1.SwapOrderSpec{
				OrderID: id("ord", i), Partner: "acme-exchange", ProviderID: swapv1.ProviderRouteA,
				OriginAsset: from, DestinationAsset: to, Amount: amount, SwapType: swapv1.ExactInput,
				Sender: "0x1111111111111111111111111111111111111111", Recipient: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
			},
			Status: st,
		}
		o.Spec.Display = orderdisplay.Created(o.Spec, lookup)
		o.Status.Display = orderdisplay.Now(o.Spec, o.Status, lookup)
		return o
	}
	delivery := func(i int, redelivery int32, phase swapv1.DeliveryPhase, attempts, code int32) *swapv1.WebhookDelivery {
		n := name("evt", i)
		if redelivery > 0 {
			n += fmt.Sprintf("-r%d", redelivery)
		}
		return &swapv1.WebhookDelivery{
			ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: ns},
			Spec: swapv1.WebhookDeliverySpec{Partner: "acme-exchange", OrderID: id("ord", i), EventID: id("evt", i), Sequence: 12,
				Payload: "{}", Redelivery: redelivery},
			Status: swapv1.WebhookDeliveryStatus{Phase: phase, AttemptCount: attempts, LastCode: code},
		}
	}
	refreshed := long(3 * time.Minute)
	return []client.Object{
		order(1, usdcArb, usdtTron, "1234567891", swapv1.SwapOrderStatus{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusIncompleteDeposit}),
		order(2, usdcArb, usdtTron, "1234567891", swapv1.SwapOrderStatus{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialRefund,
			AmountOut: "1233129456", RefundedAmount: "567891"}),
		order(3, eth, sol, "123456789012345678", swapv1.SwapOrderStatus{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled,
			AmountOut: "19823456789"}),
		order(4, eth, sol, "123456789012345678", swapv1.SwapOrderStatus{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded,
			RefundedAmount: "123456789012345678"}),
		delivery(1, 0, swapv1.DeliveryPending, 7, 503),
		delivery(2, 12, swapv1.DeliveryDelivered, 10, 204),
		&swapv1.Partner{
			ObjectMeta: metav1.ObjectMeta{Name: "acme-exchange-production", Namespace: ns},
			Status: swapv1.PartnerStatus{ActiveKeys: 3, QuotaUsage: &swapv1.QuotaUsage{Month: "2026-11", Quotes: 123456789},
				Limits: &swapv1.PartnerLimits{Tier: "enterprise", RequestsPerMinute: 100000, MonthlyQuoteQuota: 0, Quota: "unlimited"}},
		},
		&swapv1.RoutingProvider{
			ObjectMeta: metav1.ObjectMeta{Name: "route-b-perseverance", Namespace: ns},
			Spec: swapv1.RoutingProviderSpec{ProviderID: "route_B", Protocol: swapv1.ProtocolChannel, Enabled: true,
				Endpoint: "https://perseverance.chainflip-broker.io"},
			Status: swapv1.RoutingProviderStatus{AssetCount: 1234, LastRefresh: &refreshed,
				Conditions: []metav1.Condition{{Type: swapv1.ConditionReady, Status: metav1.ConditionUnknown, Reason: "Refreshing", LastTransitionTime: refreshed}}},
		},
		&swapv1.RedeliveryRequest{
			ObjectMeta: metav1.ObjectMeta{Name: name("ord", 1) + "-x7k2p", Namespace: ns},
			Spec:       swapv1.RedeliveryRequestSpec{Partner: "acme-exchange", OrderID: id("ord", 1), EventID: id("evt", 1)},
			Status:     swapv1.RedeliveryRequestStatus{Phase: swapv1.RedeliveryRefused, Reason: "the partner's webhooks are disabled"},
		},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
