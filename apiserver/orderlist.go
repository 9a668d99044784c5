package apiserver

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

const (
	defaultListLimit = 20
	maxListLimit     = 100
)

// orderPage is the answer of GET /v1/orders.
type orderPage struct {
	Orders     []orderRecord `json:"orders"`
	NextCursor *string       `json:"nextCursor"`
}

// GET /v1/orders → the caller's orders, live (cache) and archived alike, newest first.
func (s *Server) listOrders(w http.ResponseWriter, r *http.Request) error {
	q, err := parseListQuery(r.URL.Query(), principal(r.Context()).Partner.Name, s.cursors)
	if err != nil {
		return err
	}
	live, err := s.liveOrders(r.Context(), q)
	if err != nil {
		return err
	}
	newest := archive.NewestMatches(live, q)
	var archived []*swapv1.SwapOrder
	if s.opts.Archive != nil {
		if archived, err = s.opts.Archive.List(r.Context(), archive.ArchiveQuery(newest, q)); err != nil {
			return archiveError(err)
		}
	}
	orders, next := archive.MergePage(newest, archived, q)
	page := orderPage{Orders: make([]orderRecord, 0, len(orders))}
	for _, o := range orders {
		page.Orders = append(page.Orders, newOrderRecord(o))
	}
	if next != nil {
		c := encodeCursor(s.cursors, orderCursorAt(*next))
		page.NextCursor = &c
	}
	return writeJSON(w, http.StatusOK, page)
}

// liveOrders returns the candidates for q's page among the partner's live orders: the newest
// limit+1 from the book the SwapOrder informer feeds (a binary search, nothing copied), or,
// without an informer (handler tests), the partner's among all of them. No cache index by
// partner: it would cost entries per live order for a query the book answers.
func (s *Server) liveOrders(ctx context.Context, q archive.Query) ([]*swapv1.SwapOrder, error) {
	if s.book != nil {
		return s.book.Newest(q), nil
	}
	var live swapv1.SwapOrderList
	err := s.opts.Client.List(ctx, &live, client.InNamespace(s.opts.Namespace), client.UnsafeDisableDeepCopy)
	live.Items = slices.DeleteFunc(live.Items, func(o swapv1.SwapOrder) bool { return o.Spec.Partner != q.Partner })
	return archive.Refs(live.Items), err
}

// parseListQuery reads the filters, limit and cursor (opened with cursors) of GET /v1/orders.
func parseListQuery(v url.Values, partner string, cursors *tokenkeys.Tokens) (archive.Query, error) {
	q := archive.Query{Partner: partner, Limit: defaultListLimit,
		Status: swapv1.OrderStatus(v.Get("status")), ProviderID: swapv1.ProviderID(v.Get("providerId")),
		ClientReference: v.Get("clientReference")}
	limit, after, err := parsePage[orderCursor](cursors, v, defaultListLimit)
	if err != nil {
		return q, err
	}
	q.Limit = limit
	if after != nil {
		pos := after.position()
		q.After = &pos
	}
	if q.Status != "" && !slices.Contains(swapv1.OrderStatuses, q.Status) {
		return q, apierror.Invalid("status", "must be one of "+orderStatusList)
	}
	if err := checkClientReference(q.ClientReference); err != nil {
		return q, err
	}
	for field, dst := range map[string]*time.Time{"from": &q.From, "to": &q.To} {
		if t := v.Get(field); t != "" {
			parsed, err := time.Parse(time.RFC3339, t)
			if err != nil {
				return q, apierror.Invalid(field, "must be an RFC 3339 time, e.g. 2026-03-01T00:00:00Z")
			}
			*dst = parsed
		}
	}
	return q, nil
}

// orderCursor is GET /v1/orders' position in a cursor: creation second, its microseconds
// (absent in cursors written before they were kept) and order id.
type orderCursor struct {
	T  int64  `json:"t"`
	US int64  `json:"us,omitempty"`
	ID string `json:"id"`
}

func orderCursorAt(p archive.Position) orderCursor {
	return orderCursor{T: p.CreatedAt.Unix(), US: int64(p.CreatedAt.Nanosecond() / 1000), ID: p.OrderID}
}

func (c orderCursor) position() archive.Position {
	return archive.Position{CreatedAt: time.Unix(c.T, c.US*1000).UTC(), OrderID: c.ID}
}

// A creation second is within years 1 to 9999, inside Go's and the archive's (PostgreSQL's)
// range of times.
const (
	earliestCursorTime = -62135596800 // 0001-01-01T00:00:00Z
	latestCursorTime   = 253402300799 // 9999-12-31T23:59:59Z
)

func (c orderCursor) valid() bool {
	return validCursorID(c.ID) && c.T >= earliestCursorTime && c.T <= latestCursorTime && c.US >= 0 && c.US < 1e6
}

// orderStatusList is "PENDING, PROCESSING, ...": the statuses a list may be filtered by.
var orderStatusList = func() string {
	names := make([]string, len(swapv1.OrderStatuses))
	for i, s := range swapv1.OrderStatuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}()
