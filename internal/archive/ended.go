package archive

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// endedPage is how many orders EachEndedSince reads per statement.
const endedPage = 500

// EachEndedSince calls fn with each of partner's archived orders that ended at or after since
// (only order id when it is not empty), oldest end first, reading a page at a time: what an
// event stream resuming from since needs of the orders that left etcd.
func (p *Postgres) EachEndedSince(ctx context.Context, partner, orderID string, since time.Time, fn func(*swapv1.SwapOrder) error) error {
	if err := p.usable(); err != nil {
		return err
	}
	afterEnd, afterID := since, ""
	for {
		rows, err := p.pool.Query(ctx, endedSQL, partner, orderID, afterEnd, afterID, endedPage)
		if err != nil {
			return classify(err)
		}
		type endedRow struct {
			Object  []byte
			EndedAt time.Time
			OrderID string
		}
		page, err := pgx.CollectRows(rows, pgx.RowToStructByPos[endedRow])
		if err != nil {
			return classify(err)
		}
		for _, r := range page {
			o, err := decode(r.Object)
			if err != nil {
				return err
			}
			if err := fn(o); err != nil {
				return err
			}
		}
		if len(page) < endedPage {
			return nil
		}
		last := page[len(page)-1]
		afterEnd, afterID = last.EndedAt, last.OrderID
	}
}

// endedSQL is a keyset page on orders_partner_ended: after ($3, $4), "" sorting first.
const endedSQL = `SELECT object, ended_at, order_id FROM orders
	WHERE partner = $1 AND ($2 = '' OR order_id = $2) AND (ended_at, order_id) > ($3, $4)
	ORDER BY ended_at, order_id LIMIT $5`
