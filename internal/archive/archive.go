// Package archive is the PostgreSQL order archive: terminal orders are
// written here before they leave etcd; reads, partner listing and idempotency checks fall
// back to it; it remembers every order id handed out for an Idempotency-Key or a
// clientReference forever. The frontend and the retention step see it through small
// interfaces of their own; Postgres is the implementation, with its schema migrations
// embedded and applied at start.
package archive

import (
	"errors"
	"fmt"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

var (
	// ErrNotFound: the archive has no such order (for this partner).
	ErrNotFound = errors.New("order not in the archive")
	// ErrUnavailable: the database could not be reached or did not answer in time; the
	// caller retries later (nothing was written).
	ErrUnavailable = errors.New("order archive unavailable")
)

// ReferenceTakenError: the partner's clientReference already belongs to another order.
type ReferenceTakenError struct {
	ClientReference string
	OrderID         string
	// Stale: the reservation holding it is stale (see Reservation.Stale).
	Stale bool
}

func (e *ReferenceTakenError) Error() string {
	return fmt.Sprintf("clientReference %q already belongs to order %s", e.ClientReference, e.OrderID)
}

// Entry is one terminal order to archive.
type Entry struct {
	// Order is the SwapOrder as it is in etcd (managedFields are dropped).
	Order *swapv1.SwapOrder
	// Deliveries summarise its webhook deliveries.
	Deliveries []Delivery
}

// Delivery summarises one WebhookDelivery.
type Delivery struct {
	// Name is the WebhookDelivery object's name.
	Name        string               `json:"name"`
	EventID     string               `json:"eventId"`
	Sequence    int64                `json:"sequence"`
	Phase       swapv1.DeliveryPhase `json:"phase"`
	Attempts    int32                `json:"attempts"`
	LastCode    int32                `json:"lastCode,omitempty"`
	CompletedAt *time.Time           `json:"completedAt,omitempty"`
}

// Reservation ties an order id to what a partner may use to find it again: its
// Idempotency-Key (as the request hash the SwapOrder carries) and its clientReference.
type Reservation struct {
	OrderID            string
	Partner            string
	IdempotencyKeyHash string
	ClientReference    string
	// Stale, in answers only: made by Reserve longer than StaleAfter ago for an order never
	// archived since. Its order is either live in etcd or was never created (the create crashed
	// or was refused after reserving): the archive cannot tell which; etcd can.
	Stale bool
}

// StaleAfter is how long after Reserve its order is surely in etcd if it ever will be: every
// create ends well within it (the frontend gives up on its create after a minute).
const StaleAfter = 10 * time.Minute

// Position is a place in a partner's listing: newest first by creation time, then by id.
type Position struct {
	CreatedAt time.Time
	OrderID   string
}

// Query selects a page of one partner's archived orders, newest first.
type Query struct {
	Partner         string
	Status          swapv1.OrderStatus
	ProviderID      swapv1.ProviderID
	ClientReference string
	// From (inclusive) and To (exclusive) bound the creation time; zero means unbounded.
	From, To time.Time
	// After, when set, starts the page after this position.
	After *Position
	// Above, when set, keeps only orders listed before this position (newer): the frontend
	// sets it when live orders alone fill the page, so older archived rows are not read.
	Above *Position
	// Limit is the most orders returned.
	Limit int
}

// Before reports whether p comes before q in a listing (newest first, then by id).
func (p Position) Before(q Position) bool {
	if !p.CreatedAt.Equal(q.CreatedAt) {
		return p.CreatedAt.After(q.CreatedAt)
	}
	return p.OrderID > q.OrderID
}
