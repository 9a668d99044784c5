package apiserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/index"
)

// deliveryRecord is one webhook delivery as partners see it.
type deliveryRecord struct {
	ID            string            `json:"id"`
	EventID       string            `json:"eventId"`
	OrderID       string            `json:"orderId"`
	Sequence      int64             `json:"sequence"`
	Redelivery    int32             `json:"redelivery"`
	Phase         string            `json:"phase"`
	AttemptCount  int32             `json:"attemptCount"`
	Attempts      []deliveryAttempt `json:"attempts"`
	LastCode      *int32            `json:"lastCode"`
	NextAttemptAt *string           `json:"nextAttemptAt"`
	CompletedAt   *string           `json:"completedAt"`
	Reason        *string           `json:"reason"`
	CreatedAt     string            `json:"createdAt"`
}

type deliveryAttempt struct {
	At             string  `json:"at"`
	Code           *int32  `json:"code"`
	Error          *string `json:"error"`
	DurationMillis int64   `json:"durationMillis"`
}

func newDeliveryRecord(d *swapv1.WebhookDelivery) deliveryRecord {
	st := &d.Status
	rec := deliveryRecord{
		ID:            d.Name,
		EventID:       d.Spec.EventID,
		OrderID:       d.Spec.OrderID,
		Sequence:      d.Spec.Sequence,
		Redelivery:    d.Spec.Redelivery,
		Phase:         string(st.Phase),
		AttemptCount:  st.AttemptCount,
		Attempts:      make([]deliveryAttempt, 0, len(st.Attempts)),
		NextAttemptAt: optionalTime(st.NextAttemptAt),
		CompletedAt:   optionalTime(st.CompletedAt),
		Reason:        optional(st.Reason),
		CreatedAt:     timestamp(d.CreationTimestamp.Time),
	}
	if rec.Phase == "" {
		rec.Phase = string(swapv1.DeliveryPending)
	}
	if st.LastCode != 0 {
		rec.LastCode = &st.LastCode
	}
	for _, a := range st.Attempts {
		att := deliveryAttempt{At: timestamp(a.At.Time), Error: optional(a.Error), DurationMillis: a.DurationMillis}
		if a.Code != 0 {
			att.Code = &a.Code
		}
		rec.Attempts = append(rec.Attempts, att)
	}
	return rec
}

// GET /v1/webhooks/deliveries?orderId=&limit=&cursor= → {deliveries, nextCursor}: the
// caller's deliveries with their attempts, of one order when orderId is given (404 `order not
// found` when that order is not the caller's), ordered by order, sequence and redelivery, at
// most limit (≤ 100) a page.
func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) error {
	partner := principal(r.Context()).Partner.Name
	page, err := parseDeliveryPage(r.URL.Query(), s.cursors)
	if err != nil {
		return err
	}
	orderID := r.URL.Query().Get("orderId")
	if orderID != "" {
		if _, err := s.findOrder(r, orderID); err != nil {
			return err
		}
	}
	all, err := s.deliveriesOf(r.Context(), partner, orderID)
	if err != nil {
		return err
	}
	items, next := pageOfDeliveries(ownDeliveries(all, partner), page)
	out := make([]deliveryRecord, 0, len(items))
	for i := range items {
		out = append(out, newDeliveryRecord(&items[i]))
	}
	var cursor *string
	if next != nil {
		c := encodeCursor(s.cursors, *next)
		cursor = &c
	}
	return writeJSON(w, http.StatusOK, map[string]any{"deliveries": out, "nextCursor": cursor})
}

// POST /v1/webhooks/deliveries/{eventId}/redeliver → 202 with the new delivery: the same event
// (same webhook-id and bytes) delivered again under the next redelivery number. The frontend
// only asks (a RedeliveryRequest naming the event); the controllers create the delivery from
// the order's history, so nothing the frontend writes is ever signed.
func (s *Server) redeliver(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context()).Partner
	eventID := r.PathValue("eventId")
	items, err := s.eventDeliveries(r.Context(), p.Name, eventID)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return apierror.Newf(apierror.NotFound, "no delivery of event %q", eventID)
	}
	infoFrom(r.Context()).orderID = items[0].Spec.OrderID
	if p.Spec.Webhook == nil || !p.Spec.Webhook.Enabled {
		return apierror.Invalid("webhook", "webhooks are disabled for this partner")
	}
	if wait := redeliveryWait(items, s.opts.Now()); wait > 0 {
		return tooManyRedeliveries(fmt.Sprintf("event %s was redelivered %d times within %s", eventID, maxRedeliveriesPerEvent, redeliveryWindow), wait)
	}
	if d := s.limiter.Allow(r.Context(), "redeliver/"+p.Name, redeliveriesPerMinute); !d.Allowed {
		return tooManyRedeliveries(fmt.Sprintf("%d redeliveries per minute", redeliveriesPerMinute), d.RetryAfter)
	}
	first := items[0].Spec
	rq, err := delivery.CreateNumbered(r.Context(), s.opts.Client, delivery.NextRedelivery(items), false,
		func(n int32) (*swapv1.RedeliveryRequest, error) {
			return delivery.NewRedeliveryRequest(s.opts.Namespace, p.Name, first.OrderID, eventID, n), nil
		})
	if errors.Is(err, delivery.ErrRedeliverRace) {
		return apierror.New(apierror.Internal, err.Error())
	}
	if err != nil {
		return err
	}
	// The delivery the controllers are about to create, as it will first be listed.
	return writeJSON(w, http.StatusAccepted, newDeliveryRecord(&swapv1.WebhookDelivery{
		ObjectMeta: metav1.ObjectMeta{Name: rq.Name, CreationTimestamp: rq.CreationTimestamp},
		Spec:       swapv1.WebhookDeliverySpec{Partner: p.Name, OrderID: first.OrderID, EventID: eventID, Sequence: first.Sequence, Redelivery: rq.Spec.Redelivery},
	}))
}

// eventDeliveries are the partner's deliveries of one event. The first delivery's name is
// the event's (delivery.DeliveryName), which gives the order, whose few deliveries are indexed;
// once that first one has expired (a redelivery outlives it) the partner's deliveries are
// searched. An index by event would cost a set per delivery in the cache for this one request.
func (s *Server) eventDeliveries(ctx context.Context, partner, eventID string) ([]swapv1.WebhookDelivery, error) {
	var first swapv1.WebhookDelivery
	err := s.opts.Client.Get(ctx, client.ObjectKey{Namespace: s.opts.Namespace, Name: delivery.DeliveryName(eventID, 0)}, &first)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, err
	}
	candidates, err := s.deliveriesOf(ctx, partner, first.Spec.OrderID, client.UnsafeDisableDeepCopy)
	if err != nil {
		return nil, err
	}
	var out []swapv1.WebhookDelivery
	for i := range candidates {
		if d := &candidates[i]; d.Spec.EventID == eventID && d.Spec.Partner == partner {
			out = append(out, *d.DeepCopy())
		}
	}
	return out, nil
}

// deliveriesOf lists one order's deliveries, or with orderID empty all the partner's, from
// the cache. The order's may include another partner's (the caller filters by partner).
func (s *Server) deliveriesOf(ctx context.Context, partner, orderID string, opts ...client.ListOption) ([]swapv1.WebhookDelivery, error) {
	if orderID != "" {
		return index.OrderDeliveries(ctx, s.opts.Client, s.opts.Namespace, orderID, opts...)
	}
	var list swapv1.WebhookDeliveryList
	opts = append([]client.ListOption{client.InNamespace(s.opts.Namespace), client.MatchingFields{index.DeliveryPartner: partner}}, opts...)
	if err := s.opts.Client.List(ctx, &list, opts...); err != nil {
		return nil, err
	}
	return list.Items, nil
}

func tooManyRedeliveries(detail string, wait time.Duration) *apierror.Error {
	e := apierror.New(apierror.RateLimitExceeded, detail)
	e.RetryAfterSeconds = max(1, int64(math.Ceil(wait.Seconds())))
	return e
}

func ownDeliveries(items []swapv1.WebhookDelivery, partner string) []swapv1.WebhookDelivery {
	return slices.DeleteFunc(items, func(d swapv1.WebhookDelivery) bool { return d.Spec.Partner != partner })
}
