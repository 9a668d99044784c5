package controllers

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// allocatedBy is the fewest bytes fn allocated over a few runs (the fewest: other goroutines'
// allocations only ever add to a run's count).
func allocatedBy(fn func()) uint64 {
	var least uint64
	for i := 0; i < 10; i++ {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; i == 0 || n < least {
			least = n
		}
	}
	return least
}

// scrapeOrders is what a scrape of swaprouter_orders reports, by status label.
func scrapeOrders(g *ordersGauge) map[string]float64 {
	ch := make(chan prometheus.Metric, 16)
	go func() { ordersCollector{g}.Collect(ch); close(ch) }()
	got := map[string]float64{}
	for m := range ch {
		var pb dto.Metric
		Expect(m.Write(&pb)).To(Succeed())
		got[pb.GetLabel()[0].GetValue()] = pb.GetGauge().GetValue()
	}
	return got
}

func orderIn(name string, st swapv1.OrderStatus) *swapv1.SwapOrder {
	return &swapv1.SwapOrder{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Status: swapv1.SwapOrderStatus{Status: st}}
}

func TestOrdersGaugeFollowsInformerEvents(t *testing.T) {
	g := newOrdersGauge()

	newA, pendingA, successA := orderIn("a", ""), orderIn("a", swapv1.OrderPending), orderIn("a", swapv1.OrderSuccess)
	b, c := orderIn("b", swapv1.OrderPending), orderIn("c", swapv1.OrderFailed)
	g.OnAdd(newA, true)
	g.OnAdd(b, true)
	g.OnAdd(c, false)
	g.OnUpdate(newA, pendingA)     // the deposit address arrived
	g.OnUpdate(pendingA, successA) // then the swap settled
	g.OnUpdate(b, b)               // a resync
	g.OnDelete(c)
	g.OnAdd(orderIn("d", swapv1.OrderProcessing), false)
	// d's delete seen only on a relist: a tombstone with the last state the informer had.
	g.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "ns/d", Obj: orderIn("d", swapv1.OrderProcessing)})
	g.OnAdd(orderIn("e", ""), false)

	want := `
# HELP swaprouter_orders SwapOrders currently stored, by status (NEW: no deposit address yet).
# TYPE swaprouter_orders gauge
swaprouter_orders{status="FAILED"} 0
swaprouter_orders{status="NEW"} 1
swaprouter_orders{status="PENDING"} 1
swaprouter_orders{status="PROCESSING"} 0
swaprouter_orders{status="REFUNDED"} 0
swaprouter_orders{status="SUCCESS"} 1
swaprouter_orders{status="UNKNOWN"} 0
`
	if err := testutil.CollectAndCompare(ordersCollector{g}, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

var _ = Describe("swaprouter_orders gauge", func() {
	It("counts the cached orders exactly through creates, transitions and deletes, and a scrape allocates the same at any N", func(ctx SpecContext) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gauge-"}}
		Expect(k8sClient.Create(ctx, ns)).To(Succeed())
		mgr := newNamespacedTestManager(ns.Name)
		gauge, err := countOrders(mgr.GetCache())
		Expect(err).NotTo(HaveOccurred())
		scrape := func() map[string]float64 { return scrapeOrders(gauge) }
		runTestManager(mgr)
		Expect(mgr.GetCache().WaitForCacheSync(ctx)).To(BeTrue())
		zeros := map[string]float64{"NEW": 0, "PENDING": 0, "PROCESSING": 0, "SUCCESS": 0, "REFUNDED": 0, "FAILED": 0, "UNKNOWN": 0}
		Expect(scrape()).To(Equal(zeros))
		scrapeEmpty := allocatedBy(func() { scrape() })

		const n = 200
		orders := make([]*swapv1.SwapOrder, n)
		for i := range orders {
			id := randomOrderID()
			orders[i] = &swapv1.SwapOrder{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gauge-%d", i), Namespace: ns.Name},
				Spec: swapv1.SwapOrderSpec{
					OrderID: id, Partner: "acme", ProviderID: swapv1.ProviderRouteA,
					OriginAsset: "eip155:1/slip44:60", DestinationAsset: "eip155:42161/slip44:60", Amount: "1000000",
					Sender: "0xsender", Recipient: "0xrecipient",
				},
			}
			Expect(k8sClient.Create(ctx, orders[i])).To(Succeed())
		}
		setStatus := func(o *swapv1.SwapOrder, st swapv1.OrderStatus) {
			o.Status.Status = st
			o.Status.DepositAddress = "0x" + strings.Repeat("ab", 20)
			Expect(k8sClient.Status().Update(ctx, o)).To(Succeed())
		}
		for _, o := range orders[:150] {
			setStatus(o, swapv1.OrderPending)
		}
		Eventually(scrape).Should(Equal(merge(zeros, map[string]float64{"NEW": 50, "PENDING": 150})))

		By("transitions move orders between statuses")
		for _, o := range orders[:40] {
			setStatus(o, swapv1.OrderProcessing)
		}
		for _, o := range orders[:10] {
			setStatus(o, swapv1.OrderSuccess)
		}
		Eventually(scrape).Should(Equal(merge(zeros, map[string]float64{"NEW": 50, "PENDING": 110, "PROCESSING": 30, "SUCCESS": 10})))

		By("a scrape does not walk the orders: it allocates no more with 200 orders than with none")
		scrapeFull := allocatedBy(func() { scrape() })
		By(fmt.Sprintf("bytes allocated per scrape: %d with no orders, %d with %d", scrapeEmpty, scrapeFull, n))
		// Anything walking the orders allocates at least a pointer per order.
		Expect(scrapeFull).To(BeNumerically("<", scrapeEmpty+n), "bytes per scrape: %d with no orders, %d with %d", scrapeEmpty, scrapeFull, n)

		By("deletes uncount")
		for _, o := range slices.Concat(orders[:5], orders[190:]) { // 5 SUCCESS, 10 NEW
			Expect(k8sClient.Delete(ctx, o)).To(Succeed())
		}
		Eventually(scrape).Should(Equal(merge(zeros, map[string]float64{"NEW": 40, "PENDING": 110, "PROCESSING": 30, "SUCCESS": 5})))
	})
})

// merge is base with over's entries replacing its own.
func merge(base, over map[string]float64) map[string]float64 {
	out := maps.Clone(base)
	maps.Copy(out, over)
	return out
}
