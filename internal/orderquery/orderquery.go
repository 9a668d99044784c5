// Package orderquery reads orders for operators (`swaprouter orders`): live ones from the
// API server, archived ones from the PostgreSQL archive, across partners for a lookup by id
// and for one partner in a listing, in the order partners see them.
package orderquery

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/orderid"
)

// Archive is what operators read from the archive (archive.Postgres).
type Archive interface {
	Lookup(ctx context.Context, id string) (*swapv1.SwapOrder, error)
	List(ctx context.Context, q archive.Query) ([]*swapv1.SwapOrder, error)
}

// Source says where an order was read.
type Source string

const (
	Live     Source = "live"
	Archived Source = "archived"
)

// Found is an order and where it was read.
type Found struct {
	Order  *swapv1.SwapOrder
	Source Source
}

// ErrNotFound: neither etcd nor the archive has the order.
var ErrNotFound = errors.New("no such order")

// Reader reads Namespace's orders. Archive may be nil: only live orders are read then.
type Reader struct {
	Kube      client.Reader
	Namespace string
	Archive   Archive
}

// Get returns order id, live first (the newest state), else archived.
func (r Reader) Get(ctx context.Context, id string) (Found, error) {
	if !orderid.Valid(id) {
		return Found{}, fmt.Errorf("%q is not an order id (ord_…)", id)
	}
	o := &swapv1.SwapOrder{}
	err := r.Kube.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: orderid.ObjectName(id)}, o)
	if err == nil {
		return Found{Order: o, Source: Live}, nil
	}
	if !apierrors.IsNotFound(err) {
		return Found{}, err
	}
	if r.Archive == nil {
		return Found{}, fmt.Errorf("%w in etcd (no archive DSN given: archived orders were not searched)", ErrNotFound)
	}
	a, err := r.Archive.Lookup(ctx, id)
	if errors.Is(err, archive.ErrNotFound) {
		return Found{}, fmt.Errorf("%w in etcd or the archive", ErrNotFound)
	}
	if err != nil {
		return Found{}, err
	}
	return Found{Order: a, Source: Archived}, nil
}

// List returns one page of q.Partner's orders matching q, live and archived, newest first,
// and where the next page starts (nil on the last).
func (r Reader) List(ctx context.Context, q archive.Query) ([]Found, *archive.Position, error) {
	var live swapv1.SwapOrderList
	// Every SwapOrder of the namespace: an operator's occasional read, filtered like the API.
	if err := r.Kube.List(ctx, &live, client.InNamespace(r.Namespace)); err != nil {
		return nil, nil, err
	}
	liveIDs := map[string]bool{}
	for _, o := range live.Items {
		liveIDs[o.Spec.OrderID] = true
	}
	newest := archive.NewestMatches(archive.Refs(live.Items), q)
	var archived []*swapv1.SwapOrder
	if r.Archive != nil {
		var err error
		if archived, err = r.Archive.List(ctx, archive.ArchiveQuery(newest, q)); err != nil {
			return nil, nil, err
		}
	}
	page, next := archive.MergePage(newest, archived, q)
	out := make([]Found, len(page))
	for i, o := range page {
		out[i] = Found{Order: o, Source: Archived}
		if liveIDs[o.Spec.OrderID] {
			out[i].Source = Live
		}
	}
	return out, next, nil
}
