package orders

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

const (
	pending    = swapv1.OrderPending
	processing = swapv1.OrderProcessing
	success    = swapv1.OrderSuccess
	refunded   = swapv1.OrderRefunded
	failed     = swapv1.OrderFailed
	unknown    = swapv1.OrderUnknown
)

func TestCreateFailure(t *testing.T) {
	tests := []struct {
		kind   provider.Kind
		reason string
		want   string
	}{
		{provider.KindAmountTooLow, "", ReasonAmountTooLow},
		{provider.KindAmountTooHigh, "", ReasonAmountTooHigh},
		{provider.KindUnsupportedPair, "", ReasonUnsupportedPair},
		{provider.KindRefused, "", ReasonProviderRefused},
		{provider.KindNotFound, "", ReasonProviderRefused},
		{provider.KindRefused, provider.ReasonSignatureInvalid, provider.ReasonSignatureInvalid},
	}
	for _, tt := range tests {
		got := CreateFailure(&provider.Error{Kind: tt.kind, Reason: tt.reason})
		if got.To != failed || got.Reason != tt.want {
			t.Errorf("CreateFailure(%v) = %+v, want FAILED %s", tt.kind, got, tt.want)
		}
	}
}

func TestObserve(t *testing.T) {
	obs := func(s swapv1.OrderStatus, reason string) provider.Status {
		return provider.Status{Status: s, Reason: reason}
	}
	tests := []struct {
		name    string
		cur     swapv1.OrderStatus
		obs     provider.Status
		expired bool
		want    Change
	}{
		{"same status stays", pending, obs(pending, "AwaitingDeposit"), false, Change{}},
		{"deposit seen", pending, obs(processing, "DepositSeen"), false, Change{processing, "DepositSeen"}},
		{"straight to success", pending, obs(success, "Settled"), false, Change{success, "Settled"}},
		{"processing to success", processing, obs(success, ""), false, Change{success, "Settled"}},
		{"processing to refunded", processing, obs(refunded, "IncompleteDeposit"), false, Change{refunded, "IncompleteDeposit"}},
		{"provider failed", processing, obs(failed, "RoutingFailed"), false, Change{failed, "RoutingFailed"}},
		{"never backwards", processing, obs(pending, ""), false, Change{}},
		{"never backwards even expired", processing, obs(pending, ""), true, Change{}},
		{"expired without deposit", pending, obs(pending, ""), true, Change{failed, ReasonDepositExpired}},
		{"expired but deposit seen", pending, obs(processing, "DepositSeen"), true, Change{processing, "DepositSeen"}},
		{"expired from unknown", unknown, obs(pending, ""), true, Change{failed, ReasonDepositExpired}},
		{"unknown recovers", unknown, obs(processing, "DepositSeen"), false, Change{processing, "DepositSeen"}},
		{"unknown back to pending", unknown, obs(pending, ""), false, Change{pending, "AwaitingDeposit"}},
		{"provider says unknown", pending, obs(unknown, ""), false, Change{unknown, ReasonProviderStatusUnmapped}},
		{"unmappable status", pending, obs("WEIRD", "x"), false, Change{unknown, ReasonProviderStatusUnmapped}},
		{"terminal success is final", success, obs(refunded, ""), false, Change{}},
		{"terminal failed is final", failed, obs(processing, ""), false, Change{}},
		{"terminal refunded is final", refunded, obs(pending, ""), true, Change{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Observe(tt.cur, tt.obs, tt.expired); got != tt.want {
				t.Errorf("Observe(%s, %+v, %v) = %+v, want %+v", tt.cur, tt.obs, tt.expired, got, tt.want)
			}
		})
	}
}

func TestObserveError(t *testing.T) {
	upstream := &provider.Error{Kind: provider.KindUpstream}
	throttled := &provider.Error{Kind: provider.KindUpstream, Upstream: &provider.Upstream{Status: 429}}
	credentials := &provider.Error{Kind: provider.KindCredentials}
	open := &provider.Error{Kind: provider.KindUnavailable}
	notFound := &provider.Error{Kind: provider.KindNotFound}
	tests := []struct {
		name        string
		cur         swapv1.OrderStatus
		err         *provider.Error
		consecutive int32
		want        Change
	}{
		{"outage never flips", processing, upstream, 500, Change{}},
		{"throttling never flips", pending, throttled, 500, Change{}},
		{"rejected credentials never flip", processing, credentials, 500, Change{}},
		{"open breaker never flips", pending, open, 500, Change{}},
		{"one 404 does not flip", processing, notFound, 1, Change{}},
		{"404 below threshold waits", pending, notFound, 4, Change{}},
		{"404 threshold reached", processing, notFound, 5, Change{unknown, ReasonOrderNotFound}},
		{"404 never fails a pending order", pending, notFound, 50, Change{unknown, ReasonOrderNotFound}},
		{"already unknown stays", unknown, notFound, 9, Change{}},
		{"terminal is final", success, notFound, 9, Change{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ObserveError(tt.cur, tt.err, tt.consecutive, 5); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestApplyRecordsHistory(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	var st swapv1.SwapOrderStatus

	tr, ok := Apply(&st, Change{pending, ReasonDepositAddressIssued}, at)
	if !ok || tr.Seq != 1 || tr.PreviousStatus != "" || tr.Status != pending || !tr.At.Equal(at.Time) {
		t.Fatalf("first transition = %+v, %v", tr, ok)
	}
	tr, ok = Apply(&st, Change{processing, "DepositSeen"}, at)
	if !ok || tr.Seq != 2 || tr.PreviousStatus != pending {
		t.Fatalf("second transition = %+v, %v", tr, ok)
	}
	if st.Status != processing || st.StatusReason != "DepositSeen" || st.LastSeq != 2 || len(st.History) != 2 {
		t.Fatalf("status after two transitions: %+v", st)
	}
	if _, ok := Apply(&st, Change{}, at); ok || st.LastSeq != 2 {
		t.Fatalf("zero change recorded something: %+v", st)
	}
	if _, ok := Apply(&st, Change{success, "Settled"}, at); !ok {
		t.Fatal("success not applied")
	}
	if _, ok := Apply(&st, Change{refunded, "x"}, at); ok || st.Status != success || st.LastSeq != 3 {
		t.Fatalf("terminal status moved: %+v", st)
	}
}

// A hold shows the partner a PENDING order before its address is requested; the order
// still needs the address, and the address's entry follows from PENDING.
func TestRecordHeldThenApply(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	st := swapv1.SwapOrderStatus{Substatus: swapv1.SubstatusHeldForReview}

	held, ok := RecordHeld(&st, "HeldForReview", at)
	want := swapv1.StatusTransition{Seq: 1, Status: pending, Reason: "HeldForReview",
		Substatus: swapv1.SubstatusHeldForReview, At: swapv1.NewPreciseTime(at.Time)}
	if !ok || held != want {
		t.Fatalf("held entry = %+v, %v; want %+v", held, ok, want)
	}
	if st.Status != "" || st.StatusReason != "" || st.LastSeq != 1 {
		t.Fatalf("the hold moved the stored status: %+v", st)
	}
	if _, ok := RecordHeld(&st, "HeldForReview", at); ok || st.LastSeq != 1 {
		t.Fatalf("the hold was recorded twice: %+v", st)
	}

	st.Substatus = swapv1.SubstatusAwaitingDeposit
	issued, ok := Apply(&st, Change{pending, ReasonDepositAddressIssued}, at)
	if !ok || issued.Seq != 2 || issued.PreviousStatus != pending || issued.Substatus != swapv1.SubstatusAwaitingDeposit {
		t.Fatalf("address entry after the hold = %+v, %v", issued, ok)
	}
	if _, ok := RecordHeld(&st, "HeldForReview", at); ok {
		t.Fatal("a hold recorded on an order with a status")
	}
}

func TestApplyBoundsHistory(t *testing.T) {
	var st swapv1.SwapOrderStatus
	at := metav1.Now()
	statuses := []swapv1.OrderStatus{pending, unknown}
	n := swapv1.MaxHistory + 7
	for i := range n {
		if _, ok := Apply(&st, Change{statuses[i%2], fmt.Sprint("R", i)}, at); !ok {
			t.Fatalf("transition %d not applied", i)
		}
	}
	if len(st.History) != swapv1.MaxHistory {
		t.Fatalf("history has %d entries, want %d", len(st.History), swapv1.MaxHistory)
	}
	if st.LastSeq != int64(n) {
		t.Fatalf("lastSeq = %d, want %d", st.LastSeq, n)
	}
	first, last := st.History[0], st.History[len(st.History)-1]
	if first.Seq != int64(n-swapv1.MaxHistory+1) || last.Seq != int64(n) {
		t.Fatalf("history spans seq %d..%d, want %d..%d", first.Seq, last.Seq, n-swapv1.MaxHistory+1, n)
	}
	for i := 1; i < len(st.History); i++ {
		if st.History[i].Seq != st.History[i-1].Seq+1 {
			t.Fatalf("gap in history at %d: %d after %d", i, st.History[i].Seq, st.History[i-1].Seq)
		}
	}
}

func TestUnnotified(t *testing.T) {
	var st swapv1.SwapOrderStatus
	at := metav1.Now()
	Apply(&st, Change{pending, "a"}, at)
	Apply(&st, Change{processing, "b"}, at)
	Apply(&st, Change{success, "c"}, at)
	tests := []struct {
		notified int64
		want     []int64
	}{
		{0, []int64{1, 2, 3}},
		{1, []int64{2, 3}},
		{3, nil},
	}
	for _, tt := range tests {
		st.NotifiedSeq = tt.notified
		var got []int64
		for _, tr := range Unnotified(&st) {
			got = append(got, tr.Seq)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("notified %d: unnotified seqs %v, want %v", tt.notified, got, tt.want)
		}
	}
}

func TestTerminalAt(t *testing.T) {
	t1 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t2 := metav1.NewTime(t1.Add(time.Hour))
	var st swapv1.SwapOrderStatus
	Apply(&st, Change{pending, "a"}, t1)
	if _, ok := TerminalAt(&st); ok {
		t.Fatal("pending order has a terminal time")
	}
	Apply(&st, Change{refunded, "b"}, t2)
	if at, ok := TerminalAt(&st); !ok || !at.Equal(&t2) {
		t.Fatalf("TerminalAt = %v, %v; want %v", at, ok, t2)
	}
}
