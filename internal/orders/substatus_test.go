package orders

import (
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSubstatus(t *testing.T) {
	incomplete := &provider.Status{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusIncompleteDeposit}
	awaiting := &provider.Status{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit}
	tests := []struct {
		name   string
		st     swapv1.SwapOrderStatus
		obs    *provider.Status
		closed bool
		want   swapv1.OrderSubstatus
	}{
		{"window closed, still pending", swapv1.SwapOrderStatus{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit}, awaiting, true, swapv1.SubstatusDepositWindowClosed},
		{"window closed, failed poll", swapv1.SwapOrderStatus{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit}, nil, true, swapv1.SubstatusDepositWindowClosed},
		{"window closed but the provider sees a deposit", swapv1.SwapOrderStatus{Status: swapv1.OrderPending}, &provider.Status{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusDepositSeen}, true, swapv1.SubstatusDepositSeen},
		{"follows the provider", swapv1.SwapOrderStatus{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDepositSeen}, incomplete, false, swapv1.SubstatusIncompleteDeposit},
		{"a delayed fill is shown as such", swapv1.SwapOrderStatus{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSwapping},
			&provider.Status{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDelayed}, false, swapv1.SubstatusDelayed},
		{"and goes on once the fill moves", swapv1.SwapOrderStatus{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDelayed},
			&provider.Status{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSending}, false, swapv1.SubstatusSending},
		{"a lagging answer does not relabel", swapv1.SwapOrderStatus{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSwapping}, awaiting, false, swapv1.SubstatusSwapping},
		{"expired by the service", swapv1.SwapOrderStatus{Status: swapv1.OrderFailed, StatusReason: ReasonDepositExpired, Substatus: swapv1.SubstatusAwaitingDeposit}, awaiting, false, swapv1.SubstatusDepositWindowClosed},
		{"expired after the provider forgot it", swapv1.SwapOrderStatus{Status: swapv1.OrderFailed, StatusReason: ReasonDepositExpired}, nil, false, swapv1.SubstatusDepositWindowClosed},
		{"unknown has none", swapv1.SwapOrderStatus{Status: swapv1.OrderUnknown, Substatus: swapv1.SubstatusSwapping}, nil, false, ""},
		{"a failed poll keeps it", swapv1.SwapOrderStatus{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSwapping}, nil, false, swapv1.SubstatusSwapping},
	}
	for _, tt := range tests {
		if got := Substatus(tt.st.Status, tt.st.StatusReason, tt.st.Substatus, tt.obs, tt.closed); got != tt.want {
			t.Errorf("%s: Substatus = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestNextAndHistoryCarrySubstatus(t *testing.T) {
	st := swapv1.SwapOrderStatus{Status: swapv1.OrderPending, StatusReason: "AwaitingDeposit", Substatus: swapv1.SubstatusAwaitingDeposit}
	if s, r := Next(&st, Change{}); s != swapv1.OrderPending || r != "AwaitingDeposit" {
		t.Fatalf("Next(zero) = %s %s", s, r)
	}
	c := Change{To: swapv1.OrderProcessing, Reason: "IncompleteDeposit"}
	if s, r := Next(&st, c); s != swapv1.OrderProcessing || r != "IncompleteDeposit" {
		t.Fatalf("Next = %s %s", s, r)
	}
	st.Substatus = swapv1.SubstatusIncompleteDeposit
	tr, ok := Apply(&st, c, metav1.Now())
	if !ok || tr.Substatus != swapv1.SubstatusIncompleteDeposit || st.History[0].Substatus != swapv1.SubstatusIncompleteDeposit {
		t.Fatalf("history entry %+v; want the substatus at the transition", tr)
	}
	done := swapv1.SwapOrderStatus{Status: swapv1.OrderSuccess, StatusReason: "Settled"}
	if s, _ := Next(&done, Change{To: swapv1.OrderFailed}); s != swapv1.OrderSuccess {
		t.Fatal("a terminal status moved")
	}
}
