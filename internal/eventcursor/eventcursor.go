// Package eventcursor decides what an order event stream sends and where a client that
// disconnects resumes, so that resuming at any frontend replica delivers every event exactly
// once, in order per order.
//
// The difficulty: a transition becomes visible to a replica (its informer, or the archive)
// some time after its occurredAt, later on one replica than on another, and transitions of
// different orders become visible in a different order on different replicas. Sorting by
// occurredAt alone would either hold every event back for the worst-case delay or let a
// late one slip behind a resume point.
//
// The guarantee rests on one assumption, the visibility lag L: a transition is visible to
// every replica (in its informer cache, or in the archive once it left etcd) at the latest L
// after its occurredAt, as that replica's clock reads it. L bounds clock skew between the
// controller that stamped the transition and the replica, the status write, and the watch.
//
// Events are sent as soon as a replica sees them. A resume Position holds a watermark W and,
// per order, the highest seq sent among that order's events at or after W. It promises:
// every event before W has been sent (or predates the stream), and exactly the events at or
// after W listed in Sent have. W after an event is min(seen − L, the event's time), where
// seen is when the replica took the batch the event came in: by the assumption every event
// before seen − L was visible by then, so it was in this batch or an earlier one, and a batch
// goes out in time order. A resume replays everything from W and skips what Sent lists.
// Per order, events are numbered by seq without gaps and a replica sees an order's
// transitions in seq order, so what was sent of an order is always a prefix: one seq per
// order is enough. An event's time is its order's running maximum of occurredAt, so time
// order agrees with seq order even if a controller's clock stepped back.
//
// If the assumption is broken (a transition shows up more than L late), the event is still
// sent by a stream that knows its order, and reported as Late; a client resuming from a
// position issued before it may miss it. Orders are keyed in a Position by a 64-bit hash of
// their id, which keeps positions small.
package eventcursor

import (
	"cmp"
	"hash/fnv"
	"maps"
	"slices"
	"time"
)

// Event is one transition of an order as a stream sees it.
type Event struct {
	OrderID string
	Seq     int64
	// At is the event's stream time: the latest occurredAt among its order's transitions up
	// to this one (see StreamTimes).
	At time.Time
	// Index is the caller's reference to the transition (e.g. its index in the history).
	Index int
}

// Position is where a stream is: what it has sent, as a client resumes from it.
type Position struct {
	// Watermark: every event before it has been sent or predates the stream.
	Watermark time.Time
	// Sent holds, per order (OrderKey), the highest seq sent of an order that has an event at
	// or after Watermark; those events and no others at or after Watermark were sent.
	Sent map[uint64]Sent
}

// Sent is the last sent event of one order.
type Sent struct {
	Seq int64
	At  time.Time
}

// Emit is one event to send and the position once it is sent.
type Emit struct {
	Event Event
	After Position
	// Late: the event came to light more than the visibility lag after its time.
	Late bool
}

// Start is the position of a new stream that sends what happens from now on.
func Start(now time.Time) Position { return Position{Watermark: micro(now)} }

// micro drops what a watermark cannot carry through Encode. A watermark kept finer than its
// encoding would decode a little earlier than the replica used it, and an event of exactly
// that microsecond, already sent and so no longer in Sent, would be sent again.
func micro(t time.Time) time.Time { return t.Truncate(time.Microsecond) }

// OrderKey is an order's key in Position.Sent.
func OrderKey(orderID string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(orderID))
	return h.Sum64()
}

// StreamTimes is the stream time of each of an order's transitions, oldest first: the running
// maximum of their occurredAt.
func StreamTimes(occurred []time.Time) []time.Time {
	out := make([]time.Time, len(occurred))
	var latest time.Time
	for i, t := range occurred {
		if t.After(latest) {
			latest = t
		}
		out[i] = latest
	}
	return out
}

// Next takes a batch the replica took at seen: for each order, all of its events it knows
// (oldest first, with stream times). It returns the events not sent yet, in stream order
// (time, order id, seq), each with the position after it, and the position after the batch.
func (p Position) Next(seen time.Time, lag time.Duration, orders [][]Event) ([]Emit, Position) {
	var fresh []Event
	for _, events := range orders {
		if len(events) == 0 {
			continue
		}
		done := p.covered(events)
		for _, e := range events {
			if e.Seq > done {
				fresh = append(fresh, e)
			}
		}
	}
	slices.SortFunc(fresh, func(a, b Event) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.OrderID, b.OrderID), cmp.Compare(a.Seq, b.Seq))
	})
	horizon := seen.Add(-lag)
	out := make([]Emit, 0, len(fresh))
	cur := p.clone()
	for _, e := range fresh {
		late := e.At.Before(cur.Watermark)
		cur.Sent[OrderKey(e.OrderID)] = Sent{Seq: e.Seq, At: e.At}
		if w := micro(earliest(horizon, e.At)); w.After(cur.Watermark) {
			cur.Watermark = w
		}
		maps.DeleteFunc(cur.Sent, func(_ uint64, s Sent) bool { return s.At.Before(cur.Watermark) })
		out = append(out, Emit{Event: e, After: cur.clone(), Late: late})
	}
	return out, cur
}

// covered is the highest seq of an order's events (oldest first) the position has sent:
// Sent's entry, else those before the watermark (a prefix, stream times never go back).
func (p Position) covered(events []Event) int64 {
	if s, ok := p.Sent[OrderKey(events[0].OrderID)]; ok {
		return s.Seq
	}
	var done int64
	for _, e := range events {
		if !e.At.Before(p.Watermark) {
			break
		}
		done = e.Seq
	}
	return done
}

func (p Position) clone() Position {
	c := Position{Watermark: p.Watermark, Sent: maps.Clone(p.Sent)}
	if c.Sent == nil {
		c.Sent = map[uint64]Sent{}
	}
	return c
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
