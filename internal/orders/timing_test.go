package orders

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestPollInterval(t *testing.T) {
	s := time.Second
	tests := []struct {
		name     string
		min, max time.Duration
		unit     float64
		want     time.Duration
	}{
		{"lower bound", 10 * s, 15 * s, 0, 10 * s},
		{"middle", 10 * s, 15 * s, 0.5, 12500 * time.Millisecond},
		{"near upper bound", 10 * s, 15 * s, 0.999999, 15*s - 5*time.Microsecond},
		{"fixed interval", 200 * time.Millisecond, 200 * time.Millisecond, 0.7, 200 * time.Millisecond},
		{"unset falls back to defaults", 0, 0, 0.2, 11 * s},
		{"inverted falls back to defaults", 5 * s, 1 * s, 0, 10 * s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PollInterval(tt.min, tt.max, tt.unit); got != tt.want {
				t.Errorf("PollInterval(%v, %v, %v) = %v, want %v", tt.min, tt.max, tt.unit, got, tt.want)
			}
		})
	}
}

func TestPollIntervalStaysInBounds(t *testing.T) {
	for i := range 1000 {
		unit := float64(i) / 1000
		if d := PollInterval(10*time.Second, 15*time.Second, unit); d < 10*time.Second || d > 15*time.Second {
			t.Fatalf("unit %v gave %v, outside [10s, 15s]", unit, d)
		}
	}
}

func TestNextPollAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	tests := []struct {
		name    string
		expires *time.Time
		want    time.Time
	}{
		{"no deadline", nil, now.Add(12 * time.Second)},
		{"expiry far away", at(time.Hour), now.Add(12 * time.Second)},
		{"expiry before next poll", at(3 * time.Second), now.Add(3 * time.Second)},
		{"already expired", at(-time.Second), now.Add(12 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NextPollAt(now, 12*time.Second, tt.expires); !got.Equal(tt.want) {
				t.Errorf("NextPollAt = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPersistFailures(t *testing.T) {
	var written []int32
	for n := int32(1); n <= 40; n++ {
		if PersistFailures(n, 5) {
			written = append(written, n)
		}
	}
	if fmt.Sprint(written) != "[1 5]" {
		t.Fatalf("40 failures in a row write the count at %v, want [1 5]", written)
	}
}

func TestWatch(t *testing.T) {
	since := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	min, max, bound := 10*time.Second, 5*time.Minute, 24*time.Hour
	tests := []struct {
		name     string
		failing  time.Duration
		interval time.Duration
		stop     bool
	}{
		{"just started: full cadence", 0, min, false},
		{"failing a minute: a minute", time.Minute, time.Minute, false},
		{"failing an hour: capped", time.Hour, max, false},
		{"bound reached: stop", bound, 0, true},
	}
	for _, tt := range tests {
		got, stop := Watch(since, since.Add(tt.failing), min, max, bound)
		if got != tt.interval || stop != tt.stop {
			t.Errorf("%s: Watch = %v, %v; want %v, %v", tt.name, got, stop, tt.interval, tt.stop)
		}
	}
}

func TestWatchSince(t *testing.T) {
	deadline := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	grace := 10 * time.Minute
	failing := metav1.NewTime(deadline.Add(-time.Hour))
	tests := []struct {
		name string
		st   swapv1.SwapOrderStatus
		now  time.Time
		want *time.Time
	}{
		{"healthy", swapv1.SwapOrderStatus{Status: processing}, deadline, nil},
		{"failing", swapv1.SwapOrderStatus{Status: processing, FailingSince: &failing}, deadline, &failing.Time},
		{"pending in grace", swapv1.SwapOrderStatus{Status: pending, DepositDeadline: &metav1.Time{Time: deadline}}, deadline.Add(time.Minute), nil},
		{"pending kept past grace", swapv1.SwapOrderStatus{Status: pending, DepositDeadline: &metav1.Time{Time: deadline}}, deadline.Add(time.Hour), ptrTime(deadline.Add(grace))},
		{"processing past grace is the provider's", swapv1.SwapOrderStatus{Status: processing, DepositDeadline: &metav1.Time{Time: deadline}}, deadline.Add(time.Hour), nil},
	}
	for _, tt := range tests {
		got := WatchSince(&tt.st, grace, tt.now)
		if (got == nil) != (tt.want == nil) || got != nil && !got.Equal(*tt.want) {
			t.Errorf("%s: WatchSince = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

func TestCreateGiveUp(t *testing.T) {
	created := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	bound := 10 * time.Minute
	tests := []struct {
		name string
		st   swapv1.SwapOrderStatus
		now  time.Time
		want bool
	}{
		{"in time", swapv1.SwapOrderStatus{}, created.Add(time.Minute), false},
		{"bound passed, no address", swapv1.SwapOrderStatus{}, created.Add(bound), true},
		{"an address was shown", swapv1.SwapOrderStatus{DepositAddress: "0xabc"}, created.Add(time.Hour), false},
		{"already has a status", swapv1.SwapOrderStatus{Status: pending}, created.Add(time.Hour), false},
	}
	for _, tt := range tests {
		if got := CreateGiveUp(&tt.st, created, tt.now, bound); got != tt.want {
			t.Errorf("%s: CreateGiveUp = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The money rule: only an order that nothing shows a deposit for, which its provider still
// awaits, expires, and only after deadline plus grace.
func TestShouldExpire(t *testing.T) {
	deadline := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	grace := 10 * time.Minute
	late := deadline.Add(grace)
	awaiting := provider.Status{Status: pending, Substatus: swapv1.SubstatusAwaitingDeposit}
	order := func(edit func(o *swapv1.SwapOrder)) *swapv1.SwapOrder {
		o := &swapv1.SwapOrder{Status: swapv1.SwapOrderStatus{Status: pending, DepositDeadline: &metav1.Time{Time: deadline},
			History: []swapv1.StatusTransition{{Seq: 1, Status: pending}}}}
		if edit != nil {
			edit(o)
		}
		return o
	}
	tests := []struct {
		name string
		o    *swapv1.SwapOrder
		obs  provider.Status
		now  time.Time
		want bool
	}{
		{"before deadline", order(nil), awaiting, deadline.Add(-time.Minute), false},
		{"in grace", order(nil), awaiting, deadline.Add(9 * time.Minute), false},
		{"deadline plus grace, nothing deposited", order(nil), awaiting, late, true},
		{"no deadline never expires", order(func(o *swapv1.SwapOrder) { o.Status.DepositDeadline = nil }), awaiting, late.Add(1000 * time.Hour), false},
		{"inbound tx known", order(func(o *swapv1.SwapOrder) { o.Status.InTxHashes = []string{"0x1"} }), awaiting, late, false},
		{"hint forwarded", order(func(o *swapv1.SwapOrder) { o.Status.ForwardedTxHash = "0x1" }), awaiting, late, false},
		{"hint given, not yet forwarded", order(func(o *swapv1.SwapOrder) { o.Spec.DepositHint = &swapv1.DepositHint{TxHash: "0x1"} }), awaiting, late, false},
		{"deposited amount recorded", order(func(o *swapv1.SwapOrder) { o.Status.DepositedAmount = "5" }), awaiting, late, false},
		{"provider reported a deposit before", order(func(o *swapv1.SwapOrder) {
			o.Status.History = append(o.Status.History, swapv1.StatusTransition{Seq: 2, Status: processing}, swapv1.StatusTransition{Seq: 3, Status: unknown})
			o.Status.Status = unknown
		}), awaiting, late, false},
		{"provider sees a deposit now", order(nil), provider.Status{Status: pending, Substatus: swapv1.SubstatusDepositSeen}, late, false},
		{"provider reports an inbound tx", order(nil), provider.Status{Status: pending, InTxHashes: []string{"0x2"}}, late, false},
		{"provider reports a deposited amount", order(nil), provider.Status{Status: pending, DepositedAmount: "3"}, late, false},
		{"provider is processing", order(nil), provider.Status{Status: processing}, late, false},
	}
	for _, tt := range tests {
		if got := ShouldExpire(tt.o, tt.obs, grace, tt.now); got != tt.want {
			t.Errorf("%s: ShouldExpire = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWindowClosed(t *testing.T) {
	deadline := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	o := &swapv1.SwapOrder{Status: swapv1.SwapOrderStatus{Status: pending, DepositDeadline: &metav1.Time{Time: deadline}}}
	if WindowClosed(o, deadline.Add(-time.Second)) {
		t.Error("window closed before the deadline")
	}
	if !WindowClosed(o, deadline) {
		t.Error("window open at the deadline")
	}
	o.Status.InTxHashes = []string{"0x1"}
	if WindowClosed(o, deadline.Add(time.Hour)) {
		t.Error("an order with an inbound tx shows a closed window")
	}
}

func TestRetainUntil(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ended := metav1.NewTime(created.Add(2 * time.Hour))
	retention := 30 * 24 * time.Hour

	var live swapv1.SwapOrderStatus
	Apply(&live, Change{pending, "a"}, metav1.NewTime(created))
	if _, ok := RetainUntil(&live, created, retention); ok {
		t.Fatal("a pending order has a retention deadline")
	}
	done := live.DeepCopy()
	Apply(done, Change{success, "b"}, ended)
	if got, ok := RetainUntil(done, created, retention); !ok || !got.Equal(ended.Add(retention)) {
		t.Fatalf("RetainUntil = %v, %v; want %v", got, ok, ended.Add(retention))
	}
	lost := done.DeepCopy()
	lost.History = nil
	if got, ok := RetainUntil(lost, created, retention); !ok || !got.Equal(created.Add(retention)) {
		t.Fatalf("without history RetainUntil = %v, %v; want creation + retention", got, ok)
	}
}

func TestSettlement(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(t0.Add(d)) }
	order := func(steps ...swapv1.OrderStatus) *swapv1.SwapOrder {
		o := &swapv1.SwapOrder{}
		for i, s := range steps {
			Apply(&o.Status, Change{s, fmt.Sprint("step ", i)}, at(time.Duration(i)*time.Minute))
		}
		return o
	}
	hinted := order(swapv1.OrderPending, swapv1.OrderFailed)
	hinted.Spec.DepositHint = &swapv1.DepositHint{TxHash: "0xabc"}
	for _, tt := range []struct {
		name          string
		order         *swapv1.SwapOrder
		took          time.Duration
		succeeded, ok bool
	}{
		{"still processing", order(swapv1.OrderPending, swapv1.OrderProcessing), 0, false, false},
		{"success: deposit seen to outcome", order(swapv1.OrderPending, swapv1.OrderProcessing, swapv1.OrderProcessing, swapv1.OrderSuccess), 2 * time.Minute, true, true},
		{"refunded after processing", order(swapv1.OrderPending, swapv1.OrderProcessing, swapv1.OrderRefunded), time.Minute, false, true},
		{"straight from pending: within one poll", order(swapv1.OrderPending, swapv1.OrderSuccess), 0, true, true},
		{"expired without a deposit: not the provider's", order(swapv1.OrderPending, swapv1.OrderFailed), 0, false, false},
		{"failed with a deposit shown", hinted, 0, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			took, succeeded, ok := Settlement(tt.order)
			if took != tt.took || succeeded != tt.succeeded || ok != tt.ok {
				t.Errorf("Settlement = %v, %v, %v; want %v, %v, %v", took, succeeded, ok, tt.took, tt.succeeded, tt.ok)
			}
		})
	}
}
