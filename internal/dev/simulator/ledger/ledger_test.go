package ledger

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/settlement"
)

func builder(recipient string) func(seq int) Order {
	return func(seq int) Order {
		return Order{Provider: "route_A", Recipient: recipient, DepositAddress: fmt.Sprintf("addr-%d", seq), ChannelID: fmt.Sprintf("ch-%d", seq)}
	}
}

func TestOpenIsNeverIdempotent(t *testing.T) {
	b := NewBook()
	first := b.Open("route_A", builder("alice"))
	again := b.Open("route_A", builder("alice"))
	if again.DepositAddress == first.DepositAddress {
		t.Fatalf("a repeated open returned the same address %s; real providers open a new one", first.DepositAddress)
	}
	b.Open("route_B", builder("alice"))
	b.Open("route_A", builder("bob"))
	per, _ := b.Counts()
	if per["route_A"]["alice"] != 2 || per["route_B"]["alice"] != 1 || per["route_A"]["bob"] != 1 {
		t.Fatalf("counts per recipient = %v", per)
	}
}

func TestForget(t *testing.T) {
	b := NewBook()
	o := b.Open("route_A", builder("alice"))
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
}

func TestDepositsAndSubmits(t *testing.T) {
	b := NewBook()
	o := b.Open("route_A", builder("r"))
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
	o := b.Open("route_A", builder("alice"))
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
	if got, ok := b.ByAddress("route_A", o.DepositAddress); !ok || got.Recipient != "alice" {
		t.Fatalf("restored order not found by address: %+v %v", got, ok)
	}
	if _, ok := b.ByChannel("route_A", o.ChannelID); !ok {
		t.Fatal("restored order not found by channel")
	}
}

// A persisted book comes back whole: orders with their deposits, forgotten ones, the counts
// and the sequence (so new addresses never repeat one of the earlier run).
func TestOpenBookRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	b, err := OpenBook(path, func(err error) { t.Error(err) })
	if err != nil {
		t.Fatal(err)
	}
	kept := b.Open("route_A", builder("alice"))
	lost := b.Open("route_A", builder("bob"))
	if _, err := b.AddDeposit(kept.DepositAddress, settlement.Deposit{Amount: big.NewInt(5), TxHash: "0x1", At: time.Unix(100, 0).UTC()}); err != nil {
		t.Fatal(err)
	}
	b.SubmitTx("route_A", kept.DepositAddress, "0x1")
	b.Forget("route_A", lost.DepositAddress)

	again, err := OpenBook(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := again.ByChannel("route_A", kept.ChannelID)
	if !ok || len(o.Deposits) != 1 || o.Deposits[0].Amount.Cmp(big.NewInt(5)) != 0 || len(o.SubmittedTxHashes) != 1 {
		t.Fatalf("reopened order: %+v, %v", o, ok)
	}
	if !again.Restore("route_A", lost.DepositAddress) {
		t.Error("the forgotten order was not kept")
	}
	if next := again.Open("route_A", builder("carol")); next.DepositAddress != "addr-3" {
		t.Errorf("sequence restarted: %s", next.DepositAddress)
	}
	per, submits := again.Counts()
	if per["route_A"]["alice"] != 1 || per["route_A"]["bob"] != 1 || submits["route_A"] != 1 || again.Deposits() != 1 {
		t.Errorf("counts %v %v, deposits %d", per, submits, again.Deposits())
	}
}

// A state file that cannot be read is an error, never a silently empty provider.
func TestOpenBookRefusesCorruptState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBook(path, nil); err == nil {
		t.Fatal("a corrupt state file opened")
	}
}

// A further reference (Relay's later request for an open address) finds the order, goes with
// it when it is forgotten and restored, and survives a restart; the delay of its swap too.
func TestRefsAndDelay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	b, err := OpenBook(path, func(err error) { t.Error(err) })
	if err != nil {
		t.Fatal(err)
	}
	o := b.Open("relay", func(seq int) Order {
		o := builder("alice")(seq)
		o.Provider = "relay"
		return o
	})
	if b.AddRef("route_A", o.DepositAddress, "req-2") || b.AddRef("relay", "nowhere", "req-2") {
		t.Fatal("a reference was added to another provider's or an unknown order")
	}
	if !b.AddRef("relay", o.DepositAddress, "req-2") || !b.SetDelaySteps("relay", o.DepositAddress, 3) {
		t.Fatal("AddRef or SetDelaySteps of a known order returned false")
	}
	if got, ok := b.ByChannel("relay", "req-2"); !ok || got.DepositAddress != o.DepositAddress {
		t.Fatalf("by the later reference: %+v %v", got, ok)
	}
	b.Forget("relay", o.DepositAddress)
	if _, ok := b.ByChannel("relay", "req-2"); ok {
		t.Fatal("a forgotten order is still found by its later reference")
	}
	b.Restore("relay", o.DepositAddress)
	again, err := OpenBook(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{o.ChannelID, "req-2"} {
		if got, ok := again.ByChannel("relay", ref); !ok || got.DepositAddress != o.DepositAddress || got.Terms.DelaySteps != 3 {
			t.Errorf("after a restart, by %s: %+v %v", ref, got, ok)
		}
	}
}
