package archive

import (
	"context"
	"slices"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestEachEndedSincePagesInEndOrder(t *testing.T) {
	a, ctx := open(t), context.Background()
	// More than two pages; orders i end at base + i s + 1 min, three of them at the same moment.
	const n = 2*endedPage + 37
	ended := func(i int) int { return min(i, n-3) }
	err := a.Load(ctx, n, func(i int) Entry {
		return Entry{Order: order("acme", id(i), base.Add(time.Duration(ended(i))*time.Second), swapv1.OrderSuccess)}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Put(ctx, Entry{Order: order("globex", id(n), base.Add(time.Hour), swapv1.OrderSuccess)}); err != nil {
		t.Fatal(err)
	}
	collect := func(orderID string, since time.Time) []string {
		var got []string
		if err := a.EachEndedSince(ctx, "acme", orderID, since, func(o *swapv1.SwapOrder) error {
			got = append(got, o.Spec.OrderID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	since := base.Add(time.Minute + 10*time.Second) // order 10 ended exactly then: included
	var want []string
	for i := 10; i < n; i++ {
		want = append(want, id(i))
	}
	if got := collect("", since); !slices.Equal(got, want) {
		t.Fatalf("got %d orders (first %v), want %d from %s in end order, each once", len(got), got[:min(3, len(got))], len(want), want[0])
	}
	if got := collect(id(700), since); !slices.Equal(got, []string{id(700)}) {
		t.Fatalf("one order: %v", got)
	}
	if got := collect(id(3), since); len(got) != 0 {
		t.Fatalf("an order that ended before since: %v", got)
	}
}
