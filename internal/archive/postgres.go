package archive

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/orders"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Postgres is the archive in PostgreSQL. Every method fails fast with ErrUnavailable while
// the database is unreachable or its schema not yet migrated.
type Postgres struct {
	pool *pgxpool.Pool
	// schemaReady: the schema is at this binary's version (Migrate or CheckSchema said so).
	schemaReady atomic.Bool
}

// Open prepares a connection pool for dsn without connecting: the service starts (and
// serves live orders) while the database is down. Call Migrate before use.
func Open(dsn string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("archive DSN: %w", err)
	}
	// A dead database must turn into a quick 503, not a hung request.
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > 3*time.Second {
		cfg.ConnConfig.ConnectTimeout = 3 * time.Second
	}
	cfg.HealthCheckPeriod = 5 * time.Second
	// An archived read must not wait for a new PostgreSQL backend (milliseconds) nor parse its
	// statement first: keep a few connections open (pool_min_conns in the DSN overrides), with
	// the read statements prepared once the schema is there.
	if cfg.MinConns == 0 {
		cfg.MinConns = min(minConns, cfg.MaxConns)
	}
	p := &Postgres{}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if !p.schemaReady.Load() {
			return nil // the tables may not exist yet; Migrate prepares the open connections
		}
		return prepare(ctx, c)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("archive pool: %w", err)
	}
	p.pool = pool
	return p, nil
}

// minConns is how many connections the pool keeps open by default.
const minConns = 2

// prepare prepares the statements of partners' archived reads on c, named by their SQL so
// that queries with that SQL use them.
func prepare(ctx context.Context, c *pgx.Conn) error {
	_, err := c.Prepare(ctx, getSQL, getSQL)
	return err
}

// warm prepares the read statements on the connections the pool opened before the schema
// was migrated (later ones prepare in AfterConnect).
func (p *Postgres) warm(ctx context.Context) error {
	var errs []error
	for _, c := range p.pool.AcquireAllIdle(ctx) {
		errs = append(errs, prepare(ctx, c.Conn()))
		c.Release()
	}
	if err := errors.Join(errs...); err != nil {
		return classify(fmt.Errorf("preparing the archive's statements: %w", err))
	}
	return nil
}

// Close ends the pool's connections.
func (p *Postgres) Close() { p.pool.Close() }

// Migrate applies the embedded migrations not applied yet, under a PostgreSQL advisory lock
// so replicas starting together migrate once.
func (p *Postgres) Migrate(ctx context.Context) error {
	provider, done, err := p.migrations()
	if err != nil {
		return err
	}
	defer done()
	if _, err := provider.Up(ctx); err != nil {
		return classify(fmt.Errorf("migrating the archive schema: %w", err))
	}
	p.schemaReady.Store(true)
	return p.warm(ctx)
}

// SchemaError: the archive's schema is older than this binary reads.
type SchemaError struct {
	Have, Want int64
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the order archive's schema is at version %d, this swaprouter needs version %d: "+
		"start this version's manager once (it migrates the archive at start), then retry", e.Have, e.Want)
}

// CheckSchema readies the archive for reading without migrating it, so a read-only database
// user can read (the swaprouter orders command): a *SchemaError when the schema is older than
// this binary's migrations. A newer schema is read as is: migrations only add.
func (p *Postgres) CheckSchema(ctx context.Context) error {
	provider, done, err := p.migrations()
	if err != nil {
		return err
	}
	defer done()
	sources := provider.ListSources()
	want := sources[len(sources)-1].Version
	// goose's own version store, read directly: the provider's reads would create the
	// version table first, which a read-only user may not.
	store, err := database.NewStore(database.DialectPostgres, goose.DefaultTablename)
	if err != nil {
		return err
	}
	db := stdlib.OpenDBFromPool(p.pool)
	defer db.Close()
	have, err := store.GetLatestVersion(ctx, db)
	var pgErr *pgconn.PgError
	if errors.Is(err, database.ErrVersionNotFound) || errors.As(err, &pgErr) && pgErr.Code == "42P01" { // no version table: never migrated
		have, err = 0, nil
	}
	if err != nil {
		return classify(fmt.Errorf("reading the archive schema's version: %w", err))
	}
	if have < want {
		return &SchemaError{Have: have, Want: want}
	}
	p.schemaReady.Store(true)
	return p.warm(ctx)
}

// migrations is the goose provider of the embedded migrations on p's pool; done closes it.
func (p *Postgres) migrations() (*goose.Provider, func(), error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, nil, err
	}
	db := stdlib.OpenDBFromPool(p.pool)
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrationsFS(), goose.WithSessionLocker(locker))
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return provider, func() { db.Close() }, nil
}

// Ready reports nil when the database answers and the schema is migrated.
func (p *Postgres) Ready(ctx context.Context) error {
	if err := p.usable(); err != nil {
		return err
	}
	return classify(p.pool.Ping(ctx))
}

// usable fails fast until the schema is migrated. It does not ping: an unreachable database
// shows in the statement's own error, without a round trip more on every read.
func (p *Postgres) usable() error {
	if !p.schemaReady.Load() {
		return fmt.Errorf("%w: schema not migrated yet", ErrUnavailable)
	}
	return nil
}

// Put writes e (insert or replace by order id) and records the order's id as taken.
func (p *Postgres) Put(ctx context.Context, e Entry) error {
	if err := p.usable(); err != nil {
		return err
	}
	r, err := newRow(e)
	if err != nil {
		return err
	}
	return classify(pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		// The order's id was usually reserved at creation (its reservation is placed now);
		// orders created without a key or a reference take it now, so no later request can be
		// given it.
		if _, err := tx.Exec(ctx, `
			INSERT INTO order_ids (order_id, partner, idempotency_key_hash, client_reference, reserved_at)
			VALUES ($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5)
			ON CONFLICT (order_id) DO UPDATE SET pending = false WHERE order_ids.pending`, r.id()...); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO orders (order_id, partner, status, provider_id, client_reference, created_at, ended_at, object, deliveries)
			VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6, $7, $8, $9)
			ON CONFLICT (order_id) DO UPDATE SET
				status = EXCLUDED.status, ended_at = EXCLUDED.ended_at, archived_at = now(),
				object = EXCLUDED.object, deliveries = EXCLUDED.deliveries`, r.order()...)
		return err
	}))
}

// Load bulk-writes n entries, next(i) giving the i-th, with COPY in one transaction: for
// imports and benchmarks, far faster than Put. The ids must be new (COPY does not upsert);
// nothing is written when one is not.
func (p *Postgres) Load(ctx context.Context, n int, next func(i int) Entry) error {
	if err := p.usable(); err != nil {
		return err
	}
	rows := make([]row, 0, min(n, loadBatch))
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		for start := 0; start < n; start += loadBatch {
			rows = rows[:0]
			for i := start; i < min(n, start+loadBatch); i++ {
				r, err := newRow(next(i))
				if err != nil {
					return err
				}
				rows = append(rows, r)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"order_ids"},
				[]string{"order_id", "partner", "idempotency_key_hash", "client_reference", "reserved_at"},
				pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) { return rows[i].copyID(), nil })); err != nil {
				return err
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"orders"},
				[]string{"order_id", "partner", "status", "provider_id", "client_reference", "created_at", "ended_at", "object", "deliveries"},
				pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) { return rows[i].copyOrder(), nil })); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return classify(err)
	}
	// Statistics and the visibility map for the new rows now, not by autovacuum while the
	// archive serves reads (and the planner knows the tables' size from the first query).
	_, err = p.pool.Exec(ctx, `VACUUM (ANALYZE) orders, order_ids`)
	return classify(err)
}

// loadBatch bounds the rows Load holds in memory at once.
const loadBatch = 5000

// row is an entry as the archive's columns hold it.
type row struct {
	o                  *swapv1.SwapOrder
	ended              time.Time
	object, deliveries []byte
}

func newRow(e Entry) (row, error) {
	o := e.Order.DeepCopy()
	o.ManagedFields = nil
	object, err := json.Marshal(o)
	if err != nil {
		return row{}, err
	}
	deliveries, err := json.Marshal(nonNil(e.Deliveries))
	if err != nil {
		return row{}, err
	}
	ended, ok := orders.TerminalAt(&o.Status)
	if !ok {
		ended = o.CreationTimestamp
	}
	return row{o: o, ended: ended.Time, object: object, deliveries: deliveries}, nil
}

// id and order are the statement arguments of Put (” becomes NULL in SQL).
func (r row) id() []any {
	return []any{r.o.Spec.OrderID, r.o.Spec.Partner, r.o.Spec.IdempotencyKeyHash, r.o.Spec.ClientReference, r.o.CreationTimestamp.Time}
}

func (r row) order() []any {
	return []any{r.o.Spec.OrderID, r.o.Spec.Partner, string(r.o.Status.Status), string(r.o.Spec.ProviderID),
		r.o.Spec.ClientReference, r.o.CreatedAt(), r.ended, r.object, r.deliveries}
}

// copyID and copyOrder are the same values for COPY, which has no NULLIF: ” is NULL here.
func (r row) copyID() []any {
	return []any{r.o.Spec.OrderID, r.o.Spec.Partner, nullIfEmpty(r.o.Spec.IdempotencyKeyHash),
		nullIfEmpty(r.o.Spec.ClientReference), r.o.CreationTimestamp.Time}
}

func (r row) copyOrder() []any {
	v := r.order()
	v[4] = nullIfEmpty(r.o.Spec.ClientReference)
	return v
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Get returns partner's archived order id; ErrNotFound when there is none.
func (p *Postgres) Get(ctx context.Context, partner, id string) (*swapv1.SwapOrder, error) {
	return p.one(ctx, getSQL, id, partner)
}

const getSQL = `SELECT object FROM orders WHERE order_id = $1 AND partner = $2`

// Lookup returns archived order id whichever partner it belongs to: for operators (the
// swaprouter orders command), never for a partner's request.
func (p *Postgres) Lookup(ctx context.Context, id string) (*swapv1.SwapOrder, error) {
	return p.one(ctx, `SELECT object FROM orders WHERE order_id = $1`, id)
}

// one returns the order sql selects; ErrNotFound when there is none.
func (p *Postgres) one(ctx context.Context, sql string, args ...any) (*swapv1.SwapOrder, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var object []byte
	err := p.pool.QueryRow(ctx, sql, args...).Scan(&object)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, classify(err)
	}
	return decode(object)
}

// Deliveries returns the webhook delivery summary stored with partner's order id.
func (p *Postgres) Deliveries(ctx context.Context, partner, id string) ([]Delivery, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var raw []byte
	err := p.pool.QueryRow(ctx, `SELECT deliveries FROM orders WHERE order_id = $1 AND partner = $2`, id, partner).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, classify(err)
	}
	var out []Delivery
	return out, json.Unmarshal(raw, &out)
}

// List returns a page of q.Partner's archived orders matching q, newest first.
func (p *Postgres) List(ctx context.Context, q Query) ([]*swapv1.SwapOrder, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	sql, args := listSQL(q)
	rows, err := p.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, classify(err)
	}
	objects, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, classify(err)
	}
	out := make([]*swapv1.SwapOrder, 0, len(objects))
	for _, b := range objects {
		o, err := decode(b)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// listSQL is List's statement for q: a keyset page on orders_partner_created.
func listSQL(q Query) (string, []any) {
	where := []string{"partner = $1"}
	args := []any{q.Partner}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args))))
	}
	if q.Status != "" {
		add("status = ?", string(q.Status))
	}
	if q.ProviderID != "" {
		add("provider_id = ?", string(q.ProviderID))
	}
	if q.ClientReference != "" {
		add("client_reference = ?", q.ClientReference)
	}
	if !q.From.IsZero() {
		add("created_at >= ?", q.From)
	}
	if !q.To.IsZero() {
		add("created_at < ?", q.To)
	}
	if q.After != nil {
		args = append(args, q.After.CreatedAt, q.After.OrderID)
		where = append(where, fmt.Sprintf("(created_at, order_id) < ($%d, $%d)", len(args)-1, len(args)))
	}
	if q.Above != nil {
		args = append(args, q.Above.CreatedAt, q.Above.OrderID)
		where = append(where, fmt.Sprintf("(created_at, order_id) > ($%d, $%d)", len(args)-1, len(args)))
	}
	args = append(args, q.Limit)
	return fmt.Sprintf(`SELECT object FROM orders WHERE %s ORDER BY created_at DESC, order_id DESC LIMIT $%d`,
		strings.Join(where, " AND "), len(args)), args
}

// Explain returns PostgreSQL's plan with run-time figures (EXPLAIN ANALYZE, BUFFERS) of the
// statements that answer Get(partner, id) and List(q): for the benchmark's report.
func (p *Postgres) Explain(ctx context.Context, partner, id string, q Query) (get, list string, err error) {
	if get, err = p.explain(ctx, getSQL, id, partner); err != nil {
		return "", "", err
	}
	sql, args := listSQL(q)
	list, err = p.explain(ctx, sql, args...)
	return get, list, err
}

func (p *Postgres) explain(ctx context.Context, sql string, args ...any) (string, error) {
	rows, err := p.pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, args...)
	if err != nil {
		return "", classify(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return strings.Join(lines, "\n"), classify(err)
}

// Reserve records r's order id as taken by r.Partner with its key hash and reference, pending
// until the order is archived, and returns what is recorded for that id: r itself the first
// time, the earlier reservation afterwards (the caller compares key hashes). A clientReference
// another order of the partner holds is a *ReferenceTakenError.
func (p *Postgres) Reserve(ctx context.Context, r Reservation) (Reservation, error) {
	if err := p.usable(); err != nil {
		return Reservation{}, err
	}
	var got Reservation
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO order_ids (order_id, partner, idempotency_key_hash, client_reference, pending)
			VALUES ($1, $2, NULLIF($3, ''), NULLIF($4, ''), true)
			ON CONFLICT (order_id) DO NOTHING`, r.OrderID, r.Partner, r.IdempotencyKeyHash, r.ClientReference)
		if err != nil {
			return err
		}
		got, err = scanReservation(tx.QueryRow(ctx, `SELECT `+reservationColumns+` FROM order_ids WHERE order_id = $2`,
			StaleAfter.Seconds(), r.OrderID))
		return err
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "order_ids_client_reference" {
		holder, ferr := p.Holder(ctx, r.Partner, r.ClientReference)
		if ferr != nil {
			return Reservation{}, ferr
		}
		return Reservation{}, &ReferenceTakenError{ClientReference: r.ClientReference, OrderID: holder.OrderID, Stale: holder.Stale}
	}
	return got, classify(err)
}

// Holder returns the reservation holding partner's clientReference ref; ErrNotFound when none
// does.
func (p *Postgres) Holder(ctx context.Context, partner, ref string) (Reservation, error) {
	if err := p.usable(); err != nil {
		return Reservation{}, err
	}
	r, err := scanReservation(p.pool.QueryRow(ctx, `SELECT `+reservationColumns+` FROM order_ids
		WHERE partner = $2 AND client_reference = $3`, StaleAfter.Seconds(), partner, ref))
	if errors.Is(err, pgx.ErrNoRows) {
		return Reservation{}, ErrNotFound
	}
	return r, classify(err)
}

// reservationColumns are the columns scanReservation reads, $1 being StaleAfter in seconds.
const reservationColumns = `order_id, partner, coalesce(idempotency_key_hash, ''), coalesce(client_reference, ''),
	pending AND reserved_at < now() - make_interval(secs => $1)`

func scanReservation(row pgx.Row) (Reservation, error) {
	var r Reservation
	err := row.Scan(&r.OrderID, &r.Partner, &r.IdempotencyKeyHash, &r.ClientReference, &r.Stale)
	return r, err
}

// Release deletes the reservation of orderID if it is still pending and was made at least
// olderThan ago, and reports whether it did: a create refused after reserving releases its own
// (olderThan 0); a stale one whose order is not in etcd is released before it is taken over
// (olderThan StaleAfter). An archived order's reservation is never released.
func (p *Postgres) Release(ctx context.Context, orderID string, olderThan time.Duration) (bool, error) {
	if err := p.usable(); err != nil {
		return false, err
	}
	tag, err := p.pool.Exec(ctx, `DELETE FROM order_ids
		WHERE order_id = $1 AND pending AND reserved_at <= now() - make_interval(secs => $2)`, orderID, olderThan.Seconds())
	if err != nil {
		return false, classify(err)
	}
	return tag.RowsAffected() == 1, nil
}

// Prune deletes archived orders that ended before cutoff, batch rows per statement (short
// transactions, no long lock), and returns how many it deleted. Their ids stay taken.
func (p *Postgres) Prune(ctx context.Context, cutoff time.Time, batch int) (int64, error) {
	if err := p.usable(); err != nil {
		return 0, err
	}
	var total int64
	for {
		tag, err := p.pool.Exec(ctx, `
			DELETE FROM orders WHERE order_id IN (
				SELECT order_id FROM orders WHERE ended_at < $1 ORDER BY ended_at LIMIT $2)`, cutoff, batch)
		if err != nil {
			return total, classify(err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
	}
}

func decode(object []byte) (*swapv1.SwapOrder, error) {
	o := &swapv1.SwapOrder{}
	if err := json.Unmarshal(object, o); err != nil {
		return nil, fmt.Errorf("decoding an archived order: %w", err)
	}
	return o, nil
}

// classify marks failures to reach the database as ErrUnavailable. An error PostgreSQL
// itself answered (a constraint, a syntax error) is a bug or a conflict, not an outage.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && !strings.HasPrefix(pgErr.Code, "08") && !strings.HasPrefix(pgErr.Code, "57P") {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// migrationsFS is the embedded migrations folder, versioned by file name (goose).
func migrationsFS() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the folder is embedded at build time
	}
	return sub
}
