package oneclick

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

// The fixtures in testdata are answers written from the 1Click SDK's models (TokenResponse,
// QuoteResponse, Quote, GetExecutionStatusResponse, SwapDetails) with every field present,
// fractional numbers where the API sends them, and fields this adapter has never heard of.

const (
	ethID  = "eip155:1/slip44:60"
	solID  = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	jwt    = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwYXJ0bmVyIn0.sig"
	from   = "0x1111111111111111111111111111111111111111"
	solDst = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	depo   = "0x76b4c56085ED136a8744D52bE956396624a730E8"
	// fixtureSigningKey signed testdata/quote.json (its private half exists nowhere else).
	fixtureSigningKey = "ed25519:BfRhWgVNkqPjw25mNDHHGXtrc3NxW1PQfNiwtRzdy7NL"
)

func newFixtureAdapter(t *testing.T, answers map[string]providertest.Answer) (*providertest.Backend, *Adapter) {
	b := providertest.NewBackend(t, answers)
	a, err := New(provider.Config{ID: swapv1.ProviderRouteA, Endpoint: b.URL, Token: jwt, Timeout: time.Minute,
		QuoteSigningKey: fixtureSigningKey})
	if err != nil {
		t.Fatal(err)
	}
	a.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	return b, a
}

var quoteAnswers = map[string]providertest.Answer{
	"GET /v0/tokens": {Status: 200, File: "tokens.json"},
	"POST /v0/quote": {Status: 200, File: "quote.json"},
}

func TestFixtureTokens(t *testing.T) {
	b, a := newFixtureAdapter(t, quoteAnswers)
	assets, err := a.Assets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]provider.Asset{}
	for _, as := range assets {
		got[as.ProviderToken] = as
	}
	// TON has no chain in the table and is skipped.
	if len(got) != 4 || got["nep141:eth.omft.near"].AssetID != ethID || got["nep141:wrap.near"].AssetID != "near:mainnet/nep141:wrap.near" ||
		got["nep141:eth-0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48.omft.near"].Decimals != 6 {
		t.Fatalf("assets %+v", got)
	}
	if r, _ := b.Got("GET /v0/tokens"); r.Header.Get("Authorization") != "Bearer "+jwt {
		t.Fatalf("Authorization = %q; want the JWT as a bearer token", r.Header.Get("Authorization"))
	}
}

func sent(t *testing.T, b *providertest.Backend) map[string]any {
	t.Helper()
	r, ok := b.Got("POST /v0/quote")
	if !ok {
		t.Fatal("no quote request")
	}
	if r.Header.Get("Idempotency-Key") != "" {
		t.Fatal("an Idempotency-Key header: 1Click has no such thing")
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

func TestFixtureDryQuoteSendsPlaceholders(t *testing.T) {
	b, a := newFixtureAdapter(t, quoteAnswers)
	q, err := a.Quote(context.Background(), provider.QuoteRequest{OriginAsset: ethID, DestinationAsset: solID, Amount: "100000000000000000"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"dry": true, "depositMode": "SIMPLE", "swapType": "EXACT_INPUT", "slippageTolerance": 100.0,
		"originAsset": "nep141:eth.omft.near", "depositType": "ORIGIN_CHAIN", "destinationAsset": "nep141:sol.omft.near",
		"amount": "100000000000000000", "refundTo": "0x000000000000000000000000000000000000dEaD", "refundType": "ORIGIN_CHAIN",
		"recipient": "11111111111111111111111111111111", "recipientType": "DESTINATION_CHAIN", "deadline": "2026-01-02T04:04:05Z",
	}
	if got := sent(t, b); !reflect.DeepEqual(got, want) {
		t.Fatalf("quote body\n%v\nwant\n%v", got, want)
	}
	// timeEstimate 21.5 rounds up.
	if q.AmountIn != "100000000000000000" || q.AmountOut != "1323456789" || q.MinAmountOut != "1310222221" || q.EstimatedTimeSeconds != 22 {
		t.Fatalf("quote %+v", q)
	}
}

func TestFixtureCreateDeposit(t *testing.T) {
	b, a := newFixtureAdapter(t, quoteAnswers)
	slippage := int32(100)
	d, err := a.CreateDeposit(context.Background(), provider.DepositRequest{OrderID: "ord_x", QuoteRequest: provider.QuoteRequest{
		OriginAsset: ethID, DestinationAsset: solID, Amount: "100000000000000000", SlippageBps: &slippage, Sender: from, Recipient: solDst,
	}})
	if err != nil {
		t.Fatal(err)
	}
	body := sent(t, b)
	if body["dry"] != false || body["refundTo"] != from || body["recipient"] != solDst {
		t.Fatalf("quote body %v", body)
	}
	// deadline (funds may be lost after it), not timeWhenInactive (only slower), bounds the deposit.
	if d.DepositAddress != depo || d.ProviderRef != depo || d.DepositMemo != "" || !d.Deadline.Equal(time.Date(2026, 1, 2, 4, 4, 5, 0, time.UTC)) {
		t.Fatalf("deposit %+v", d)
	}
}

func TestFixtureStatus(t *testing.T) {
	tests := []struct {
		file string
		want provider.Status
	}{
		{"status-incomplete.json", provider.Status{
			Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusIncompleteDeposit, Raw: "INCOMPLETE_DEPOSIT", Reason: "IncompleteDeposit",
			InTxHashes: []string{"0xaaa0000000000000000000000000000000000000000000000000000000000001"}, OutTxHashes: []string{},
			DepositedAmount: "60000000000000000",
		}},
		{"status-success-refund.json", provider.Status{
			Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusPartialRefund, Raw: "SUCCESS", Reason: "PartiallyRefunded",
			InTxHashes:      []string{"0xaaa0000000000000000000000000000000000000000000000000000000000001", "0xaaa0000000000000000000000000000000000000000000000000000000000002"},
			OutTxHashes:     []string{"4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn"},
			DepositedAmount: "120000000000000000", AmountIn: "100000000000000000", AmountOut: "1321000000", RefundedAmount: "20000000000000000",
		}},
		// refundReason is free text, so the reason stays the stable "Refunded".
		{"status-refunded.json", provider.Status{
			Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Raw: "REFUNDED", Reason: "Refunded",
			InTxHashes: []string{"0xaaa0000000000000000000000000000000000000000000000000000000000001"}, OutTxHashes: []string{},
			DepositedAmount: "60000000000000000", RefundedAmount: "59958000000000000",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, a := newFixtureAdapter(t, map[string]providertest.Answer{"GET /v0/status": {Status: 200, File: tt.file}})
			st, err := a.Status(context.Background(), provider.OrderRef{DepositAddress: depo, DepositMemo: "memo-7"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(st, tt.want) {
				t.Fatalf("status\n%+v\nwant\n%+v", st, tt.want)
			}
			r, _ := b.Got("GET /v0/status")
			if r.Query.Get("depositAddress") != depo || r.Query.Get("depositMemo") != "memo-7" || len(r.Query) != 2 {
				t.Fatalf("status query %v", r.Query)
			}
		})
	}
}

func TestFixtureSubmitDeposit(t *testing.T) {
	b, a := newFixtureAdapter(t, map[string]providertest.Answer{"POST /v0/deposit/submit": {Status: 200, File: "status-incomplete.json"}})
	err := a.SubmitDeposit(context.Background(), provider.OrderRef{DepositAddress: depo}, swapv1.DepositHint{TxHash: "0xaaa1", NearSenderAccount: "alice.near"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := b.Got("POST /v0/deposit/submit")
	var body map[string]any
	_ = json.Unmarshal(r.Body, &body)
	if want := map[string]any{"txHash": "0xaaa1", "depositAddress": depo, "nearSenderAccount": "alice.near"}; !reflect.DeepEqual(body, want) {
		t.Fatalf("submit body %v; want %v", body, want)
	}
}

func TestFixtureErrorBodies(t *testing.T) {
	tests := []struct {
		status int
		body   string
		kind   provider.Kind
		limit  string
	}{
		{400, `{"message":"Amount is too low for bridge, try at least 2500000000000000"}`, provider.KindAmountTooLow, "2500000000000000"},
		{400, `{"message":"No quotes available for this pair"}`, provider.KindUnsupportedPair, ""},
		{400, `{"message":"recipient is not valid"}`, provider.KindRefused, ""},
		{401, `{"message":"Unauthorized"}`, provider.KindCredentials, ""},
		{429, `{"message":"Too many requests"}`, provider.KindUpstream, ""},
	}
	for _, tt := range tests {
		_, a := newFixtureAdapter(t, map[string]providertest.Answer{
			"GET /v0/tokens": {Status: 200, File: "tokens.json"},
			"POST /v0/quote": {Status: tt.status, Body: tt.body},
		})
		_, err := a.Quote(context.Background(), provider.QuoteRequest{OriginAsset: ethID, DestinationAsset: solID, Amount: "1"})
		pe := provider.AsError(err)
		if err == nil || pe.Kind != tt.kind || pe.Limit != tt.limit || pe.Upstream == nil || pe.Upstream.Status != tt.status {
			t.Errorf("%s: err %v (limit %q); want %v %q", tt.body, err, pe.Limit, tt.kind, tt.limit)
		}
	}
}
