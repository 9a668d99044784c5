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

// claim makes sure the order id about to be created was never handed out before and its
// clientReference is the partner's only one. It answers the archived order when an
// idempotent request's order has left etcd already (the same answer as before), or nil
// when the order may be created. Without the archive, orders never leave etcd, so the live
// check of the reference is all there is.
func (s *Server) claim(ctx context.Context, spec *swapv1.SwapOrderSpec, keyed bool) (*swapv1.SwapOrder, error) {
	if ref := spec.ClientReference; ref != "" {
		var live swapv1.SwapOrderList
		if err := s.opts.Client.List(ctx, &live, client.InNamespace(s.opts.Namespace),
			client.MatchingFields{index.OrderClientReference: index.ClientReferenceKey(spec.Partner, ref)}); err != nil {
			return nil, err
		}
		for _, o := range live.Items {
			if o.Spec.OrderID != spec.OrderID {
				return nil, archiveError(&archive.ReferenceTakenError{ClientReference: ref, OrderID: o.Spec.OrderID})
			}
		}
	}
	if s.opts.Archive == nil || (!keyed && spec.ClientReference == "") {
		return nil, nil
	}
	got, err := s.opts.Archive.Reserve(ctx, archive.Reservation{OrderID: spec.OrderID, Partner: spec.Partner,
		IdempotencyKeyHash: spec.IdempotencyKeyHash, ClientReference: spec.ClientReference})
	if err != nil {
		return nil, archiveError(err)
	}
	if got.Partner != spec.Partner || got.IdempotencyKeyHash != spec.IdempotencyKeyHash {
		return nil, apierror.New(apierror.IdempotencyKeyReused,
			"this Idempotency-Key was used with a different request; use a new key for a new order")
	}
	if !keyed {
		return nil, nil
	}
	return s.archivedOrder(ctx, spec.Partner, spec.OrderID)
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
