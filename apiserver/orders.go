package apiserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/orderdisplay"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// POST /v1/order → 201 with the order record once the provider issued the deposit address, 202
// with it (no address yet, a Location to poll) when the bounded wait ends first.
func (s *Server) createOrder(w http.ResponseWriter, r *http.Request) error {
	var req wire.OrderRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	f, verr := validateOrder(&req)
	if verr != nil {
		return verr
	}
	if err := s.checkProvider(r.Context(), swapv1.ProviderID(req.ProviderID)); err != nil {
		return err
	}
	if err := s.checkPair(f.OriginAsset, f.DestinationAsset); err != nil {
		return err
	}
	if err := f.resolveFee(principal(r.Context()).Partner.Spec.Fees); err != nil {
		return err
	}
	req.FeeBps = f.FeeBps // canonical form: the fee charged
	canonical, _ := json.Marshal(req)
	order, err := s.openOrder(r, newOrder{
		swapFields: f, sender: req.Sender, recipient: req.Recipient, refundTo: deref(req.RefundTo),
		providerID: swapv1.ProviderID(req.ProviderID), clientReference: deref(req.ClientReference), quoteID: deref(req.QuoteID),
		canonical: append([]byte("POST /v1/order\n"), canonical...),
	})
	if err != nil {
		return err
	}
	return writeOrderAnswer(w, order, newOrderRecord(order))
}

// newOrder is a request for an order whose body is valid, whose assets are known and whose fee
// is resolved: POST /v1/order, or POST /v1/quote with dry:false.
type newOrder struct {
	swapFields
	sender, recipient, refundTo string
	// providerID is the provider the partner named; "" lets a fresh quote choose.
	providerID swapv1.ProviderID
	// preference is what that fresh quote chooses for ("": price).
	preference      routing.Preference
	clientReference string
	// quoteID binds the order to an accepted candidate of a dry quote ("" when none).
	quoteID string
	// canonical identifies the request for the idempotency check.
	canonical []byte
}

// openOrder is the one way a request creates an order: every check of an order (the named
// provider routes the pair, addresses fit their chains, Idempotency-Key, clientReference),
// then place, which screens the addresses and binds the provider and quote of a new order
// before anything is reserved for it.
func (s *Server) openOrder(r *http.Request, n newOrder) (*swapv1.SwapOrder, error) {
	p := principal(r.Context())
	if n.providerID != "" && !s.providerRoutes(n.OriginAsset, n.DestinationAsset, n.providerID) {
		return nil, apierror.Newf(apierror.UnsupportedPair, "%s does not route this pair", n.providerID)
	}
	if err := s.checkOrderAddresses(n.OriginAsset, n.DestinationAsset, n.sender, n.recipient, n.refundTo); err != nil {
		return nil, err
	}
	key := r.Header.Get("Idempotency-Key")
	if err := checkIdempotencyKey(key); err != nil {
		return nil, err
	}
	if err := checkClientReference(n.clientReference); err != nil {
		return nil, err
	}
	spec := n.orderSpec(p.Partner.Name, n.sender, n.recipient, n.refundTo)
	spec.ProviderID = n.providerID
	spec.ClientReference = n.clientReference
	return s.place(r.Context(), p, placement{
		spec:           spec,
		idempotencyKey: key,
		canonical:      n.canonical,
		// Screening and the quote are for a new order only: a retry finds its order even after
		// the quote expired or the list changed.
		prepare: func(ctx context.Context, spec *swapv1.SwapOrderSpec) error {
			if err := s.screen(ctx, p.Partner, spec); err != nil {
				return err
			}
			return s.bindProvider(ctx, p.Partner, n, spec)
		},
	})
}

// bindProvider settles a new order's provider and quote: the candidate its quoteId names (no
// new quote, nothing counted), else the provider the partner named (no quote), else the best
// candidate of a fresh quote, counted against the partner's quota.
func (s *Server) bindProvider(ctx context.Context, partner *swapv1.Partner, n newOrder, spec *swapv1.SwapOrderSpec) error {
	switch {
	case n.quoteID != "":
		q, err := s.acceptQuote(partner.Name, n.quoteID, n.swapFields, n.providerID)
		if err != nil {
			return err
		}
		spec.ProviderID, spec.Quote = q.ProviderID, q
		return nil
	case n.providerID != "":
		return nil
	}
	res, err := s.countedQuote(ctx, partner, n.providerRequest(n.sender, n.recipient, n.refundTo), n.preference)
	if err != nil {
		return err
	}
	if res.Best == nil {
		return apierror.FromProvider(res.Failure())
	}
	best := *res.Best
	spec.ProviderID, spec.Quote = best.ProviderID, &best
	return nil
}

// placement is an order about to be created.
type placement struct {
	// spec without orderId and idempotencyKeyHash.
	spec swapv1.SwapOrderSpec
	// idempotencyKey is the request's Idempotency-Key, "" when none.
	idempotencyKey string
	// canonical identifies the request for the idempotency check.
	canonical []byte
	// prepare completes spec just before a new order is created (a quote picks the provider);
	// it does not run when an idempotent retry finds its order.
	prepare func(ctx context.Context, spec *swapv1.SwapOrderSpec) error
}

// createWithin bounds the SwapOrder create, so its reservation is surely either placed or
// abandoned long before it counts as stale (archive.StaleAfter).
const createWithin = time.Minute

// place creates the SwapOrder (or finds the one an earlier request with the same
// Idempotency-Key created) and waits for the reconciler to issue its deposit address. Every
// check that can refuse a new order runs before its key and reference are reserved, so a
// refused request leaves no trace: its retry with the fault fixed, under the same key and
// reference, creates the order.
func (s *Server) place(ctx context.Context, p *auth.Principal, pl placement) (*swapv1.SwapOrder, error) {
	id, hash := orderid.New(), ""
	keyed := pl.idempotencyKey != ""
	if keyed {
		id = orderid.ForIdempotencyKey(s.opts.Namespace, p.Partner.Name, pl.idempotencyKey)
		hash = orderid.RequestHash(pl.idempotencyKey, pl.canonical)
	}
	infoFrom(ctx).orderID = id
	key := client.ObjectKey{Namespace: s.opts.Namespace, Name: orderid.ObjectName(id)}

	if keyed {
		existing, err := s.keyedOrder(ctx, p.Partner.Name, id)
		if err != nil {
			return nil, err
		}
		if existing != nil {
			return s.resume(ctx, existing, p, hash)
		}
	}

	spec := pl.spec
	spec.OrderID, spec.IdempotencyKeyHash = id, hash
	if err := s.referenceFree(ctx, &spec); err != nil {
		return nil, err
	}
	if pl.prepare != nil {
		if err := pl.prepare(ctx, &spec); err != nil {
			return nil, err
		}
	}
	release, err := s.reserve(ctx, &spec, keyed)
	if err != nil {
		return nil, err
	}
	spec.Display = orderdisplay.Created(spec, s.opts.Catalog.Lookup)
	order := &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace,
			Annotations: map[string]string{swapv1.AnnotationCreatedAt: swapv1.NewPreciseTime(s.opts.Now()).Format(swapv1.PreciseTimeLayout)}},
		Spec: spec,
	}
	if len(p.Partner.Name) <= 63 {
		order.Labels = map[string]string{auth.PartnerLabel: p.Partner.Name}
	}
	createCtx, cancel := context.WithTimeout(ctx, createWithin)
	err = s.opts.Client.Create(createCtx, order)
	cancel()
	if apierrors.IsAlreadyExists(err) && keyed {
		// A concurrent request with the same key won the race; this one follows it.
		existing := &swapv1.SwapOrder{}
		if err := s.opts.APIReader.Get(ctx, key, existing); err != nil {
			return nil, err
		}
		return s.resume(ctx, existing, p, hash)
	}
	if err != nil {
		if createRefused(err) {
			release()
		}
		return nil, err
	}
	return s.awaitDeposit(ctx, order)
}

// createRefused reports whether the API server refused a create outright, so nothing was
// created: a 4xx other than the conflict with an object that exists. After a timeout, a 5xx
// or a lost connection the object may well exist.
func createRefused(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code >= 400 && code < 500 && code != http.StatusConflict
}

// resume continues an idempotent request with the order its key maps to: the same request
// waits for (or gets) that order, a different one is refused.
func (s *Server) resume(ctx context.Context, existing *swapv1.SwapOrder, p *auth.Principal, hash string) (*swapv1.SwapOrder, error) {
	if existing.Spec.Partner != p.Partner.Name || existing.Spec.IdempotencyKeyHash != hash {
		return nil, keyReused()
	}
	if deposited(existing) {
		return s.settled(existing)
	}
	return s.awaitDeposit(ctx, existing)
}

func keyReused() *apierror.Error {
	return apierror.New(apierror.IdempotencyKeyReused,
		"this Idempotency-Key was used with a different request; use a new key for a new order")
}

// deposited reports whether the reconciler has answered the creation: an address, a failure,
// or a hold for review (no address until an operator approves).
func deposited(o *swapv1.SwapOrder) bool {
	return o.Status.DepositAddress != "" || o.Status.Status.IsTerminal() || heldForReview(o)
}

func heldForReview(o *swapv1.SwapOrder) bool {
	return o.Status.Substatus == swapv1.SubstatusHeldForReview
}

// awaitDeposit waits (bounded by WaitTimeout) until the reconciler has answered the creation of
// order. When the wait ends first it returns the order as last seen, still without an address:
// the order exists, so the partner gets it (202) rather than an error a contract-following
// client would retry into a second order.
func (s *Server) awaitDeposit(ctx context.Context, order *swapv1.SwapOrder) (*swapv1.SwapOrder, error) {
	start := s.opts.Now()
	waitCtx, cancel := context.WithTimeout(ctx, s.opts.WaitTimeout)
	defer cancel()
	o, err := s.waiter.await(waitCtx, s.opts.Client, client.ObjectKeyFromObject(order), deposited)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			s.metrics.orderWait.WithLabelValues("timeout").Observe(s.opts.Now().Sub(start).Seconds())
			return order, nil
		}
		return nil, err
	}
	if s.book != nil {
		// The waiter may have found the order in the cache before the book's handler ran:
		// a listing right after this answer must show it.
		s.book.Ensure(o)
	}
	outcome := "address"
	if o.Status.DepositAddress == "" {
		outcome = "failed"
	}
	s.metrics.orderWait.WithLabelValues(outcome).Observe(s.opts.Now().Sub(start).Seconds())
	return s.settled(o)
}

// writeOrderAnswer answers a placed order: 201 once it has its deposit address, else 202 with
// a Location to poll (the provider has not issued the address within the bounded wait).
func writeOrderAnswer(w http.ResponseWriter, o *swapv1.SwapOrder, body any) error {
	if o.Status.DepositAddress != "" {
		return writeJSON(w, http.StatusCreated, body)
	}
	w.Header().Set("Location", "/v1/order/"+o.Spec.OrderID)
	return writeJSON(w, http.StatusAccepted, body)
}

// settled is the answer for an order whose creation the reconciler has answered.
func (s *Server) settled(o *swapv1.SwapOrder) (*swapv1.SwapOrder, error) {
	if o.Status.DepositAddress == "" && !heldForReview(o) {
		return nil, s.creationFailure(o)
	}
	return o, nil
}

// GET /v1/order/{id} → the order record: live orders from the cache, ended ones from the
// archive, in the same form.
func (s *Server) getOrder(w http.ResponseWriter, r *http.Request) error {
	o, err := s.findOrder(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, newOrderRecord(o))
}

// POST /v1/order/{id}/deposit → 202 with the order; the reconciler forwards the hash.
func (s *Server) submitDeposit(w http.ResponseWriter, r *http.Request) error {
	var req wire.DepositRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := validateDeposit(&req); err != nil {
		return err
	}
	o, err := s.findOrder(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	if o.Status.Status.IsTerminal() {
		return apierror.Newf(apierror.OrderTerminal, "the order is %s", o.Status.Status)
	}
	patch := client.MergeFrom(o.DeepCopy())
	o.Spec.DepositHint = &swapv1.DepositHint{TxHash: req.TxHash, NearSenderAccount: deref(req.NearSenderAccount)}
	if err := s.opts.Client.Patch(r.Context(), o, patch); err != nil {
		if apierrors.IsNotFound(err) {
			return orderNotFound()
		}
		return err
	}
	return writeJSON(w, http.StatusAccepted, newOrderRecord(o))
}

// findOrder reads the caller's order with public id: from the cache while it is live, else
// from the archive. A malformed id, a missing order and another partner's order all answer
// the same 404; an unreachable archive answers 503, since the order may well exist.
func (s *Server) findOrder(r *http.Request, id string) (*swapv1.SwapOrder, error) {
	infoFrom(r.Context()).orderID = id
	if !orderid.Valid(id) {
		return nil, orderNotFound()
	}
	partner := principal(r.Context()).Partner.Name
	o, err := s.findLive(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if o == nil {
		if o, err = s.archivedOrder(r.Context(), partner, id); err != nil || o == nil {
			return nil, cmp.Or(err, error(orderNotFound()))
		}
	}
	if o.Spec.Partner != partner || o.Spec.OrderID != id {
		return nil, orderNotFound()
	}
	return o, nil
}

func orderNotFound() *apierror.Error { return apierror.New(apierror.OrderNotFound, "") }
