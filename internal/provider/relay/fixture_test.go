package relay

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

// The fixtures in testdata are answers written from the OpenAPI types of Relay's SDK
// (@relayprotocol/relay-sdk 7.0.3): /chains, /currencies/v2, /quote/v2, /deposit-addresses/v1
// and /intents/status/v3, with the fields the types name, values as Relay sends them (mixed-
// case EVM addresses, a fractional time estimate) and fields this adapter has never heard of.

const (
	ethID     = "eip155:1/slip44:60"
	usdcEthID = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
	solID     = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	apiKey    = "relay-key"
	from      = "0x1111111111111111111111111111111111111111"
	solDst    = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	depo      = "0x5f2a3c4e6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a"
	requestID = "0x7c1f3b9a5e2d4c6b8a0f1e3d5c7b9a1f2e4d6c8b0a1f3e5d7c9b1a3f5e7d9c1b"
)

var assetAnswers = map[string]providertest.Answer{
	"GET /chains":         {Status: 200, File: "chains.json"},
	"POST /currencies/v2": {Status: 200, File: "currencies.json"},
}

// with is assetAnswers and more.
func with(more map[string]providertest.Answer) map[string]providertest.Answer {
	out := map[string]providertest.Answer{}
	for k, v := range assetAnswers {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newFixtureAdapter(t *testing.T, answers map[string]providertest.Answer) (*providertest.Backend, *Adapter) {
	t.Helper()
	b := providertest.NewBackend(t, answers)
	a, err := New(provider.Config{ID: "relay", Endpoint: b.URL, Token: apiKey, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	a.now = func() time.Time { return fixedNow }
	return b, a
}

func body(t *testing.T, b *providertest.Backend, key string) map[string]any {
	t.Helper()
	r, ok := b.Got(key)
	if !ok {
		t.Fatalf("no %s", key)
	}
	if r.Header.Get("x-api-key") != apiKey || r.Header.Get("Authorization") != "" {
		t.Fatalf("%s: x-api-key %q, Authorization %q; want the key as x-api-key only", key, r.Header.Get("x-api-key"), r.Header.Get("Authorization"))
	}
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return m
}

func TestFixtureAssets(t *testing.T) {
	b, a := newFixtureAdapter(t, assetAnswers)
	assets, err := a.Assets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]provider.Asset{}
	for _, as := range assets {
		got[as.AssetID] = as
	}
	// Base cannot be a destination, Bitcoin is disabled, Zora is outside the chain table.
	want := map[string]provider.Asset{
		ethID:     {AssetID: ethID, Chain: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18, ProviderToken: "1:0x0000000000000000000000000000000000000000"},
		usdcEthID: {AssetID: usdcEthID, Chain: "eth", Symbol: "USDC", Name: "USD Coin", Decimals: 6, ProviderToken: "1:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
		// Solana's native address names SOL although the metadata does not say native.
		solID: {AssetID: solID, Chain: "sol", Symbol: "SOL", Name: "Solana", Decimals: 9, ProviderToken: "792703809:11111111111111111111111111111111"},
		"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/spl:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v": {
			AssetID: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/spl:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", Chain: "sol", Symbol: "USDC",
			Name: "USD Coin", Decimals: 6, ProviderToken: "792703809:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("assets\n%+v\nwant\n%+v", got, want)
	}
	sent := body(t, b, "POST /currencies/v2")
	// Only the chains whose currencies can be listed are asked about.
	wantBody := map[string]any{"chainIds": []any{1.0, 792703809.0}, "depositAddressOnly": true, "verified": true, "limit": 100.0}
	if !reflect.DeepEqual(sent, wantBody) {
		t.Fatalf("currencies body %v; want %v", sent, wantBody)
	}
}

func TestFixtureQuoteSendsPlaceholdersAndTheFee(t *testing.T) {
	b, a := newFixtureAdapter(t, with(map[string]providertest.Answer{"POST /quote/v2": {Status: 200, File: "quote.json"}}))
	q, err := a.Quote(context.Background(), provider.QuoteRequest{OriginAsset: ethID, DestinationAsset: solID, Amount: "100000000000000000",
		AppFee: &provider.AppFee{Bps: 25, Recipient: "0x2222222222222222222222222222222222222222"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"user": "0x000000000000000000000000000000000000dEaD", "recipient": "11111111111111111111111111111111",
		"originChainId": 1.0, "originCurrency": "0x0000000000000000000000000000000000000000",
		"destinationChainId": 792703809.0, "destinationCurrency": "11111111111111111111111111111111",
		"amount": "100000000000000000", "tradeType": "EXACT_INPUT",
		"appFees": []any{map[string]any{"recipient": "0x2222222222222222222222222222222222222222", "fee": "25"}},
	}
	if got := body(t, b, "POST /quote/v2"); !reflect.DeepEqual(got, want) {
		t.Fatalf("quote body\n%v\nwant\n%v", got, want)
	}
	// timeEstimate 14.5 rounds up; the minimum is Relay's own; fees in the listed input asset.
	wantQ := provider.Quote{ProviderID: "relay", AmountIn: "100000000000000000", AmountOut: "1991234567", MinAmountOut: "1971322221",
		EstimatedTimeSeconds: 15, Fees: []swapv1.Fee{
			{Type: "relayer", Asset: ethID, Amount: "120000000000000"},
			{Type: provider.FeeTypePartner, Asset: ethID, Amount: "250000000000000"},
		}}
	if !reflect.DeepEqual(q, wantQ) {
		t.Fatalf("quote\n%+v\nwant\n%+v", q, wantQ)
	}
}

// A partner fee whose recipient is not a wallet Relay can credit (a NEAR account) is not
// passed on, and no partner fee is shown.
func TestFixtureQuoteWithoutAnEVMFeeRecipient(t *testing.T) {
	b, a := newFixtureAdapter(t, with(map[string]providertest.Answer{"POST /quote/v2": {Status: 200, File: "quote.json"}}))
	q, err := a.Quote(context.Background(), provider.QuoteRequest{OriginAsset: ethID, DestinationAsset: solID, Amount: "100000000000000000",
		AppFee: &provider.AppFee{Bps: 25, Recipient: "acme.near"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := body(t, b, "POST /quote/v2")["appFees"]; ok {
		t.Fatal("appFees sent to a NEAR account")
	}
	for _, f := range q.Fees {
		if f.Type == provider.FeeTypePartner {
			t.Fatalf("partner fee %+v shown though Relay was not asked for it", f)
		}
	}
}

func TestFixtureCreateDeposit(t *testing.T) {
	b, a := newFixtureAdapter(t, with(map[string]providertest.Answer{
		"POST /quote/v2":            {Status: 200, File: "quote.json"},
		"GET /deposit-addresses/v1": {Status: 200, File: "deposit-address-strict.json"},
	}))
	slippage := int32(100)
	d, err := a.CreateDeposit(context.Background(), provider.DepositRequest{OrderID: "ord_x", QuoteRequest: provider.QuoteRequest{
		OriginAsset: ethID, DestinationAsset: solID, Amount: "100000000000000000", SlippageBps: &slippage, Sender: from, Recipient: solDst,
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"user": from, "recipient": solDst, "refundTo": from,
		"originChainId": 1.0, "originCurrency": "0x0000000000000000000000000000000000000000",
		"destinationChainId": 792703809.0, "destinationCurrency": "11111111111111111111111111111111",
		"amount": "100000000000000000", "tradeType": "EXACT_INPUT", "slippageTolerance": "100",
		"useDepositAddress": true, "strict": true, "ttl": 5400.0,
	}
	if got := body(t, b, "POST /quote/v2"); !reflect.DeepEqual(got, want) {
		t.Fatalf("quote body\n%v\nwant\n%v", got, want)
	}
	if r, _ := b.Got("GET /deposit-addresses/v1"); r.Query.Get("address") != depo || len(r.Query) != 1 {
		t.Fatalf("lookup query %v", r.Query)
	}
	deadline := fixedNow.Add(time.Hour)
	if d.DepositAddress != depo || d.ProviderRef != requestID || d.Raw != "waiting" || !d.Deadline.Equal(deadline) ||
		d.Quote.ExpiresAt == nil || !d.Quote.ExpiresAt.Time.Equal(deadline) || d.Signature != "" || d.DepositMemo != "" {
		t.Fatalf("deposit %+v", d)
	}
}

// The deposit-address decision: an address Relay's lookup does not show strict and created
// for this very request may be holding another order's deposit, so it is refused with its
// own reason, never shown; a lookup that does not know the address yet is retried.
func TestFixtureSharedAddressIsRefused(t *testing.T) {
	strict := func(mod func(m map[string]any)) string {
		var m map[string]any
		raw, _ := json.Marshal(map[string]any{"depositAddress": depo, "type": "strict", "requestId": requestID, "chainId": 1,
			"createdAt": "2026-01-02T03:04:05.123Z", "currency": "0x0000000000000000000000000000000000000000", "refundTo": from})
		_ = json.Unmarshal(raw, &m)
		mod(m)
		out, _ := json.Marshal(m)
		return string(out)
	}
	tests := []struct {
		name   string
		lookup providertest.Answer
		ok     bool
		kind   provider.Kind
		reason string
	}{
		{"an open address of the route", providertest.Answer{Status: 200, File: "deposit-address-open.json"}, false, provider.KindRefused, provider.ReasonDepositAddressShared},
		{"strict but created for another request", providertest.Answer{Status: 200, Body: strict(func(m map[string]any) { m["requestId"] = "0xabc" })},
			false, provider.KindRefused, provider.ReasonDepositAddressShared},
		{"the lookup names another address", providertest.Answer{Status: 200, Body: strict(func(m map[string]any) { m["depositAddress"] = from })},
			false, provider.KindRefused, provider.ReasonDepositAddressShared},
		{"the same address in another case is the same", providertest.Answer{Status: 200, Body: strict(func(m map[string]any) { m["depositAddress"] = "0x5F2A3C4E6B8D0F1A3C5E7B9D1F3A5C7E9B1D3F5A" })}, true, 0, ""},
		{"the lookup does not know it yet", providertest.Answer{Status: 404, Body: `{"message":"Deposit address not found"}`}, false, provider.KindUpstream, ""},
		{"no API key for the lookup", providertest.Answer{Status: 401, Body: `{"message":"Unauthorized"}`}, false, provider.KindCredentials, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, a := newFixtureAdapter(t, with(map[string]providertest.Answer{
				"POST /quote/v2":            {Status: 200, File: "quote.json"},
				"GET /deposit-addresses/v1": tt.lookup,
			}))
			d, err := a.CreateDeposit(context.Background(), provider.DepositRequest{OrderID: "ord_x", QuoteRequest: provider.QuoteRequest{
				OriginAsset: ethID, DestinationAsset: solID, Amount: "100000000000000000", Sender: from, Recipient: solDst,
			}})
			if tt.ok {
				if err != nil || d.DepositAddress != depo {
					t.Fatalf("deposit %+v, %v", d, err)
				}
				return
			}
			pe := provider.AsError(err)
			if err == nil || pe.Kind != tt.kind || pe.Reason != tt.reason || d.DepositAddress != "" {
				t.Fatalf("deposit %+v, err %v (reason %q); want %v %q and no address", d, err, pe.Reason, tt.kind, tt.reason)
			}
			if tt.reason != "" && pe.Retryable() {
				t.Fatal("a shared address must fail the order, not be retried into another shared address")
			}
		})
	}
}

func TestFixtureCreateDepositNeedsRecipientAndRefund(t *testing.T) {
	_, a := newFixtureAdapter(t, nil) // no call may be made
	for _, req := range []provider.QuoteRequest{
		{OriginAsset: ethID, DestinationAsset: solID, Amount: "1", Sender: from},
		{OriginAsset: ethID, DestinationAsset: solID, Amount: "1", Recipient: solDst},
	} {
		if _, err := a.CreateDeposit(context.Background(), provider.DepositRequest{QuoteRequest: req}); !provider.IsKind(err, provider.KindRefused) {
			t.Errorf("%+v: err %v; want a refusal before any call (a placeholder would burn the funds)", req, err)
		}
	}
}

func TestFixtureStatus(t *testing.T) {
	in := []string{"0xaaa0000000000000000000000000000000000000000000000000000000000001"}
	tests := []struct {
		file string
		want provider.Status
	}{
		{"status-waiting.json", provider.Status{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit, Raw: "waiting", Reason: "AwaitingDeposit",
			InTxHashes: []string{}, OutTxHashes: []string{}}},
		{"status-delayed.json", provider.Status{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDelayed, Raw: "delayed", Reason: "FillDelayed",
			InTxHashes: in, OutTxHashes: []string{}}},
		{"status-success.json", provider.Status{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled, Raw: "success", Reason: "Settled",
			InTxHashes: in, OutTxHashes: []string{"4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn"}}},
		// details is Relay's text, not a reason of ours.
		{"status-refund.json", provider.Status{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Raw: "refund", Reason: "Refunded",
			InTxHashes: in, OutTxHashes: []string{"0xbbb0000000000000000000000000000000000000000000000000000000000002"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, a := newFixtureAdapter(t, map[string]providertest.Answer{"GET /intents/status/v3": {Status: 200, File: tt.file}})
			st, err := a.Status(context.Background(), provider.OrderRef{DepositAddress: depo, ProviderRef: requestID})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(st, tt.want) {
				t.Fatalf("status\n%+v\nwant\n%+v", st, tt.want)
			}
			if r, _ := b.Got("GET /intents/status/v3"); r.Query.Get("requestId") != requestID || len(r.Query) != 1 {
				t.Fatalf("status query %v; want the request id only (never the address)", r.Query)
			}
		})
	}
	_, a := newFixtureAdapter(t, nil)
	if _, err := a.Status(context.Background(), provider.OrderRef{DepositAddress: depo}); !provider.IsKind(err, provider.KindNotFound) {
		t.Fatalf("an order without a request id: %v; want not found", err)
	}
}

func TestFixtureSubmitDeposit(t *testing.T) {
	b, a := newFixtureAdapter(t, map[string]providertest.Answer{
		"GET /intents/status/v3":   {Status: 200, File: "status-waiting.json"},
		"POST /transactions/index": {Status: 200, Body: `{"message":"Transaction indexed"}`},
	})
	if err := a.SubmitDeposit(context.Background(), provider.OrderRef{DepositAddress: depo, ProviderRef: requestID}, swapv1.DepositHint{TxHash: "0xaaa1"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"chainId": "1", "txHash": "0xaaa1", "requestId": requestID}
	if got := body(t, b, "POST /transactions/index"); !reflect.DeepEqual(got, want) {
		t.Fatalf("index body %v; want %v", got, want)
	}
}

func TestFixtureErrorBodies(t *testing.T) {
	tests := []struct {
		status int
		body   string
		kind   provider.Kind
	}{
		{400, `{"message":"Amount is too low","errorCode":"AMOUNT_TOO_LOW"}`, provider.KindAmountTooLow},
		{400, `{"message":"Insufficient liquidity","errorCode":"INSUFFICIENT_LIQUIDITY"}`, provider.KindAmountTooHigh},
		{400, `{"message":"No routes found","errorCode":"NO_SWAP_ROUTES_FOUND"}`, provider.KindUnsupportedPair},
		{400, `{"message":"Invalid input or output currency","errorCode":"INVALID_INPUT_CURRENCY"}`, provider.KindUnsupportedPair},
		// Relay's transient errors may come as 400: retried, never a refusal.
		{400, `{"message":"RPC timed out","errorCode":"REQUEST_TIMED_OUT"}`, provider.KindUpstream},
		{400, `{"message":"Recipient is sanctioned","errorCode":"SANCTIONED_WALLET_ADDRESS"}`, provider.KindRefused},
		{400, `{"message":"body must have required property 'user'"}`, provider.KindRefused},
		{401, `{"message":"Invalid API key","errorCode":"UNAUTHORIZED"}`, provider.KindCredentials},
		{429, `{"message":"Too many requests"}`, provider.KindUpstream},
		{503, `{"message":"Price feed unavailable","errorCode":"PRICE_FETCH_FAILED"}`, provider.KindUpstream},
	}
	for _, tt := range tests {
		_, a := newFixtureAdapter(t, with(map[string]providertest.Answer{"POST /quote/v2": {Status: tt.status, Body: tt.body}}))
		_, err := a.Quote(context.Background(), provider.QuoteRequest{OriginAsset: ethID, DestinationAsset: solID, Amount: "1"})
		pe := provider.AsError(err)
		if err == nil || pe.Kind != tt.kind || pe.Limit != "" || pe.Upstream == nil || pe.Upstream.Status != tt.status {
			t.Errorf("%s: err %v; want %v", tt.body, err, tt.kind)
		}
	}
}
