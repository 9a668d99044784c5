package controllers

import (
	"context"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

var ordersDesc = prometheus.NewDesc("swaprouter_orders",
	"SwapOrders currently stored, by status (NEW: no deposit address yet).", []string{"status"}, nil)

// gaugedStatuses are the statuses the gauge always reports ("" is shown as NEW), so a series
// drops to 0 instead of vanishing.
var gaugedStatuses = append([]swapv1.OrderStatus{""}, swapv1.OrderStatuses...)

// ordersGauge counts the cached SwapOrders by status as the informer delivers them: a scrape
// reads a few counters instead of listing (and walking) every cached order.
type ordersGauge struct {
	mu     sync.Mutex
	counts map[swapv1.OrderStatus]int
}

func newOrdersGauge() *ordersGauge {
	g := &ordersGauge{counts: make(map[swapv1.OrderStatus]int, len(gaugedStatuses))}
	for _, s := range gaugedStatuses {
		g.counts[s] = 0
	}
	return g
}

// OnAdd counts a new order (the informer's initial list arrives as adds too).
func (g *ordersGauge) OnAdd(obj any, _ bool) { g.move(nil, obj) }

// OnUpdate moves an order between statuses; a resync or a change elsewhere moves nothing.
func (g *ordersGauge) OnUpdate(oldObj, newObj any) { g.move(oldObj, newObj) }

// OnDelete uncounts an order. A delete the informer only noticed on a relist comes as a
// tombstone holding the last state it had, which is the state counted.
func (g *ordersGauge) OnDelete(obj any) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	g.move(obj, nil)
}

// move uncounts from and counts to, either of which may be nil (or not an order).
func (g *ordersGauge) move(from, to any) {
	oldOrder, hadOld := from.(*swapv1.SwapOrder)
	newOrder, hasNew := to.(*swapv1.SwapOrder)
	if hadOld && hasNew && oldOrder.Status.Status == newOrder.Status.Status {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if hadOld {
		g.counts[oldOrder.Status.Status]--
	}
	if hasNew {
		g.counts[newOrder.Status.Status]++
	}
}

func (g *ordersGauge) collect(ch chan<- prometheus.Metric) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for s, n := range g.counts {
		label := string(s)
		if s == "" {
			label = "NEW"
		}
		ch <- prometheus.MustNewConstMetric(ordersDesc, prometheus.GaugeValue, float64(n), label)
	}
}

// countOrders starts counting the orders of c's SwapOrder informer for swaprouter_orders.
func countOrders(c cache.Informers) (*ordersGauge, error) {
	informer, err := c.GetInformer(context.Background(), &swapv1.SwapOrder{})
	if err != nil {
		return nil, fmt.Errorf("orders gauge: %w", err)
	}
	g := newOrdersGauge()
	if _, err := informer.AddEventHandler(g); err != nil {
		return nil, fmt.Errorf("orders gauge: %w", err)
	}
	return g, nil
}

// ordersCollector serves swaprouter_orders from a gauge.
type ordersCollector struct{ gauge *ordersGauge }

func (ordersCollector) Describe(ch chan<- *prometheus.Desc) { ch <- ordersDesc }

func (c ordersCollector) Collect(ch chan<- prometheus.Metric) { c.gauge.collect(ch) }
