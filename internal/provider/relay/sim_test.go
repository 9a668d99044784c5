package relay

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
	"github.com/swaprouter/swaprouter/internal/testing/testclock"
)

func simAdapter(t *testing.T, url, key string) *Adapter {
	t.Helper()
	a, err := New(provider.Config{ID: simulator.Relay, Endpoint: url + "/relay", Token: key, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func usdcOrder(recipient string) provider.DepositRequest {
	usdcEth, _ := market.Lookup("eth:USDC")
	usdcArb, _ := market.Lookup("arb:USDC")
	return provider.DepositRequest{OrderID: "ord_" + recipient[len(recipient)-4:], QuoteRequest: provider.QuoteRequest{
		OriginAsset: usdcEth.AssetID(), DestinationAsset: usdcArb.AssetID(), Amount: "100000000", SwapType: swapv1.ExactInput,
		Sender: from, Recipient: recipient, RefundTo: from,
	}}
}

// The deposit-address decision against the simulated Relay: it serves the same open address
// to every quote of a route, so two orders could not be told apart there; the adapter's
// strict addresses give each order its own address and request, a deposit moves only its own
// order, and a second deposit to a settled address does not change its outcome.
func TestOneOrderOneDepositOneOutcome(t *testing.T) {
	sim, url := simtest.Start(t, simtest.FastOptions())
	base := url + "/relay"
	openQuote := func() quoted {
		var q quoted
		_ = json.Unmarshal(providertest.Fetch(t, "POST", base+"/quote/v2", relayQuote(func(q map[string]any) { q["useDepositAddress"] = true })), &q)
		return q
	}
	first, second := openQuote().Steps[0], openQuote().Steps[0]
	if first.DepositAddress != second.DepositAddress || first.RequestID == second.RequestID {
		t.Fatalf("open quotes of one route: %+v and %+v; want one address under two requests", first, second)
	}
	var lookup depositAddressResponse
	_ = json.Unmarshal(providertest.Fetch(t, "GET", base+"/deposit-addresses/v1?address="+second.DepositAddress, nil), &lookup)
	if Bound(lookup, "evm", second.DepositAddress, second.RequestID) {
		t.Fatalf("lookup %+v binds the reused open address to the second request", lookup)
	}

	a := simAdapter(t, url, "")
	ctx := context.Background()
	recipient := "0x2222222222222222222222222222222222222222"
	one, err := a.CreateDeposit(ctx, usdcOrder(recipient))
	if err != nil {
		t.Fatal(err)
	}
	two, err := a.CreateDeposit(ctx, usdcOrder(recipient))
	if err != nil {
		t.Fatal(err)
	}
	if one.DepositAddress == two.DepositAddress || one.ProviderRef == two.ProviderRef {
		t.Fatalf("two orders of one route share %s / %s", one.DepositAddress, one.ProviderRef)
	}
	refOf := func(d provider.Deposit) provider.OrderRef {
		return provider.OrderRef{DepositAddress: d.DepositAddress, ProviderRef: d.ProviderRef}
	}
	tx, err := sim.Deposit(one.DepositAddress, one.Quote.AmountIn)
	if err != nil {
		t.Fatal(err)
	}
	var st provider.Status
	simtest.Eventually(t, "the paid order settled", func() bool {
		st, err = a.Status(ctx, refOf(one))
		return err == nil && st.Status == swapv1.OrderSuccess
	})
	if other, err := a.Status(ctx, refOf(two)); err != nil || other.Status != swapv1.OrderPending || len(other.InTxHashes) != 0 {
		t.Fatalf("the unpaid order: %+v, %v; want PENDING without a deposit", other, err)
	}
	if _, err := sim.Deposit(one.DepositAddress, one.Quote.AmountIn); err != nil {
		t.Fatal(err)
	}
	again, err := a.Status(ctx, refOf(one))
	if err != nil || again.Status != swapv1.OrderSuccess || len(again.InTxHashes) != 1 || again.InTxHashes[0] != tx {
		t.Fatalf("after a second deposit: %+v, %v; want the same SUCCESS of the first deposit only", again, err)
	}
}

// A fill Relay reports delayed is PROCESSING with DELAYED, then goes on to SUCCESS.
func TestDelayedFill(t *testing.T) {
	opts := simtest.FastOptions()
	clock := &testclock.Clock{}
	opts.Now = clock.Now
	sim, url := simtest.Start(t, opts)
	a := simAdapter(t, url, "")
	ctx := context.Background()
	d, err := a.CreateDeposit(ctx, usdcOrder("0x3333333333333333333333333333333333333333"))
	if err != nil {
		t.Fatal(err)
	}
	ref := provider.OrderRef{DepositAddress: d.DepositAddress, ProviderRef: d.ProviderRef}
	t0 := clock.Now()
	clock.HoldAt(t0)
	if !sim.SetDelayed(simulator.Relay, d.DepositAddress, 3) {
		t.Fatal("unknown address")
	}
	if _, err := sim.Deposit(d.DepositAddress, d.Quote.AmountIn); err != nil {
		t.Fatal(err)
	}
	clock.HoldAt(t0.Add(3 * opts.StepDelay))
	st, err := a.Status(ctx, ref)
	if err != nil || st.Status != swapv1.OrderProcessing || st.Substatus != swapv1.SubstatusDelayed || st.Raw != "delayed" || st.Reason != "FillDelayed" {
		t.Fatalf("in the stall: %+v, %v; want PROCESSING DELAYED", st, err)
	}
	clock.Release()
	simtest.Eventually(t, "SUCCESS after the delay", func() bool {
		st, err = a.Status(ctx, ref)
		return err == nil && st.Status.IsTerminal()
	})
	if st.Status != swapv1.OrderSuccess || st.Substatus != swapv1.SubstatusSettled {
		t.Fatalf("after the delay: %+v", st)
	}
}

// A partner fee with an EVM recipient goes to Relay as appFees: the simulator, like Relay,
// pays that much less, and the candidate shows Relay's app fee as type "partner".
func TestAppFeesAgainstSimulator(t *testing.T) {
	_, url := simtest.Start(t, simtest.FastOptions())
	a := simAdapter(t, url, "")
	eth, _ := market.Lookup("eth:ETH")
	usdc, _ := market.Lookup("eth:USDC")
	req := provider.QuoteRequest{OriginAsset: eth.AssetID(), DestinationAsset: usdc.AssetID(), Amount: "1000000000000000000", SwapType: swapv1.ExactInput}
	plain, err := a.Quote(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.AppFee = &provider.AppFee{Bps: 50, Recipient: "0x4444444444444444444444444444444444444444"}
	withFee, err := a.Quote(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := swapv1.Fee{Type: provider.FeeTypePartner, Asset: eth.AssetID(), Amount: "5000000000000000"}
	if len(withFee.Fees) == 0 || withFee.Fees[len(withFee.Fees)-1] != want {
		t.Errorf("fees %+v, want the partner fee %+v", withFee.Fees, want)
	}
	p, _ := new(big.Int).SetString(plain.AmountOut, 10)
	f, _ := new(big.Int).SetString(withFee.AmountOut, 10)
	// 50 bps of 3000 USDC is 15 USDC less.
	if diff := new(big.Int).Sub(p, f); diff.Cmp(big.NewInt(14_000_000)) < 0 || diff.Cmp(big.NewInt(16_000_000)) > 0 {
		t.Errorf("amountOut %s without the fee, %s with 50 bps", plain.AmountOut, withFee.AmountOut)
	}
}

// The API key: optional for Relay's public calls, a wrong one refused, and required by the
// deposit-address lookup every creation makes.
func TestAPIKey(t *testing.T) {
	opts := simtest.FastOptions()
	opts.RelayAPIKey = "secret"
	_, url := simtest.Start(t, opts)
	for _, tt := range []struct {
		key            string
		assets, create bool
	}{{"secret", true, true}, {"wrong", false, false}, {"", true, false}} {
		a := simAdapter(t, url, tt.key)
		_, err := a.Assets(context.Background())
		if tt.assets != (err == nil) || (err != nil && !provider.IsKind(err, provider.KindCredentials)) {
			t.Errorf("key %q: assets: %v", tt.key, err)
		}
		_, err = a.CreateDeposit(context.Background(), usdcOrder("0x5555555555555555555555555555555555555555"))
		if tt.create != (err == nil) || (err != nil && !provider.IsKind(err, provider.KindCredentials)) {
			t.Errorf("key %q: create: %v", tt.key, err)
		}
	}
}

// The calls after the first of CreateDeposit (the address lookup) and SubmitDeposit (the
// deposit index) fail as every call does: retryable, attributed, with the call named.
func TestLaterCallsFailAsTheFirst(t *testing.T) {
	sim, url := simtest.Start(t, simtest.FastOptions())
	a := simAdapter(t, url, "")
	ctx := context.Background()
	d, err := a.CreateDeposit(ctx, usdcOrder("0x6666666666666666666666666666666666666666"))
	if err != nil {
		t.Fatal(err)
	}
	for call, do := range map[string]func() error{
		simulator.CallDepositAddress: func() error {
			_, err := a.CreateDeposit(ctx, usdcOrder("0x7777777777777777777777777777777777777777"))
			return err
		},
		simulator.CallIndex: func() error {
			return a.SubmitDeposit(ctx, provider.OrderRef{DepositAddress: d.DepositAddress, ProviderRef: d.ProviderRef}, swapv1.DepositHint{TxHash: "0xabc"})
		},
	} {
		sim.SetFault(simulator.Relay, call, simulator.Fault{ErrorRate: 1, Status: 503})
		pe := provider.AsError(do())
		if pe == nil || pe.Kind != provider.KindUpstream || !pe.Retryable() || pe.Provider != simulator.Relay || pe.Upstream == nil || pe.Upstream.Status != 503 {
			t.Errorf("%s faulted: %+v; want a retryable upstream error of relay with status 503", call, pe)
		}
		sim.ClearFaults()
		if err := do(); err != nil {
			t.Errorf("%s after ClearFaults: %v", call, err)
		}
	}
}
