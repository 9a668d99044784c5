package eventcursor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// history is an order's events with stream times from occurredAt offsets in ms.
func history(id string, occurredMs ...int) []Event {
	occurred := make([]time.Time, len(occurredMs))
	for i, ms := range occurredMs {
		occurred[i] = at(ms)
	}
	out := make([]Event, len(occurred))
	for i, t := range StreamTimes(occurred) {
		out[i] = Event{OrderID: id, Seq: int64(i + 1), At: t, Index: i}
	}
	return out
}

func names(emits []Emit) []string {
	out := []string{}
	for _, e := range emits {
		name := fmt.Sprintf("%s/%d", e.Event.OrderID, e.Event.Seq)
		if e.Late {
			name += " late"
		}
		out = append(out, name)
	}
	return out
}

func TestNext(t *testing.T) {
	const lag = 1000 * time.Millisecond
	for _, tc := range []struct {
		name   string
		from   Position
		seen   int
		orders [][]Event
		want   []string
		// wantW is the watermark after the batch (ms); wantSent the orders listed then.
		wantW    int
		wantSent map[string]int64
	}{
		{
			name: "a new stream sends what happens from its start, in time order across orders",
			from: Start(at(100)), seen: 500,
			orders: [][]Event{history("b", 50, 200), history("a", 300), history("c", 200)},
			want:   []string{"b/2", "c/1", "a/1"},
			// Nothing is older than seen − lag yet: the watermark stays at the start.
			wantW: 100, wantSent: map[string]int64{"a": 1, "b": 2, "c": 1},
		},
		{
			name: "the watermark follows the events up to seen − lag; orders wholly before it leave Sent",
			from: Start(at(0)), seen: 2500,
			orders: [][]Event{history("a", 100, 1200, 1400), history("b", 1600)},
			want:   []string{"a/1", "a/2", "a/3", "b/1"},
			wantW:  1500, wantSent: map[string]int64{"b": 1},
		},
		{
			name:   "a resume skips events before the watermark and the ones Sent lists",
			from:   Position{Watermark: at(1000), Sent: map[uint64]Sent{OrderKey("a"): {Seq: 2, At: at(1100)}}},
			seen:   1500,
			orders: [][]Event{history("a", 900, 1100, 1200), history("b", 800, 1050), history("c", 999)},
			want:   []string{"b/2", "a/3"},
			wantW:  1000, wantSent: map[string]int64{"a": 3, "b": 2},
		},
		{
			name: "ties in time go by order id, then seq",
			from: Start(at(0)), seen: 100,
			orders: [][]Event{history("b", 10, 10), history("a", 10)},
			want:   []string{"a/1", "b/1", "b/2"},
			wantW:  0, wantSent: map[string]int64{"a": 1, "b": 2},
		},
		{
			name: "a controller clock that stepped back cannot reorder an order's events",
			from: Start(at(0)), seen: 100,
			orders: [][]Event{history("a", 50, 20), history("b", 30)},
			want:   []string{"b/1", "a/1", "a/2"},
			wantW:  0, wantSent: map[string]int64{"a": 2, "b": 1},
		},
		{
			name:   "an event of a known order seen later than the lag is still sent, as late",
			from:   Position{Watermark: at(5000), Sent: map[uint64]Sent{OrderKey("a"): {Seq: 1, At: at(5000)}}},
			seen:   5100,
			orders: [][]Event{append(history("a", 5000), Event{OrderID: "a", Seq: 2, At: at(5000), Index: 1})},
			want:   []string{"a/2"},
			wantW:  5000, wantSent: map[string]int64{"a": 2},
		},
		{
			name:   "what was already sent is not sent again by the same stream",
			from:   Position{Watermark: at(0), Sent: map[uint64]Sent{OrderKey("a"): {Seq: 2, At: at(20)}}},
			seen:   100,
			orders: [][]Event{history("a", 10, 20)},
			want:   []string{},
			wantW:  0, wantSent: map[string]int64{"a": 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emits, after := tc.from.Next(at(tc.seen), lag, tc.orders)
			if got := names(emits); !slices.Equal(got, tc.want) {
				t.Fatalf("sent %v, want %v", got, tc.want)
			}
			if !after.Watermark.Equal(at(tc.wantW)) {
				t.Errorf("watermark %v, want %v", after.Watermark.Sub(t0), at(tc.wantW).Sub(t0))
			}
			want := map[uint64]Sent{}
			for id, seq := range tc.wantSent {
				want[OrderKey(id)] = Sent{Seq: seq}
			}
			if len(after.Sent) != len(want) {
				t.Errorf("Sent has %d orders, want %v", len(after.Sent), tc.wantSent)
			}
			for k, s := range want {
				if after.Sent[k].Seq != s.Seq {
					t.Errorf("Sent = %v, want %v", after.Sent, tc.wantSent)
				}
			}
			if len(emits) > 0 && !emits[len(emits)-1].After.Watermark.Equal(after.Watermark) {
				t.Error("the last event's position is not the batch's")
			}
		})
	}
}

func TestWatermarkAfterEachEventIsAtMostItsTime(t *testing.T) {
	emits, _ := Start(at(0)).Next(at(10_000), time.Second, [][]Event{history("a", 100, 5000), history("b", 3000)})
	want := []int{100, 3000, 5000}
	for i, e := range emits {
		if !e.After.Watermark.Equal(at(want[i])) {
			t.Errorf("after %s/%d the watermark is %v, want %dms", e.Event.OrderID, e.Event.Seq, e.After.Watermark.Sub(t0), want[i])
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	p := Position{Watermark: at(1234).Add(567 * time.Microsecond), Sent: map[uint64]Sent{
		OrderKey("ord_a"): {Seq: 3, At: at(2000)}, OrderKey("ord_b"): {Seq: 1, At: at(1234).Add(567 * time.Microsecond)}}}
	b := p.Encode("acme\x00")
	got, err := Decode(b, "acme\x00")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Watermark.Equal(p.Watermark) || len(got.Sent) != 2 || got.Sent[OrderKey("ord_a")] != (Sent{Seq: 3, At: at(2000)}) {
		t.Fatalf("decoded %+v, want %+v", got, p)
	}
	for name, bad := range map[string][]byte{
		"another scope": p.Encode("globex\x00"),
		"truncated":     b[:len(b)-1],
		"trailing":      append(slices.Clone(b), 0),
		"empty":         nil,
	} {
		if _, err := Decode(bad, "acme\x00"); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// TestResumeAcrossReplicasDeliversEachEventOnce simulates the assumption: two replicas see
// every transition within the lag of its time, each in its own order, and a client that
// drops the connection at random events and resumes, from the position of the last event it
// got, at the other replica. Every event must arrive exactly once, in seq order per order.
func TestResumeAcrossReplicasDeliversEachEventOnce(t *testing.T) {
	const lag = 300 * time.Millisecond
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 7))
		type transition struct {
			occurred time.Time
			visible  [2]time.Time
		}
		orders := map[string][]transition{}
		for o := range 40 {
			id := fmt.Sprintf("ord_%02d", o)
			t := at(rng.IntN(2000))
			var seen [2]time.Time
			for range 1 + rng.IntN(5) {
				t = t.Add(time.Duration(rng.IntN(400)) * time.Millisecond)
				tr := transition{occurred: t}
				for r := range 2 {
					// A replica sees an order's versions in order, each within the lag.
					v := t.Add(time.Duration(rng.Int64N(int64(lag))))
					seen[r] = maxTime(seen[r], v)
					tr.visible[r] = seen[r]
				}
				orders[id] = append(orders[id], tr)
			}
		}
		visibleAt := func(replica int, now time.Time) [][]Event {
			var out [][]Event
			for id, trs := range orders {
				var occurred []time.Time
				for _, tr := range trs {
					if tr.visible[replica].After(now) {
						break
					}
					occurred = append(occurred, tr.occurred)
				}
				var events []Event
				for i, st := range StreamTimes(occurred) {
					events = append(events, Event{OrderID: id, Seq: int64(i + 1), At: st, Index: i})
				}
				out = append(out, events)
			}
			return out
		}

		got := map[string][]int64{}
		pos := Start(at(0))
		replica := 0
		for now := at(0); now.Before(at(5000)); now = now.Add(time.Duration(1+rng.IntN(50)) * time.Millisecond) {
			emits, _ := pos.Next(now, lag, visibleAt(replica, now))
			for _, e := range emits {
				got[e.Event.OrderID] = append(got[e.Event.OrderID], e.Event.Seq)
				pos = e.After
				if rng.IntN(10) == 0 { // the connection drops after this event
					var err error
					if pos, err = Decode(pos.Encode("s"), "s"); err != nil {
						t.Fatal(err)
					}
					replica = 1 - replica
					break
				}
			}
		}
		for id, trs := range orders {
			want := make([]int64, len(trs))
			for i := range want {
				want[i] = int64(i + 1)
			}
			if !slices.Equal(got[id], want) {
				t.Fatalf("seed %d: order %s got seqs %v, want %v", seed, id, got[id], want)
			}
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// A horizon between two microseconds: the event of the earlier one was sent, and a resume
// from the encoded position must not send it again.
func TestResumeAtASubMicrosecondHorizonSendsNothingTwice(t *testing.T) {
	const lag = 10 * time.Second
	sent := history("a", 0)
	other := history("b", 20_000)
	seen := sent[0].At.Add(lag + 300*time.Nanosecond) // horizon: 300 ns after a's event
	emits, _ := Start(at(-1)).Next(seen, lag, [][]Event{sent, other})
	if got := names(emits); !slices.Equal(got, []string{"a/1", "b/1"}) {
		t.Fatalf("first batch sent %v", got)
	}
	after := emits[len(emits)-1].After
	resumed, err := Decode(after.Encode("s"), "s")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := resumed.Next(seen.Add(time.Second), lag, [][]Event{sent, other})
	if got := names(again); len(got) != 0 {
		t.Fatalf("a resume from the position after b/1 sent %v again", got)
	}
}
