package channel

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
)

// The fixtures in testdata are answers written from the SDK's schemas (NetworkInfo, Quote,
// DepositChannelInfo, SwapStatusResponseV2) with every field present, fractional numbers
// where the backend sends them, and fields this adapter has never heard of.

const (
	ethID     = "eip155:1/slip44:60"
	arbUSDCID = "eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831"
	sender    = "0x1111111111111111111111111111111111111111"
	recipient = "0x2222222222222222222222222222222222222222"
)

func newBackend(t *testing.T, answers map[string]providertest.Answer) (*providertest.Backend, *Adapter) {
	b := providertest.NewBackend(t, answers)
	a, err := New(provider.Config{ID: swapv1.ProviderRouteB, Endpoint: b.URL, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return b, a
}

var healthy = map[string]providertest.Answer{
	"GET /api/networkInfo":             {Status: 200, File: "networkInfo.json"},
	"GET /v2/quote":                    {Status: 200, File: "quote.json"},
	"POST /api/openSwapDepositChannel": {Status: 201, File: "open.json"},
}

func TestFixtureAssets(t *testing.T) {
	_, a := newBackend(t, healthy)
	assets, err := a.Assets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, as := range assets {
		got[as.ProviderToken] = as.AssetID
	}
	// Sol: channel creation disabled; HubDot: no chain in the table; Zec: unknown id.
	want := map[string]string{
		"Usdc": "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "Eth": ethID, "ArbUsdc": arbUSDCID,
		"Btc": "bip122:000000000019d6689c085ae165831e93/slip44:0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("assets %v; want %v", got, want)
	}
}

func quoteRequest(st swapv1.SwapType) provider.QuoteRequest {
	return provider.QuoteRequest{OriginAsset: ethID, DestinationAsset: arbUSDCID, Amount: "1000000000000000000", SwapType: st, Sender: sender, Recipient: recipient}
}

func TestFixtureQuote(t *testing.T) {
	b, a := newBackend(t, healthy)
	q, err := a.Quote(context.Background(), quoteRequest(swapv1.ExactInput))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := b.Got("GET /v2/quote")
	wantQuery := map[string][]string{
		"amount": {"1000000000000000000"}, "srcChain": {"Ethereum"}, "srcAsset": {"ETH"}, "destChain": {"Arbitrum"}, "destAsset": {"USDC"},
		"isVaultSwap": {"false"}, "isOnChain": {"false"}, "dcaV2Enabled": {"false"},
	}
	if !reflect.DeepEqual(map[string][]string(r.Query), wantQuery) {
		t.Fatalf("query %v; want %v", r.Query, wantQuery)
	}
	if r.Header.Get("Authorization") != "" {
		t.Fatal("the Chainflip backend takes no credentials")
	}
	// REGULAR is chosen over DCA; 42.7 s rounds up; no requested slippage takes the
	// recommended 0.75 %; only fees in listed assets are shown.
	if q.AmountIn != "1000000000000000000" || q.AmountOut != "2487610000" || q.MinAmountOut != "2468952925" || q.EstimatedTimeSeconds != 43 {
		t.Fatalf("quote %+v", q)
	}
	wantFees := []swapv1.Fee{
		{Type: "INGRESS", Asset: ethID, Amount: "120000000000000"},
		{Type: "NETWORK", Asset: "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", Amount: "2491250"},
		{Type: "EGRESS", Asset: arbUSDCID, Amount: "23000"},
	}
	if !reflect.DeepEqual(q.Fees, wantFees) {
		t.Fatalf("fees %+v; want %+v", q.Fees, wantFees)
	}
}

func TestFixtureExactOutputIsRefusedWithoutACall(t *testing.T) {
	b, a := newBackend(t, healthy)
	_, err := a.Quote(context.Background(), quoteRequest(swapv1.ExactOutput))
	if !provider.IsKind(err, provider.KindUnsupportedPair) || provider.IsRetryable(err) {
		t.Fatalf("err = %v; want a non-retryable unsupported pair", err)
	}
	_, err = a.CreateDeposit(context.Background(), provider.DepositRequest{OrderID: "ord_x", QuoteRequest: quoteRequest(swapv1.ExactOutput)})
	if !provider.IsKind(err, provider.KindUnsupportedPair) {
		t.Fatalf("create err = %v", err)
	}
	if b.Calls() != 0 {
		t.Fatalf("%d calls made", b.Calls())
	}
}

func TestFixtureOpenChannel(t *testing.T) {
	b, a := newBackend(t, healthy)
	d, err := a.CreateDeposit(context.Background(), provider.DepositRequest{OrderID: "ord_x", QuoteRequest: quoteRequest(swapv1.ExactInput)})
	if err != nil {
		t.Fatal(err)
	}
	open, _ := b.Got("POST /api/openSwapDepositChannel")
	var body map[string]any
	if err := json.Unmarshal(open.Body, &body); err != nil {
		t.Fatal(err)
	}
	// minPriceX128 of at least 2468.952925 USDC for 1 ETH, worked by hand:
	// ⌈2468952925 · 2^128 / 10^18⌉.
	want := map[string]any{
		"srcAsset": map[string]any{"chain": "Ethereum", "asset": "ETH"}, "destAsset": map[string]any{"chain": "Arbitrum", "asset": "USDC"},
		"destAddress": recipient, "amount": "1000000000000000000", "srcAddress": sender,
		"fillOrKillParams": map[string]any{
			"retryDurationBlocks": 50.0, "refundAddress": sender, "minPriceX128": "840141145135374263112904367390", "maxOraclePriceSlippage": 30.0,
		},
		"quote": map[string]any{
			"intermediateAmount": "2491250000", "egressAmount": "2487610000", "estimatedPrice": "2487.61",
			"recommendedSlippageTolerancePercent": 0.75, "recommendedLivePriceSlippageTolerancePercent": 0.3,
		},
		"takeCommission": false,
	}
	if !reflect.DeepEqual(body, want) {
		t.Fatalf("open body\n%v\nwant\n%v", body, want)
	}
	if d.DepositAddress != "0x7e1f4c6bbcd0a5a3e5c8b6e1f0a4c3d2b1a09876" || d.ProviderRef != "8137226-Ethereum-4917" ||
		!d.Deadline.Equal(time.UnixMilli(1767312000000)) || d.Quote.MinAmountOut != "2468952925" {
		t.Fatalf("deposit %+v", d)
	}
}

// The partner accepted at least 2480 USDC; the fresh quote's floor (2468.952925) is lower, so
// the channel's floor is what the partner accepted: ⌈2480000000 · 2^128 / 10^18⌉.
func TestFixtureAcceptedMinimumRaisesTheFloor(t *testing.T) {
	b, a := newBackend(t, healthy)
	req := provider.DepositRequest{OrderID: "ord_x", MinAmountOut: "2480000000", QuoteRequest: quoteRequest(swapv1.ExactInput)}
	if _, err := a.CreateDeposit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	open, _ := b.Got("POST /api/openSwapDepositChannel")
	var body struct {
		FillOrKillParams struct {
			MinPriceX128 string `json:"minPriceX128"`
		} `json:"fillOrKillParams"`
	}
	_ = json.Unmarshal(open.Body, &body)
	if body.FillOrKillParams.MinPriceX128 != "843900269963927389389169026431" {
		t.Fatalf("minPriceX128 %s", body.FillOrKillParams.MinPriceX128)
	}
}

func TestFixtureDCAOnlyOpensADCAChannel(t *testing.T) {
	answers := map[string]providertest.Answer{
		"GET /api/networkInfo": healthy["GET /api/networkInfo"],
		"GET /v2/quote": {Status: 200, Body: `[{"type":"DCA","srcAsset":{"chain":"Ethereum","asset":"ETH"},"destAsset":{"chain":"Arbitrum","asset":"USDC"},
			"depositAmount":"1000000000000000000","egressAmount":"2489000000","includedFees":[],"estimatedDurationSeconds":402.7,
			"estimatedPrice":"2489","recommendedSlippageTolerancePercent":1,"recommendedRetryDurationMinutes":2.5,
			"dcaParams":{"numberOfChunks":30,"chunkIntervalBlocks":2}}]`},
		"POST /api/openSwapDepositChannel": healthy["POST /api/openSwapDepositChannel"],
	}
	b, a := newBackend(t, answers)
	if _, err := a.CreateDeposit(context.Background(), provider.DepositRequest{OrderID: "ord_x", QuoteRequest: quoteRequest(swapv1.ExactInput)}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		DcaParams        map[string]float64 `json:"dcaParams"`
		FillOrKillParams struct {
			RetryDurationBlocks    float64 `json:"retryDurationBlocks"`
			MaxOraclePriceSlippage *int64  `json:"maxOraclePriceSlippage"`
		} `json:"fillOrKillParams"`
	}
	open, _ := b.Got("POST /api/openSwapDepositChannel")
	_ = json.Unmarshal(open.Body, &body)
	if body.DcaParams["numberOfChunks"] != 30 || body.DcaParams["chunkIntervalBlocks"] != 2 || body.FillOrKillParams.RetryDurationBlocks != 25 ||
		body.FillOrKillParams.MaxOraclePriceSlippage != nil {
		t.Fatalf("open body %s", open.Body)
	}
}

func TestFixtureStatus(t *testing.T) {
	tests := []struct {
		file string
		want provider.Status
	}{
		{"status-partial.json", provider.Status{
			Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialRefund, Raw: "COMPLETED", Reason: "PartiallyRefunded",
			InTxHashes:      []string{"0xdeposit0000000000000000000000000000000000000000000000000000001"},
			OutTxHashes:     []string{"0xout00000000000000000000000000000000000000000000000000000000001", "0xrefund000000000000000000000000000000000000000000000000000000001"},
			DepositedAmount: "1000000000000000000", AmountIn: "750000000000000000", AmountOut: "1865677000", RefundedAmount: "249880000000000000",
		}},
		{"status-completed.json", provider.Status{
			Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled, Raw: "COMPLETED", Reason: "Settled",
			InTxHashes:      []string{"0xdeposit0000000000000000000000000000000000000000000000000000001"},
			OutTxHashes:     []string{"0xout00000000000000000000000000000000000000000000000000000000001"},
			DepositedAmount: "1000000000000000000", AmountIn: "1000000000000000000", AmountOut: "2487610000",
		}},
		// Half the channel's expected amount arrived and was swapped.
		{"status-short-deposit.json", provider.Status{
			Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialDeposit, Raw: "COMPLETED", Reason: "PartialDeposit",
			InTxHashes:      []string{"0xdeposit0000000000000000000000000000000000000000000000000000001"},
			OutTxHashes:     []string{"0xout00000000000000000000000000000000000000000000000000000000001"},
			DepositedAmount: "500000000000000000", AmountIn: "500000000000000000", AmountOut: "1243793500",
		}},
		// A DCA chunk retried after missing the price floor: still swapping.
		{"status-swapping-dca.json", provider.Status{
			Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSwapping, Raw: "SWAPPING", Reason: "Swapping",
			InTxHashes:      []string{"0xdeposit0000000000000000000000000000000000000000000000000000001"},
			DepositedAmount: "1000000000000000000",
		}},
		{"status-rejected.json", provider.Status{
			Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Raw: "FAILED", Reason: "DepositRejected",
			InTxHashes:      []string{"0xdeposit0000000000000000000000000000000000000000000000000000002"},
			OutTxHashes:     []string{"0xrefund000000000000000000000000000000000000000000000000000000002"},
			DepositedAmount: "1000000000000000000", RefundedAmount: "999400000000000000",
		}},
		{"status-waiting-expired.json", provider.Status{
			Status: swapv1.OrderPending, Substatus: swapv1.SubstatusDepositWindowClosed, Raw: "WAITING", Reason: "DepositChannelExpired",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, a := newBackend(t, map[string]providertest.Answer{"GET /v2/swaps/8137226-Ethereum-4917": {Status: 200, File: tt.file}})
			st, err := a.Status(context.Background(), provider.OrderRef{ProviderRef: "8137226-Ethereum-4917"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(st, tt.want) {
				t.Fatalf("status\n%+v\nwant\n%+v", st, tt.want)
			}
			if b.Calls() != 1 {
				t.Fatalf("%d calls", b.Calls())
			}
		})
	}
}

func TestFixtureErrorBodies(t *testing.T) {
	tests := []struct {
		status int
		body   string
		kind   provider.Kind
		limit  string
	}{
		{400, `{"message":"expected amount is below minimum swap amount (5000000000000000)"}`, provider.KindAmountTooLow, "5000000000000000"},
		{400, `{"message":"expected amount is above maximum swap amount (100000000000000000000)"}`, provider.KindAmountTooHigh, "100000000000000000000"},
		{400, `{"message":"Requested assets cannot be swapped"}`, provider.KindUnsupportedPair, ""},
		{400, `{"message":"insufficient liquidity for the requested amount"}`, provider.KindAmountTooHigh, ""},
		{400, `{"message":"invalid request"}`, provider.KindRefused, ""},
		{503, `{"message":"Quoting is currently unavailable due to maintenance"}`, provider.KindUpstream, ""},
	}
	for _, tt := range tests {
		_, a := newBackend(t, map[string]providertest.Answer{
			"GET /api/networkInfo": healthy["GET /api/networkInfo"],
			"GET /v2/quote":        {Status: tt.status, Body: tt.body},
		})
		_, err := a.Quote(context.Background(), quoteRequest(swapv1.ExactInput))
		pe := provider.AsError(err)
		if err == nil || pe.Kind != tt.kind || pe.Limit != tt.limit || pe.Upstream == nil || pe.Upstream.Path != "GET /v2/quote" {
			t.Errorf("%s: err %v (limit %q); want %v %q", tt.body, err, pe.Limit, tt.kind, tt.limit)
		}
	}
}
