package orders

import (
	"slices"
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
		if got := Substatus(tt.st.Status, tt.st.Status, tt.st.StatusReason, tt.st.Substatus, tt.obs, tt.closed); got != tt.want {
			t.Errorf("%s: Substatus = %q; want %q", tt.name, got, tt.want)
		}
	}
}

// An operator's resolution moves the order without the provider's word: the substatus of the
// status before does not stay beside the new one.
func TestSubstatusOfAResolution(t *testing.T) {
	for _, tt := range []struct {
		from swapv1.OrderStatus
		sub  swapv1.OrderSubstatus
		to   swapv1.OrderStatus
		want swapv1.OrderSubstatus
	}{
		{swapv1.OrderPending, swapv1.SubstatusAwaitingDeposit, swapv1.OrderFailed, ""},
		{swapv1.OrderPending, swapv1.SubstatusHeldForReview, swapv1.OrderFailed, ""},
		{swapv1.OrderProcessing, swapv1.SubstatusIncompleteDeposit, swapv1.OrderFailed, ""},
		{swapv1.OrderProcessing, swapv1.SubstatusSending, swapv1.OrderSuccess, ""},
		{swapv1.OrderProcessing, swapv1.SubstatusRefunding, swapv1.OrderRefunded, swapv1.SubstatusRefunded},
		{swapv1.OrderUnknown, "", swapv1.OrderSuccess, ""},
	} {
		if got := Substatus(tt.from, tt.to, "OperatorResolved", tt.sub, nil, false); got != tt.want {
			t.Errorf("%s/%s resolved to %s: substatus %q, want %q", tt.from, tt.sub, tt.to, got, tt.want)
		}
	}
}

// In every state, whatever moved the order, the substatus fits its status: from any status
// with a substatus that fits it, to any status, with no answer or with a provider answer
// whose own pair fits.
func TestSubstatusFitsTheStatusInEveryState(t *testing.T) {
	statuses := swapv1.OrderStatuses
	subs := []swapv1.OrderSubstatus{""}
	for sub := range swapv1.SubstatusStatuses {
		subs = append(subs, sub)
	}
	var answers []*provider.Status
	answers = append(answers, nil)
	for _, st := range statuses {
		for _, sub := range subs {
			if fits(st, sub) {
				answers = append(answers, &provider.Status{Status: st, Substatus: sub})
			}
		}
	}
	for _, prev := range statuses {
		for _, current := range subs {
			if !fits(prev, current) {
				continue
			}
			for _, next := range statuses {
				for _, reason := range []string{"", ReasonDepositExpired, "OperatorResolved"} {
					for _, obs := range answers {
						for _, closed := range []bool{false, true} {
							got := Substatus(prev, next, reason, current, obs, closed)
							if !fits(next, got) {
								t.Errorf("%s/%s -> %s (%q, answer %+v, window closed %v): substatus %s does not fit",
									prev, current, next, reason, obs, closed, got)
							}
						}
					}
				}
			}
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

// fits reports whether sub may stand beside status (none fits every status).
func fits(status swapv1.OrderStatus, sub swapv1.OrderSubstatus) bool {
	return sub == "" || slices.Contains(swapv1.SubstatusStatuses[sub], status)
}
