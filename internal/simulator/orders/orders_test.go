package orders

import (
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/simulator/settlement"
)

func builder(ref string) func(seq, previous int) Order {
	return func(seq, previous int) Order {
		return Order{Provider: "route_A", ClientRef: ref, DepositAddress: fmt.Sprintf("addr-%s-%d", ref, previous), ChannelID: fmt.Sprintf("ch-%d", seq)}
	}
}

func TestOpenIsIdempotentPerRef(t *testing.T) {
	b := NewBook()
	first, created := b.Open("route_A", "ord_1", builder("ord_1"))
	if !created {
		t.Fatal("first Open did not create")
	}
	again, created := b.Open("route_A", "ord_1", builder("ord_1"))
	if created || again.DepositAddress != first.DepositAddress {
		t.Fatalf("second Open created=%v addr=%s; want the first %s", created, again.DepositAddress, first.DepositAddress)
	}
	if _, created := b.Open("route_B", "ord_1", builder("ord_1")); !created {
		t.Fatal("another provider shares the reference index")
	}
	if _, created := b.Open("route_A", "", builder("")); !created {
		t.Fatal("empty ref did not create")
	}
	per, _ := b.Counts()
	if per["route_A"]["ord_1"] != 1 || per["route_B"]["ord_1"] != 1 || len(per["route_A"]) != 1 {
		t.Fatalf("counts = %v", per)
	}
}

func TestForgetAndRecreate(t *testing.T) {
	b := NewBook()
	o, _ := b.Open("route_A", "ord_1", builder("ord_1"))
	if b.Forget("route_B", o.DepositAddress) {
		t.Fatal("route_B forgot route_A's order")
	}
	if !b.Forget("route_A", o.DepositAddress) {
		t.Fatal("Forget of a known order returned false")
	}
	if _, ok := b.ByAddress("route_A", o.DepositAddress); ok {
		t.Fatal("forgotten order still found by address")
	}
	if _, ok := b.ByChannel("route_A", o.ChannelID); ok {
		t.Fatal("forgotten order still found by channel")
	}
	n, created := b.Open("route_A", "ord_1", builder("ord_1"))
	if !created || n.DepositAddress == o.DepositAddress {
		t.Fatalf("re-open after forget: created=%v addr=%s", created, n.DepositAddress)
	}
	if per, _ := b.Counts(); per["route_A"]["ord_1"] != 2 {
		t.Fatalf("created count = %d; want 2", per["route_A"]["ord_1"])
	}
}

func TestDepositsAndSubmits(t *testing.T) {
	b := NewBook()
	o, _ := b.Open("route_A", "r", builder("r"))
	if _, err := b.AddDeposit("nowhere", settlement.Deposit{Amount: big.NewInt(1)}); err != ErrUnknownAddress {
		t.Fatalf("err = %v", err)
	}
	got, err := b.AddDeposit(o.DepositAddress, settlement.Deposit{Amount: big.NewInt(5), At: time.Now()})
	if err != nil || len(got.Deposits) != 1 {
		t.Fatalf("AddDeposit = %v, %v", got.Deposits, err)
	}
	got.Deposits[0].Amount = big.NewInt(99) // snapshots must not alias the book
	again, _ := b.ByAddress("route_A", o.DepositAddress)
	if len(again.Deposits) != 1 {
		t.Fatal("snapshot aliasing")
	}
	if _, ok := b.SubmitTx("route_A", o.DepositAddress, "0xabc"); !ok {
		t.Fatal("submit to known order failed")
	}
	if _, ok := b.SubmitTx("route_A", "nowhere", "0xabc"); ok {
		t.Fatal("submit to unknown order succeeded")
	}
	if _, subs := b.Counts(); subs["route_A"] != 2 {
		t.Fatalf("submits = %v; want 2 received", subs)
	}
	if !b.ObservePhase(o.DepositAddress, settlement.Swapping) || b.ObservePhase(o.DepositAddress, settlement.Swapping) {
		t.Fatal("ObservePhase should report a change once")
	}
}

func TestForgetThenRestore(t *testing.T) {
	b := NewBook()
	o, _ := b.Open("route_A", "ord_1", builder("ord_1"))
	if b.Restore("route_A", o.DepositAddress) {
		t.Fatal("restored an order that was never forgotten")
	}
	b.Forget("route_A", o.DepositAddress)
	if b.Restore("route_B", o.DepositAddress) {
		t.Fatal("route_B restored route_A's order")
	}
	if !b.Restore("route_A", o.DepositAddress) {
		t.Fatal("Restore of a forgotten order returned false")
	}
	if got, ok := b.ByAddress("route_A", o.DepositAddress); !ok || got.ClientRef != "ord_1" {
		t.Fatalf("restored order not found by address: %+v %v", got, ok)
	}
	if _, ok := b.ByChannel("route_A", o.ChannelID); !ok && o.ChannelID != "" {
		t.Fatal("restored order not found by channel")
	}
	if again, created := b.Open("route_A", "ord_1", builder("ord_1")); created || again.DepositAddress != o.DepositAddress {
		t.Fatalf("re-open after restore: created=%v addr=%s, want the restored %s", created, again.DepositAddress, o.DepositAddress)
	}

	// A reference used for a new order meanwhile is not overwritten.
	b.Forget("route_A", o.DepositAddress)
	b.Open("route_A", "ord_1", builder("ord_1"))
	if b.Restore("route_A", o.DepositAddress) {
		t.Fatal("restore replaced the order created for the same reference since")
	}
}
