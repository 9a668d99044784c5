package orders

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// The moment step and plan tests decide at, and times around it.
var (
	now     = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	later   = &metav1.Time{Time: now.Add(5 * time.Second)}
	earlier = &metav1.Time{Time: now.Add(-time.Second)}
	hint    = &swapv1.DepositHint{TxHash: "0xabc"}
)

// order is an order with status st and deposit hint h.
func order(st swapv1.SwapOrderStatus, h *swapv1.DepositHint) *swapv1.SwapOrder {
	return &swapv1.SwapOrder{Spec: swapv1.SwapOrderSpec{DepositHint: h}, Status: st}
}

func TestNextStep(t *testing.T) {
	tests := []struct {
		name string
		o    *swapv1.SwapOrder
		want Step
	}{
		{"new order", order(swapv1.SwapOrderStatus{}, nil), StepCreateDeposit},
		{"new order with an early hint", order(swapv1.SwapOrderStatus{}, hint), StepCreateDeposit},
		{"unnotified transition", order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NextPollAt: earlier}, hint), StepEmit},
		{"unnotified terminal transition", order(swapv1.SwapOrderStatus{Status: success, LastSeq: 3, NotifiedSeq: 2}, nil), StepEmit},
		{"terminal", order(swapv1.SwapOrderStatus{Status: failed, LastSeq: 1, NotifiedSeq: 1}, hint), StepArchive},
		{"terminal and archived", archived(order(swapv1.SwapOrderStatus{Status: failed, LastSeq: 1, NotifiedSeq: 1}, hint)), StepWait},
		{"hint to forward", order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NotifiedSeq: 1, NextPollAt: later}, hint), StepForwardHint},
		{"hint forwarded already", order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NotifiedSeq: 1, NextPollAt: later, ForwardedTxHash: "0xabc"}, hint), StepWait},
		{"changed hint", order(swapv1.SwapOrderStatus{Status: processing, LastSeq: 2, NotifiedSeq: 2, NextPollAt: later, ForwardedTxHash: "0xold"}, hint), StepForwardHint},
		{"poll due", order(swapv1.SwapOrderStatus{Status: processing, LastSeq: 2, NotifiedSeq: 2, NextPollAt: earlier}, nil), StepPoll},
		{"poll due exactly now", order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NotifiedSeq: 1, NextPollAt: &metav1.Time{Time: now}}, nil), StepPoll},
		{"never polled", order(swapv1.SwapOrderStatus{Status: unknown, LastSeq: 1, NotifiedSeq: 1}, nil), StepPoll},
		{"waiting", order(swapv1.SwapOrderStatus{Status: pending, LastSeq: 1, NotifiedSeq: 1, NextPollAt: later}, nil), StepWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NextStep(tt.o, now); got != tt.want {
				t.Errorf("NextStep = %v, want %v", got, tt.want)
			}
		})
	}
}

func archived(o *swapv1.SwapOrder) *swapv1.SwapOrder {
	o.Labels = map[string]string{swapv1.LabelArchived: "true"}
	return o
}
