package oneclick

import (
	"context"
	"math/big"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
)

func TestAgainstSimulator(t *testing.T) {
	providertest.Suite{
		Provider: swapv1.ProviderRouteA,
		New:      func(cfg provider.Config) (provider.Provider, error) { return New(cfg) },
		Calls: map[string]string{
			"Assets": simulator.CallTokens, "Quote": simulator.CallQuote, "CreateDeposit": simulator.CallQuote,
			"Status": simulator.CallStatus, "SubmitDeposit": simulator.CallSubmit,
		},
		Unlisted:      [2]string{"doge:DOGE", "eth:ETH"},
		Excluded:      [2]string{"tron:USDT", "btc:BTC"},
		SubmitCounted: true,
		ExactOutput:   true,
		// 1Click waits for a top-up, then refunds and says why.
		UnderDeposit: providertest.Want{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "IncompleteDeposit"},
		// 1Click swaps only the full amount: half of it is held, then refunded, never swapped.
		HalfDeposit: providertest.Want{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "IncompleteDeposit"},
		LateDeposit: providertest.Want{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "DepositAfterDeadline"},
	}.Run(t)
}

func TestBearerToken(t *testing.T) {
	opts := simtest.FastOptions()
	opts.RouteAToken = "secret"
	_, url := simtest.Start(t, opts)
	for _, tt := range []struct {
		token string
		ok    bool
	}{{"secret", true}, {"wrong", false}, {"", false}} {
		a, err := New(provider.Config{ID: swapv1.ProviderRouteA, Endpoint: url + "/route_A", Token: tt.token, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.Assets(context.Background())
		if tt.ok != (err == nil) || (!tt.ok && !provider.IsKind(err, provider.KindCredentials)) {
			t.Errorf("token %q: err = %v", tt.token, err)
		}
	}
}

func TestMapStatus(t *testing.T) {
	tests := []struct {
		raw      string
		refunded bool
		want     provider.Outcome
	}{
		{"PENDING_DEPOSIT", false, provider.Outcome{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit, Reason: "AwaitingDeposit"}},
		{"KNOWN_DEPOSIT_TX", false, provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDepositSeen, Reason: "DepositSeen"}},
		// The user must act: top up or wait for the refund.
		{"INCOMPLETE_DEPOSIT", false, provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusIncompleteDeposit, Reason: "IncompleteDeposit"}},
		{"PROCESSING", false, provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSwapping, Reason: "Swapping"}},
		{"SUCCESS", false, provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled, Reason: "Settled"}},
		{"SUCCESS", true, provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialRefund, Reason: "PartiallyRefunded"}},
		{"REFUNDED", true, provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}},
		{"FAILED", false, provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "ProviderFailed"}},
		{"SOMETHING_NEW", false, provider.Outcome{Status: swapv1.OrderUnknown, Reason: "UnrecognizedProviderStatus"}},
		{"", false, provider.Outcome{Status: swapv1.OrderUnknown, Reason: "UnrecognizedProviderStatus"}},
	}
	for _, tt := range tests {
		if got := MapStatus(tt.raw, tt.refunded); got != tt.want {
			t.Errorf("MapStatus(%q, %v) = %+v; want %+v", tt.raw, tt.refunded, got, tt.want)
		}
	}
}

func TestRefine(t *testing.T) {
	tests := []struct {
		msg   string
		kind  provider.Kind
		limit string
		ok    bool
	}{
		{"Amount is too low for bridge, try at least 1000000", provider.KindAmountTooLow, "1000000", true},
		{"Amount is too high for bridge, try at most 5000", provider.KindAmountTooHigh, "5000", true},
		{"No quotes available for this pair", provider.KindUnsupportedPair, "", true},
		{"originAsset or destinationAsset is not supported", provider.KindUnsupportedPair, "", true},
		{"recipient is required", 0, "", false},
	}
	for _, tt := range tests {
		kind, limit, ok := refine(tt.msg)
		if ok != tt.ok || (ok && (kind != tt.kind || limit != tt.limit)) {
			t.Errorf("refine(%q) = %v %q %v", tt.msg, kind, limit, ok)
		}
	}
}

func TestAssetIDAndReason(t *testing.T) {
	tests := []struct{ chain, contract, want string }{
		{"near", "wrap.near", "near:mainnet/nep141:wrap.near"},
		{"eth", "", "eip155:1/slip44:60"},
		{"eth", "0xA0b86991c6218b36c1D19D4a2e9Eb0cE3606eB48", "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"},
		{"sol", "", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"},
	}
	for _, tt := range tests {
		if got, ok := AssetID(tt.chain, tt.contract); !ok || got != tt.want {
			t.Errorf("AssetID(%s, %s) = %q %v; want %q", tt.chain, tt.contract, got, ok, tt.want)
		}
	}
	if _, ok := AssetID("ton", ""); ok {
		t.Error("a chain outside the table mapped")
	}
	for s, want := range map[string]bool{"IncompleteDeposit": true, "deposit too small, refunded": false, "": false} {
		if isReason(s) != want {
			t.Errorf("isReason(%q) = %v", s, !want)
		}
	}
}

// A partner fee goes to 1Click as appFees (recipient, bps of the input): the simulator, like
// 1Click, pays the user that much less, and the candidate shows the fee as type "partner".
func TestAppFeesAgainstSimulator(t *testing.T) {
	sim, url := simtest.Start(t, simtest.FastOptions())
	a, err := New(provider.Config{ID: swapv1.ProviderRouteA, Endpoint: url + "/route_A", Timeout: time.Minute,
		QuoteSigningKey: sim.QuotePublicKey()})
	if err != nil {
		t.Fatal(err)
	}
	eth, _ := market.Lookup("eth:ETH")
	usdc, _ := market.Lookup("eth:USDC")
	req := provider.QuoteRequest{OriginAsset: eth.AssetID(), DestinationAsset: usdc.AssetID(),
		Amount: "1000000000000000000", SwapType: swapv1.ExactInput}
	plain, err := a.Quote(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.AppFee = &provider.AppFee{Bps: 50, Recipient: "acme.near"}
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
