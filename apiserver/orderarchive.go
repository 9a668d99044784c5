package apiserver

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/orderid"
)

// Archive is what the frontend reads from the order archive (archive.Postgres).
type Archive interface {
	Get(ctx context.Context, partner, id string) (*swapv1.SwapOrder, error)
	List(ctx context.Context, q archive.Query) ([]*swapv1.SwapOrder, error)
	Reserve(ctx context.Context, r archive.Reservation) (archive.Reservation, error)
	Holder(ctx context.Context, partner, ref string) (archive.Reservation, error)
	Release(ctx context.Context, orderID string, olderThan time.Duration) (bool, error)
	EachEndedSince(ctx context.Context, partner, orderID string, since time.Time, fn func(*swapv1.SwapOrder) error) error
}

// archiveError turns an archive failure into the partner's answer.
func archiveError(err error) error {
	var taken *archive.ReferenceTakenError
	switch {
	case errors.Is(err, archive.ErrUnavailable):
		return apierror.New(apierror.ArchiveUnavailable,
			"the order history is unavailable; live orders are not affected; retry later")
	case errors.As(err, &taken):
		e := apierror.Newf(apierror.ClientReferenceInUse, "order %s already has this clientReference", taken.OrderID)
		e.OrderID = taken.OrderID
		return e
	}
	return err
}

// archivedOrder reads the caller's order id from the archive; nil without an archive or
// when it has none.
func (s *Server) archivedOrder(ctx context.Context, partner, id string) (*swapv1.SwapOrder, error) {
	if s.opts.Archive == nil {
		return nil, nil
	}
	o, err := s.opts.Archive.Get(ctx, partner, id)
	if errors.Is(err, archive.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, archiveError(err)
	}
	return o, nil
}

// keyedOrder is order id, derived from an Idempotency-Key, as an earlier request with that key
// created it: live (read around the cache: the first attempt may have been answered by another
// replica a moment ago) or, once it left etcd, archived; nil when there is none.
func (s *Server) keyedOrder(ctx context.Context, partner, id string) (*swapv1.SwapOrder, error) {
	o := &swapv1.SwapOrder{}
	err := s.opts.APIReader.Get(ctx, client.ObjectKey{Namespace: s.opts.Namespace, Name: orderid.ObjectName(id)}, o)
	if err == nil {
		return o, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	return s.archivedOrder(ctx, partner, id)
}

// referenceFree refuses a new order's clientReference when another order of the partner holds
// it, live or archived: 409 naming that order. It only reads (reserve claims the reference), so
// a request refused later leaves the reference free. Without the archive, orders never leave
// etcd, so the live check is all there is.
func (s *Server) referenceFree(ctx context.Context, spec *swapv1.SwapOrderSpec) error {
	ref := spec.ClientReference
	if ref == "" {
		return nil
	}
	var live swapv1.SwapOrderList
	if err := s.opts.Client.List(ctx, &live, client.InNamespace(s.opts.Namespace),
		client.MatchingFields{index.OrderClientReference: index.ClientReferenceKey(spec.Partner, ref)}); err != nil {
		return err
	}
	for _, o := range live.Items {
		if o.Spec.OrderID != spec.OrderID {
			return archiveError(&archive.ReferenceTakenError{ClientReference: ref, OrderID: o.Spec.OrderID})
		}
	}
	if s.opts.Archive == nil {
		return nil
	}
	holder, err := s.opts.Archive.Holder(ctx, spec.Partner, ref)
	switch {
	case errors.Is(err, archive.ErrNotFound):
		return nil
	case err != nil:
		return archiveError(err)
	case holder.OrderID == spec.OrderID:
		return nil // an earlier attempt with this key: reserve compares the requests
	}
	if gone, err := s.abandoned(ctx, holder); err != nil || gone {
		return err
	}
	return archiveError(&archive.ReferenceTakenError{ClientReference: ref, OrderID: holder.OrderID})
}

// reserve records a checked new order's id with its key and reference in the archive, the one
// place that refuses a concurrent duplicate atomically (the live checks read a cache). A
// reservation it meets that a create abandoned (see abandoned) is released and taken over.
// release frees this reservation when the create is refused. Orders with neither key nor
// reference reserve nothing: their id is random and taken when they are archived.
func (s *Server) reserve(ctx context.Context, spec *swapv1.SwapOrderSpec, keyed bool) (release func(), _ error) {
	if s.opts.Archive == nil || (!keyed && spec.ClientReference == "") {
		return func() {}, nil
	}
	r := archive.Reservation{OrderID: spec.OrderID, Partner: spec.Partner,
		IdempotencyKeyHash: spec.IdempotencyKeyHash, ClientReference: spec.ClientReference}
	for takeOver := true; ; takeOver = false {
		got, err := s.opts.Archive.Reserve(ctx, r)
		var taken *archive.ReferenceTakenError
		holder := got
		switch {
		case errors.As(err, &taken):
			holder = archive.Reservation{OrderID: taken.OrderID, Stale: taken.Stale}
		case err != nil:
			return nil, archiveError(err)
		case got.Partner == r.Partner && got.IdempotencyKeyHash == r.IdempotencyKeyHash:
			// New, or an earlier attempt of this very request whose create may be under way:
			// the create finds out (AlreadyExists).
			return func() { s.release(ctx, r.OrderID) }, nil
		}
		if takeOver {
			gone, err := s.abandoned(ctx, holder)
			if err != nil {
				return nil, err
			}
			if gone {
				released, err := s.opts.Archive.Release(ctx, holder.OrderID, archive.StaleAfter)
				if err != nil {
					return nil, archiveError(err)
				}
				if released {
					s.metrics.reservationsReleased.WithLabelValues("abandoned").Inc()
					s.log.Info("released a reservation a create abandoned", "orderId", r.OrderID, "abandonedOrderId", holder.OrderID)
				}
				continue // whoever released it, the next Reserve says who holds it now
			}
		}
		if taken != nil {
			return nil, archiveError(taken)
		}
		return nil, keyReused()
	}
}

// abandoned reports whether reservation r was left by a create that never finished (it crashed,
// or its release failed): stale, and no order of its id in etcd (read around the cache).
func (s *Server) abandoned(ctx context.Context, r archive.Reservation) (bool, error) {
	if !r.Stale {
		return false, nil
	}
	err := s.opts.APIReader.Get(ctx, client.ObjectKey{Namespace: s.opts.Namespace, Name: orderid.ObjectName(r.OrderID)}, &swapv1.SwapOrder{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

// release frees the reservation of orderID, whose create the API server refused: nothing was
// created. Should it fail, the reservation is taken over once stale.
func (s *Server) release(ctx context.Context, orderID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := s.opts.Archive.Release(ctx, orderID, 0); err != nil {
		s.log.Error(err, "releasing the reservation of a refused create; it is taken over once stale", "orderId", orderID)
		return
	}
	s.metrics.reservationsReleased.WithLabelValues("refused").Inc()
}

// findLive reads order id from the cache (live orders only); nil when it is not there.
func (s *Server) findLive(ctx context.Context, id string) (*swapv1.SwapOrder, error) {
	o := &swapv1.SwapOrder{}
	err := s.opts.Client.Get(ctx, client.ObjectKey{Namespace: s.opts.Namespace, Name: orderid.ObjectName(id)}, o)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return o, err
}
