package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/postgres"
)

var server *postgres.Server

func TestMain(m *testing.M) {
	s, stop, err := postgres.StartThrowaway(context.Background(), os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting PostgreSQL:", err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	stop()
	os.Exit(code)
}

// open returns a migrated archive in a fresh database of its own.
func open(t *testing.T) *Postgres {
	t.Helper()
	a, _ := openUnmigrated(t)
	ctx := context.Background()
	if err := a.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Migrating again is a no-op, as at every restart.
	if err := a.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return a
}

// openUnmigrated returns an archive in a fresh database of its own (named db), not migrated.
func openUnmigrated(t *testing.T) (a *Postgres, db string) {
	t.Helper()
	db = fmt.Sprintf("t%d", time.Now().UnixNano())
	dsn, err := server.CreateDatabase(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = Open(dsn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, db
}

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func order(partner, id string, created time.Time, status swapv1.OrderStatus) *swapv1.SwapOrder {
	o := &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: "swap", CreationTimestamp: metav1.NewTime(created),
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "x"}}},
		Spec: swapv1.SwapOrderSpec{OrderID: id, Partner: partner, ProviderID: "route_A", Amount: "100",
			OriginAsset: "eip155:1/slip44:60", DestinationAsset: "eip155:1/slip44:60", Sender: "s", Recipient: "r"},
	}
	o.Status.Status = status
	o.Status.LastSeq = 2
	o.Status.History = []swapv1.StatusTransition{
		{Seq: 1, Status: swapv1.OrderPending, At: swapv1.NewPreciseTime(created)},
		{Seq: 2, Status: status, PreviousStatus: swapv1.OrderPending, At: swapv1.NewPreciseTime(created.Add(time.Minute))},
	}
	return o
}

func id(n int) string { return fmt.Sprintf("ord_%026d", n) }

func TestPutIsIdempotentAndKeepsTheWholeRecord(t *testing.T) {
	a, ctx := open(t), context.Background()
	o := order("acme", id(1), base, swapv1.OrderSuccess)
	o.Status.InTxHashes = []string{"0xin"}
	o.Status.OutTxHashes = []string{"0xout"}
	if err := a.Put(ctx, Entry{Order: o}); err != nil {
		t.Fatal(err)
	}
	done := time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC)
	deliveries := []Delivery{{EventID: "evt_1", Sequence: 1, Phase: swapv1.DeliveryDelivered, Attempts: 2, LastCode: 204, CompletedAt: &done}}
	if err := a.Put(ctx, Entry{Order: o, Deliveries: deliveries}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, "acme", o.Spec.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.OrderID != o.Spec.OrderID || got.Status.Status != swapv1.OrderSuccess ||
		len(got.Status.History) != 2 || got.Status.OutTxHashes[0] != "0xout" || got.ManagedFields != nil {
		t.Fatalf("archived order differs: %+v", got)
	}
	ds, err := a.Deliveries(ctx, "acme", o.Spec.OrderID)
	if err != nil || len(ds) != 1 || ds[0].LastCode != 204 || !ds[0].CompletedAt.Equal(done) {
		t.Fatalf("deliveries = %+v, %v", ds, err)
	}
	page, err := a.List(ctx, Query{Partner: "acme", Limit: 10})
	if err != nil || len(page) != 1 {
		t.Fatalf("two puts of one order list as %d orders (%v)", len(page), err)
	}
}

func TestPartnersSeeOnlyTheirOwnOrders(t *testing.T) {
	a, ctx := open(t), context.Background()
	for i, p := range []string{"acme", "globex", "acme"} {
		if err := a.Put(ctx, Entry{Order: order(p, id(i), base.Add(time.Duration(i)*time.Second), swapv1.OrderFailed)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Get(ctx, "acme", id(1)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("acme reads globex's order: %v", err)
	}
	page, err := a.List(ctx, Query{Partner: "globex", Limit: 100})
	if err != nil || len(page) != 1 || page[0].Spec.OrderID != id(1) {
		t.Fatalf("globex lists %v (%v)", page, err)
	}
	// Operators look any order up by id.
	if o, err := a.Lookup(ctx, id(1)); err != nil || o.Spec.Partner != "globex" {
		t.Fatalf("Lookup(%s) = %v, %v", id(1), o, err)
	}
	if _, err := a.Lookup(ctx, id(9)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Lookup of an order never archived: %v", err)
	}
}

func TestListFiltersAndPagesWithoutGapsOrDuplicates(t *testing.T) {
	a, ctx := open(t), context.Background()
	const n = 10000
	batch := make([]Entry, 0, n)
	for i := range n {
		status := swapv1.OrderSuccess
		if i%3 == 0 {
			status = swapv1.OrderRefunded
		}
		// Ten orders share each second, so the id breaks ties.
		batch = append(batch, Entry{Order: order("acme", id(i), base.Add(time.Duration(i/10)*time.Second), status)})
	}
	for _, e := range batch {
		if err := a.Put(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	var after *Position
	var last Position
	for pages := 0; ; pages++ {
		page, err := a.List(ctx, Query{Partner: "acme", Limit: 100, After: after})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, o := range page {
			pos := Position{o.CreationTimestamp.Time, o.Spec.OrderID}
			if seen[o.Spec.OrderID] {
				t.Fatalf("%s listed twice", o.Spec.OrderID)
			}
			if len(seen) > 0 && !last.Before(pos) {
				t.Fatalf("%v listed after %v: not newest first", pos, last)
			}
			seen[o.Spec.OrderID], last = true, pos
		}
		after = &last
	}
	if len(seen) != n {
		t.Fatalf("paged through %d orders, want %d", len(seen), n)
	}

	// Above keeps the orders newer than it: here orders 9990..9999 (the last second) and
	// 9985..9989 (the same second as 9984, with greater ids).
	above := Position{base.Add(998 * time.Second), id(9984)}
	if newer, err := a.List(ctx, Query{Partner: "acme", Limit: 100, Above: &above}); err != nil || len(newer) != 15 {
		t.Fatalf("orders above %v: %d (%v), want 15", above, len(newer), err)
	}

	refunded, err := a.List(ctx, Query{Partner: "acme", Status: swapv1.OrderRefunded, Limit: 100,
		From: base.Add(100 * time.Second), To: base.Add(130 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	// Seconds 100..129 hold orders 1000..1299; every third is REFUNDED.
	if len(refunded) != 100 {
		t.Fatalf("REFUNDED between 100 s and 130 s: %d orders, want 100", len(refunded))
	}
	for _, o := range refunded {
		if o.Status.Status != swapv1.OrderRefunded || o.CreationTimestamp.Before(&metav1.Time{Time: base.Add(100 * time.Second)}) {
			t.Fatalf("filter let %s (%s, %s) through", o.Spec.OrderID, o.Status.Status, o.CreationTimestamp)
		}
	}
}

func TestReserveKeepsIdsAndReferencesForever(t *testing.T) {
	a, ctx := open(t), context.Background()
	first := Reservation{OrderID: id(1), Partner: "acme", IdempotencyKeyHash: "h1", ClientReference: "inv-1"}
	got, err := a.Reserve(ctx, first)
	if err != nil || got != first {
		t.Fatalf("first reservation: %+v, %v", got, err)
	}
	// A retry with another body finds the first request's hash.
	got, err = a.Reserve(ctx, Reservation{OrderID: id(1), Partner: "acme", IdempotencyKeyHash: "h2"})
	if err != nil || got != first {
		t.Fatalf("second reservation of the id: %+v, %v", got, err)
	}
	_, err = a.Reserve(ctx, Reservation{OrderID: id(2), Partner: "acme", ClientReference: "inv-1"})
	var taken *ReferenceTakenError
	if !errors.As(err, &taken) || taken.OrderID != id(1) {
		t.Fatalf("reused clientReference: %v", err)
	}
	if _, err := a.Reserve(ctx, Reservation{OrderID: id(3), Partner: "globex", ClientReference: "inv-1"}); err != nil {
		t.Fatalf("another partner's equal clientReference: %v", err)
	}

	// Retention deletes the record, never the id.
	o := order("acme", id(1), base, swapv1.OrderSuccess)
	o.Spec.IdempotencyKeyHash, o.Spec.ClientReference = "h1", "inv-1"
	if err := a.Put(ctx, Entry{Order: o}); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(ctx, Entry{Order: order("acme", id(4), base.Add(48*time.Hour), swapv1.OrderSuccess)}); err != nil {
		t.Fatal(err)
	}
	n, err := a.Prune(ctx, base.Add(24*time.Hour), 1)
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want the one old order", n, err)
	}
	if _, err := a.Get(ctx, "acme", id(1)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("pruned order still readable: %v", err)
	}
	if _, err := a.Get(ctx, "acme", id(4)); err != nil {
		t.Fatalf("recent order pruned: %v", err)
	}
	if got, err := a.Reserve(ctx, Reservation{OrderID: id(1), Partner: "acme", IdempotencyKeyHash: "h1"}); err != nil || got != first {
		t.Fatalf("after pruning the id is %+v, %v; want it still taken", got, err)
	}
}

// A reservation stays pending until its order is archived. A pending one can be released:
// at once by the create that made it (refused after reserving), or once stale by whoever
// takes it over (its create never finished); an archived order's never.
func TestPendingReservationsCanBeReleased(t *testing.T) {
	a, ctx := open(t), context.Background()
	age := func(orderID string) {
		t.Helper()
		if _, err := a.pool.Exec(ctx, `UPDATE order_ids SET reserved_at = now() - interval '1 hour' WHERE order_id = $1`, orderID); err != nil {
			t.Fatal(err)
		}
	}
	abandoned := Reservation{OrderID: id(1), Partner: "acme", IdempotencyKeyHash: "h1", ClientReference: "inv-1"}
	if got, err := a.Reserve(ctx, abandoned); err != nil || got != abandoned {
		t.Fatalf("reservation: %+v, %v", got, err)
	}
	if ok, err := a.Release(ctx, id(1), StaleAfter); ok || err != nil {
		t.Fatalf("a fresh reservation released as stale: %v, %v", ok, err)
	}
	var taken *ReferenceTakenError
	if _, err := a.Reserve(ctx, Reservation{OrderID: id(2), Partner: "acme", ClientReference: "inv-1"}); !errors.As(err, &taken) ||
		taken.OrderID != id(1) || taken.Stale {
		t.Fatalf("the reference of a fresh reservation: %v", err)
	}

	age(id(1))
	if h, err := a.Holder(ctx, "acme", "inv-1"); err != nil || h.OrderID != id(1) || !h.Stale {
		t.Fatalf("holder of a reference reserved an hour ago, never archived: %+v, %v", h, err)
	}
	if got, err := a.Reserve(ctx, Reservation{OrderID: id(1), Partner: "acme", IdempotencyKeyHash: "h2"}); err != nil || !got.Stale || got.IdempotencyKeyHash != "h1" {
		t.Fatalf("the id of a stale reservation: %+v, %v", got, err)
	}
	if _, err := a.Reserve(ctx, Reservation{OrderID: id(2), Partner: "acme", ClientReference: "inv-1"}); !errors.As(err, &taken) || !taken.Stale {
		t.Fatalf("the reference of a stale reservation: %v", err)
	}
	if ok, err := a.Release(ctx, id(1), StaleAfter); !ok || err != nil {
		t.Fatalf("stale reservation not released: %v, %v", ok, err)
	}
	if ok, _ := a.Release(ctx, id(1), StaleAfter); ok {
		t.Fatal("released twice")
	}
	if _, err := a.Holder(ctx, "acme", "inv-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a released reference still has a holder: %v", err)
	}
	if _, err := a.Reserve(ctx, Reservation{OrderID: id(2), Partner: "acme", ClientReference: "inv-1"}); err != nil {
		t.Fatalf("the released reference: %v", err)
	}

	// Its own create releases a reservation at once.
	if _, err := a.Reserve(ctx, Reservation{OrderID: id(3), Partner: "acme", ClientReference: "inv-3"}); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.Release(ctx, id(3), 0); !ok || err != nil {
		t.Fatalf("own release: %v, %v", ok, err)
	}

	// Archiving places the reservation: never stale, never released, whatever its age.
	o := order("acme", id(2), base, swapv1.OrderSuccess)
	o.Spec.ClientReference = "inv-1"
	if err := a.Put(ctx, Entry{Order: o}); err != nil {
		t.Fatal(err)
	}
	age(id(2))
	if h, err := a.Holder(ctx, "acme", "inv-1"); err != nil || h.OrderID != id(2) || h.Stale {
		t.Fatalf("holder of an archived order's reference: %+v, %v", h, err)
	}
	for _, olderThan := range []time.Duration{0, StaleAfter} {
		if ok, err := a.Release(ctx, id(2), olderThan); ok || err != nil {
			t.Fatalf("an archived order's reservation released: %v, %v", ok, err)
		}
	}
}

func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	a, err := Open("postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	if err := a.Migrate(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Migrate against no server: %v", err)
	}
	if _, err := a.Get(ctx, "acme", id(1)); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Get against no server: %v", err)
	}
}

// Orders bulk-loaded with COPY read, list and keep their ids and references like Put's.
func TestLoadWritesWhatPutWould(t *testing.T) {
	a, ctx := open(t), context.Background()
	const n = 12
	err := a.Load(ctx, n, func(i int) Entry {
		o := order("acme", id(i), base.Add(time.Duration(i)*time.Second), swapv1.OrderSuccess)
		if i == 3 {
			o.Spec.ClientReference = "invoice-3"
		}
		return Entry{Order: o, Deliveries: []Delivery{{Name: "d", EventID: "evt", Sequence: 1, Phase: swapv1.DeliveryDelivered}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, "acme", id(5))
	if err != nil || got.Status.Status != swapv1.OrderSuccess || got.ManagedFields != nil {
		t.Fatalf("Get after Load: %+v, %v", got, err)
	}
	page, err := a.List(ctx, Query{Partner: "acme", Limit: 100})
	if err != nil || len(page) != n || page[0].Spec.OrderID != id(n-1) {
		t.Fatalf("List after Load: %d orders, first %v (%v)", len(page), page[0].Spec.OrderID, err)
	}
	if page, err := a.List(ctx, Query{Partner: "acme", ClientReference: "invoice-3", Limit: 10}); err != nil || len(page) != 1 {
		t.Fatalf("clientReference filter after Load: %d (%v)", len(page), err)
	}
	var taken *ReferenceTakenError
	if _, err := a.Reserve(ctx, Reservation{OrderID: id(99), Partner: "acme", ClientReference: "invoice-3"}); !errors.As(err, &taken) || taken.OrderID != id(3) {
		t.Fatalf("a loaded reference is not taken: %v", err)
	}
	if err := a.Load(ctx, 1, func(int) Entry { return Entry{Order: order("acme", id(1), base, swapv1.OrderFailed)} }); err == nil {
		t.Fatal("Load wrote an id that was already archived")
	}
}

// A database user that may only read (as operators give the swaprouter orders command) reads
// archived orders after CheckSchema, which neither migrates nor writes; a schema older than
// the binary's is a clear error, not failing reads.
func TestCheckSchemaReadsWithoutMigrating(t *testing.T) {
	ctx := context.Background()
	owner, db := openUnmigrated(t)
	reader := func() *Postgres {
		dsn, err := server.CreateReader(ctx, db, "reader")
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		return a
	}

	var old *SchemaError
	if err := reader().CheckSchema(ctx); !errors.As(err, &old) || old.Have != 0 || old.Want < 1 {
		t.Fatalf("CheckSchema of a database never migrated: %v", err)
	}
	if !strings.Contains(old.Error(), "start this version's manager once") {
		t.Fatalf("the error does not say what to do: %v", old)
	}

	if err := owner.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := owner.Put(ctx, Entry{Order: order("acme", id(7), base, swapv1.OrderSuccess)}); err != nil {
		t.Fatal(err)
	}
	r := reader() // granted SELECT on the tables Migrate made
	if _, err := r.Get(ctx, "acme", id(7)); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Get before CheckSchema: %v", err)
	}
	if err := r.CheckSchema(ctx); err != nil {
		t.Fatalf("CheckSchema of a migrated archive: %v", err)
	}
	if got, err := r.Lookup(ctx, id(7)); err != nil || got.Spec.OrderID != id(7) {
		t.Fatalf("Lookup as the read-only user: %v, %v", got, err)
	}
	if page, err := r.List(ctx, Query{Partner: "acme", Limit: 10}); err != nil || len(page) != 1 {
		t.Fatalf("List as the read-only user: %d orders, %v", len(page), err)
	}
	if err := r.Put(ctx, Entry{Order: order("acme", id(8), base, swapv1.OrderSuccess)}); err == nil {
		t.Fatal("the read-only user wrote: the test's role is not read-only")
	}
}
