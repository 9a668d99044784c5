package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/controllers"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/orders"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"net/http"
)

// Scenario 8: the order archive (issue 15). The bench partner's history is bulk-loaded into
// PostgreSQL with COPY next to its live orders; the figures are the GET /v1/order p99 of
// archived orders ÷ that of live ones, one GET /v1/orders page's p99 ÷ the live GET p99, the
// process's RSS (the manager runs in it) with the archive loaded and read ÷ before, and the
// SwapOrders in etcd ÷ (live orders + those still inside the TTL window).
const listPageLimit = 20

// listPage reads the first page of the bench partner's orders.
func (h *harness) listPage(ctx context.Context) error {
	limit := listPageLimit
	resp, err := h.api.ListOrders(ctx, &swapclient.ListOrdersParams{Limit: &limit})
	return expect(resp, err, http.StatusOK, nil)
}

// archiveSample is how many of the archived ids the reads pick from (their ids are derived
// from an index, so the sample costs no memory proportional to the archive).
const archiveSample = 10000

func (h *harness) orderArchive(ctx context.Context, s *Scenario) error {
	arch := h.env.System.Archive
	if arch == nil {
		return fmt.Errorf("the system runs without an order archive")
	}
	nArchived, nLive := h.cfg.count(1_000_000, 2_000), h.cfg.count(1_000, 100)

	liveIDs, err := h.liveOrders(ctx, nLive)
	if err != nil {
		return err
	}
	// The same reads once before loading, so that their connections and goroutine stacks are
	// on both sides of the RSS ratio and only the archive's million makes a difference.
	for _, get := range []read{h.randomOrder(liveIDs), h.listPage} {
		h.readRound(ctx, get, h.cfg.sized(3*time.Second, time.Second))
	}
	rssBefore, err := settledRSS()
	if err != nil {
		return err
	}
	h.logf("  bulk-loading %d archived orders with COPY", nArchived)
	start := time.Now()
	created := time.Now().Add(-24 * time.Hour)
	if err := arch.Load(ctx, nArchived, func(i int) archive.Entry { return h.archivedEntry(i, created) }); err != nil {
		return fmt.Errorf("loading the archive: %w", err)
	}
	loaded := time.Since(start)

	archivedIDs := make([]string, min(nArchived, archiveSample))
	for i := range archivedIDs {
		archivedIDs[i] = archivedID(rand.IntN(nArchived))
	}
	stopProfile := h.profile(s, "scenario8")
	p99 := h.readRounds(ctx, s, reads{"GET of live orders", h.randomOrder(liveIDs)},
		reads{"GET of archived orders", h.randomOrder(archivedIDs)},
		reads{"GET /v1/orders", h.listPage})
	live, archived, pages := p99[0], p99[1], p99[2]
	stopProfile()
	h.explainArchive(ctx, s, archivedIDs[0])
	rssAfter, err := settledRSS()
	if err != nil {
		return err
	}
	inEtcd, window, err := h.etcdOrders(ctx)
	if err != nil {
		return err
	}

	perRound := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, v := range xs {
			out[i] = Ratio(v, live[i])
		}
		return out
	}
	s.Setup = fmt.Sprintf("%d archived orders of the bench partner bulk-loaded with COPY (%s), %d live orders read among %d in etcd; "+
		"%d rounds, each of %s at %d GET/s (open loop) interleaving request by request random live orders, random archived orders (from %d of them) and the first page of GET /v1/orders (limit %d); "+
		"figures per round ÷ the same round's live p99. RSS of this process (the manager runs in it) after a GC: after a round of the live and page reads before loading, and after loading and reading. "+
		"The TTL window is the orders that ended within --order-ttl plus one sweep period",
		nArchived, loaded.Round(time.Second), len(liveIDs), inEtcd, h.cfg.Rounds, 3*h.cfg.sized(3*time.Second, time.Second), readRate, len(archivedIDs), listPageLimit)
	s.add("GET /v1/order p99 archived ÷ live", perRound(archived), AtMost(2))
	s.add("GET /v1/orders page p99 ÷ live GET p99", perRound(pages), AtMost(3))
	s.add(fmt.Sprintf("RSS with %d archived ÷ without", nArchived), []float64{Ratio(float64(rssAfter), float64(rssBefore))}, AtMost(1.2))
	s.add("SwapOrders in etcd ÷ (live + TTL window)", []float64{Ratio(float64(inEtcd), float64(window))}, AtMost(1))
	s.info("GET p99, live orders", "ms", live)
	s.info("GET p99, archived orders", "ms", archived)
	s.info("GET /v1/orders page p99", "ms", pages)
	s.info("RSS before loading", "MB", []float64{float64(rssBefore) / (1 << 20)})
	s.info("RSS after loading and reading", "MB", []float64{float64(rssAfter) / (1 << 20)})
	s.info("COPY rate", "orders/s", []float64{float64(nArchived) / loaded.Seconds()})
	return ctx.Err()
}

// explainArchive saves PostgreSQL's plans (EXPLAIN ANALYZE) of an archived GET and of the
// listing's archive query next to the CPU profiles, and notes their execution times.
func (h *harness) explainArchive(ctx context.Context, s *Scenario, id string) {
	get, list, err := h.env.System.Archive.Explain(ctx, h.env.Partner, id,
		archive.Query{Partner: h.env.Partner, Limit: listPageLimit + 1})
	if err != nil {
		s.note("no archive query plans: %v", err)
		return
	}
	s.note("archive GET plan: %s", planSummary(get))
	s.note("archive page plan: %s", planSummary(list))
	if h.cfg.ProfileDir != "" {
		_ = os.MkdirAll(h.cfg.ProfileDir, 0o755)
		_ = os.WriteFile(filepath.Join(h.cfg.ProfileDir, "scenario8.explain.txt"),
			[]byte("GET /v1/order (archived):\n"+get+"\n\nGET /v1/orders page:\n"+list+"\n"), 0o644)
	}
}

// planSummary is a plan's first node and its execution time, on one line.
func planSummary(plan string) string {
	lines := strings.Split(plan, "\n")
	out := []string{strings.TrimSpace(lines[0])}
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "->") && len(out) < 3 || strings.HasPrefix(l, "Execution Time") {
			out = append(out, l)
		}
	}
	return "`" + strings.Join(out, " ; ") + "`"
}

// liveOrders makes sure at least want non-terminal orders with a deposit address exist and
// returns their ids.
func (h *harness) liveOrders(ctx context.Context, want int) ([]string, error) {
	all, err := h.activeOrders(ctx)
	if err != nil {
		return nil, err
	}
	live := 0
	for _, o := range all {
		if !o.Status.Status.IsTerminal() {
			live++
		}
	}
	if missing := want - live; missing > 0 {
		if _, res := h.createOrders(ctx, benchNamespace, missing, 16); res.Errors > 0 {
			return nil, fmt.Errorf("creating live orders: %v", res.FirstErr)
		}
	}
	return h.addressedOrders(ctx, want, true)
}

// archivedID is the i-th loaded order's id: derived, so no list of a million ids is kept.
func archivedID(i int) string {
	return orderid.ForIdempotencyKey(benchNamespace, "bench-archive", fmt.Sprint(i))
}

// archivedEntry is the i-th loaded order: a settled swap of the bench partner as the
// reconciler archives it, one second apart going back from created.
func (h *harness) archivedEntry(i int, created time.Time) archive.Entry {
	o := h.newOrder(benchNamespace, providers[i%2])
	id := archivedID(i)
	o.Name, o.Spec.OrderID = orderid.ObjectName(id), id
	at := created.Add(-time.Duration(i) * time.Second)
	o.CreationTimestamp = metav1.NewTime(at)
	o.Status = swapv1.SwapOrderStatus{
		Status: swapv1.OrderSuccess, StatusReason: "SwapCompleted", LastSeq: 3, NotifiedSeq: 3,
		DepositAddress: "0xdeposit" + id[4:20], AmountIn: pointOneETH, AmountOut: "2000000000",
		InTxHashes: []string{"0xin" + id[4:]}, OutTxHashes: []string{"0xout" + id[4:]},
		History: []swapv1.StatusTransition{
			{Seq: 1, Status: swapv1.OrderPending, Reason: "DepositAddressIssued", At: swapv1.NewPreciseTime(at)},
			{Seq: 2, Status: swapv1.OrderProcessing, PreviousStatus: swapv1.OrderPending, At: swapv1.NewPreciseTime(at.Add(time.Minute))},
			{Seq: 3, Status: swapv1.OrderSuccess, PreviousStatus: swapv1.OrderProcessing, At: swapv1.NewPreciseTime(at.Add(3 * time.Minute))},
		},
	}
	return archive.Entry{Order: o, Deliveries: []archive.Delivery{{Name: "wd-" + id[4:], EventID: "evt_" + id[4:], Sequence: 3,
		Phase: swapv1.DeliveryDelivered, Attempts: 1, LastCode: 200}}}
}

// etcdOrders counts the bench namespace's SwapOrders, and those the archive design lets etcd
// hold: live ones and ended ones still inside the TTL window.
func (h *harness) etcdOrders(ctx context.Context) (total, allowed int, err error) {
	all, err := h.activeOrders(ctx)
	if err != nil {
		return 0, 0, err
	}
	ttl := h.orderTTL
	window := ttl + controllers.SweepInterval(ttl)
	now := time.Now()
	for _, o := range all {
		ended, terminal := orders.TerminalAt(&o.Status)
		if !terminal || now.Sub(ended.Time) <= window {
			allowed++
		}
	}
	return len(all), allowed, nil
}

// settledRSS is this process's resident memory after a GC that returns freed memory to the
// OS, so garbage of the bench itself does not count.
func settledRSS() (int64, error) {
	runtime.GC()
	debug.FreeOSMemory()
	st, err := ReadProc("self")
	return st.RSS, err
}
