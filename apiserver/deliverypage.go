package apiserver

import (
	"cmp"
	"net/url"
	"slices"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// deliveryPos is a delivery's place in the list order (order, sequence, redelivery); the
// opaque cursor of GET /v1/webhooks/deliveries is the last one of a page.
type deliveryPos struct {
	OrderID    string `json:"o"`
	Sequence   int64  `json:"s"`
	Redelivery int32  `json:"r"`
}

func positionOf(d *swapv1.WebhookDelivery) deliveryPos {
	return deliveryPos{OrderID: d.Spec.OrderID, Sequence: d.Spec.Sequence, Redelivery: d.Spec.Redelivery}
}

func (a deliveryPos) compare(b deliveryPos) int {
	return cmp.Or(cmp.Compare(a.OrderID, b.OrderID), cmp.Compare(a.Sequence, b.Sequence), cmp.Compare(a.Redelivery, b.Redelivery))
}

func (a deliveryPos) valid() bool { return validCursorID(a.OrderID) }

// deliveryPageQuery is the paging of GET /v1/webhooks/deliveries.
type deliveryPageQuery struct {
	limit int
	after *deliveryPos
}

// parseDeliveryPage reads limit (1–100, default 100) and cursor (opened with cursors).
func parseDeliveryPage(v url.Values, cursors *tokenkeys.Tokens) (deliveryPageQuery, error) {
	limit, after, err := parsePage[deliveryPos](cursors, v, maxListLimit)
	return deliveryPageQuery{limit: limit, after: after}, err
}

// pageOfDeliveries sorts items into list order and returns the page after q.after, with the
// position the next page starts after (nil when this is the last).
func pageOfDeliveries(items []swapv1.WebhookDelivery, q deliveryPageQuery) ([]swapv1.WebhookDelivery, *deliveryPos) {
	slices.SortFunc(items, func(a, b swapv1.WebhookDelivery) int { return positionOf(&a).compare(positionOf(&b)) })
	if q.after != nil {
		i, _ := slices.BinarySearchFunc(items, *q.after, func(d swapv1.WebhookDelivery, p deliveryPos) int {
			return positionOf(&d).compare(p)
		})
		for i < len(items) && positionOf(&items[i]).compare(*q.after) <= 0 {
			i++
		}
		items = items[i:]
	}
	if len(items) <= q.limit {
		return items, nil
	}
	last := positionOf(&items[q.limit-1])
	return items[:q.limit], &last
}

// Redelivery limits: each redelivery stores a copy of the event for the retention period.
const (
	// maxRedeliveriesPerEvent redeliveries of one event within redeliveryWindow.
	maxRedeliveriesPerEvent = 5
	redeliveryWindow        = time.Hour
	// redeliveriesPerMinute of one partner, all events together.
	redeliveriesPerMinute = 30
)

// redeliveryWait is how long until deliveries (one event's) allow another redelivery at now:
// zero while fewer than maxRedeliveriesPerEvent were created within the last window.
func redeliveryWait(deliveries []swapv1.WebhookDelivery, now time.Time) time.Duration {
	var recent []time.Time
	for _, d := range deliveries {
		if created := d.CreationTimestamp.Time; d.Spec.Redelivery > 0 && now.Sub(created) < redeliveryWindow {
			recent = append(recent, created)
		}
	}
	if len(recent) < maxRedeliveriesPerEvent {
		return 0
	}
	slices.SortFunc(recent, time.Time.Compare)
	// The oldest ones must leave the window until one place is free.
	return recent[len(recent)-maxRedeliveriesPerEvent].Add(redeliveryWindow).Sub(now)
}
