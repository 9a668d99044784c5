package controllers

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// allocatedBy is the fewest bytes fn allocated over a few runs (the fewest: other goroutines'
// allocations only ever add to a run's count).
func allocatedBy(fn func()) uint64 {
	var least uint64
	for i := 0; i < 5; i++ {
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

var _ = Describe("swaprouter_orders gauge", func() {
	It("counts the cached orders without copying them at every scrape", func(ctx SpecContext) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gauge-"}}
		Expect(k8sClient.Create(ctx, ns)).To(Succeed())
		const n = 200
		for i := 0; i < n; i++ {
			id := randomOrderID()
			o := &swapv1.SwapOrder{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gauge-%d", i), Namespace: ns.Name},
				Spec: swapv1.SwapOrderSpec{
					OrderID: id, Partner: "acme", ProviderID: swapv1.ProviderRouteA,
					OriginAsset: "eip155:1/slip44:60", DestinationAsset: "eip155:42161/slip44:60", Amount: "1000000",
					Sender: "0xsender", Recipient: "0xrecipient",
				},
			}
			Expect(k8sClient.Create(ctx, o)).To(Succeed())
			// A settled order's status, as the reconciler leaves it: what a copy would copy.
			at := metav1.Now()
			o.Status = swapv1.SwapOrderStatus{
				Status: swapv1.OrderSuccess, ProviderStatus: "SUCCESS", ProviderRef: "ref-" + id,
				DepositAddress: "0x" + strings.Repeat("ab", 20), AmountIn: "1000000", AmountOut: "999000", LastSeq: 3,
				InTxHashes: []string{"0x" + strings.Repeat("cd", 32)}, OutTxHashes: []string{"0x" + strings.Repeat("ef", 32)},
				History: []swapv1.StatusTransition{
					{Seq: 1, Status: swapv1.OrderPending, At: at},
					{Seq: 2, Status: swapv1.OrderProcessing, PreviousStatus: swapv1.OrderPending, At: at},
					{Seq: 3, Status: swapv1.OrderSuccess, PreviousStatus: swapv1.OrderProcessing, At: at},
				},
			}
			Expect(k8sClient.Status().Update(ctx, o)).To(Succeed())
		}
		mgr := newTestManager()
		runTestManager(mgr)
		cache := mgr.GetCache()
		Eventually(func(g Gomega) {
			var list swapv1.SwapOrderList
			g.Expect(cache.List(ctx, &list, client.InNamespace(ns.Name))).To(Succeed())
			g.Expect(list.Items).To(HaveLen(n))
		}).Should(Succeed())
		setOrderLister(cache)
		DeferCleanup(func() { orderLister.Store(nil) })

		scrape := func() {
			ch := make(chan prometheus.Metric, 16)
			go func() { ordersCollector{}.Collect(ch); close(ch) }()
			for range ch {
			}
		}
		copying := func() {
			var list swapv1.SwapOrderList
			Expect(cache.List(context.Background(), &list)).To(Succeed())
		}
		scraped, copied := allocatedBy(scrape), allocatedBy(copying)
		By(fmt.Sprintf("bytes allocated: %d per scrape, %d per deep-copying list of the same cache", scraped, copied))
		Expect(scraped).To(BeNumerically("<", copied/2))
	})
})
