package apiserver

import (
	"encoding/json"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
)

// TestFreeTextFieldsRefuseTheSameCharacters: every free-text field a partner sends refuses
// the characters that make one value look like another or hide in a log, the same set for
// each field.
func TestFreeTextFieldsRefuseTheSameCharacters(t *testing.T) {
	const eth = "eip155:1/slip44:60"
	order := func(sender, recipient, refundTo, ref, quoteID string) func() *apierror.Error {
		return func() *apierror.Error {
			o := wire.OrderRequest{OriginAsset: eth, DestinationAsset: eth, Amount: "1",
				Sender: sender, Recipient: recipient, RefundTo: &refundTo, ProviderID: "route_A",
				ClientReference: &ref, QuoteID: &quoteID}
			if _, err := validateOrder(&o); err != nil {
				return err
			}
			return checkClientReference(deref(o.ClientReference))
		}
	}
	const addr = "0x1111111111111111111111111111111111111111"
	fields := map[string]func(v string) *apierror.Error{
		"txHash": func(v string) *apierror.Error { return validateDeposit(&wire.DepositRequest{TxHash: v}) },
		"nearSenderAccount": func(v string) *apierror.Error {
			return validateDeposit(&wire.DepositRequest{TxHash: "0xabc", NearSenderAccount: &v})
		},
		"sender":          func(v string) *apierror.Error { return order(v, addr, "", "", "")() },
		"recipient":       func(v string) *apierror.Error { return order(addr, v, "", "", "")() },
		"refundTo":        func(v string) *apierror.Error { return order(addr, addr, v, "", "")() },
		"clientReference": func(v string) *apierror.Error { return order(addr, addr, "", v, "")() },
		"quoteId":         func(v string) *apierror.Error { return checkQuoteID(v) },
		"Idempotency-Key": checkIdempotencyKey,
	}
	// A value each field accepts, to put the characters in.
	plain := map[string]string{"txHash": "0xabc", "nearSenderAccount": "alice.near", "sender": addr,
		"recipient": addr, "refundTo": addr, "clientReference": "ref-1", "quoteId": "q3.AQAAAAEabc", "Idempotency-Key": "idem-1"}
	refused := map[string]string{
		"zero-width space": "\u200b", "zero-width joiner": "\u200d", "right-to-left override": "\u202e",
		"left-to-right isolate": "\u2066", "byte order mark": "\ufeff", "soft hyphen": "\u00ad",
		"NUL": "\x00", "escape": "\x1b", "newline": "\n", "space": " ", "line separator": "\u2028",
		"non-ASCII letter": "é",
	}
	for field, check := range fields {
		if err := check(plain[field]); err != nil {
			t.Errorf("%s: plain value %q refused: %v", field, plain[field], err)
		}
		for name, r := range refused {
			v := plain[field][:2] + r + plain[field][2:]
			if err := check(v); err == nil || err.Code != apierror.InvalidRequest {
				t.Errorf("%s with a %s: %v, want 400 invalid request", field, name, err)
			}
		}
	}
}

// TestCanonicalRequests pins the bytes an Idempotency-Key binds (their hash is stored with the
// order): defaults filled, the fee charged, empty optional fields left out, the document's
// field order. A change here makes a retry across an upgrade answer 422 instead of its order.
func TestCanonicalRequests(t *testing.T) {
	fees := &swapv1.PartnerFees{Bps: 10, MaxBps: 30, Recipient: "fees.near"}
	tests := []struct{ body, order, quote string }{
		{
			body:  `{"originAsset":"eip155:1/slip44:60","destinationAsset":"eip155:1/erc20:0xa0b8","amount":"1000","sender":"0x1","recipient":"0x2","providerId":"route_A"}`,
			order: `{"originAsset":"eip155:1/slip44:60","destinationAsset":"eip155:1/erc20:0xa0b8","amount":"1000","swapType":"EXACT_INPUT","feeBps":10,"sender":"0x1","recipient":"0x2","providerId":"route_A"}`,
			quote: `{"originAsset":"eip155:1/slip44:60","destinationAsset":"eip155:1/erc20:0xa0b8","amount":"1000","swapType":"EXACT_INPUT","feeBps":10,"sender":"0x1","recipient":"0x2","dry":false}`,
		},
		{
			body:  `{"quoteId":"q1","clientReference":"ref-1","providerId":"route_A","refundTo":"0x3","recipient":"0x2","sender":"0x1","feeBps":20,"slippageToleranceBps":50,"swapType":"EXACT_OUTPUT","amount":"1000","destinationAsset":"eip155:1/erc20:0xa0b8","originAsset":"eip155:1/slip44:60"}`,
			order: `{"originAsset":"eip155:1/slip44:60","destinationAsset":"eip155:1/erc20:0xa0b8","amount":"1000","swapType":"EXACT_OUTPUT","slippageToleranceBps":50,"feeBps":20,"sender":"0x1","recipient":"0x2","refundTo":"0x3","providerId":"route_A","clientReference":"ref-1","quoteId":"q1"}`,
			quote: `{"originAsset":"eip155:1/slip44:60","destinationAsset":"eip155:1/erc20:0xa0b8","amount":"1000","swapType":"EXACT_OUTPUT","slippageToleranceBps":50,"feeBps":20,"sender":"0x1","recipient":"0x2","refundTo":"0x3","dry":false,"clientReference":"ref-1","quoteId":"q1"}`,
		},
		{
			body:  `{"originAsset":"a:b/c","destinationAsset":"d:e/f","amount":"1","sender":"0x1","recipient":"0x2","refundTo":"","clientReference":"","providerId":"x"}`,
			order: `{"originAsset":"a:b/c","destinationAsset":"d:e/f","amount":"1","swapType":"EXACT_INPUT","feeBps":10,"sender":"0x1","recipient":"0x2","providerId":"x"}`,
			quote: `{"originAsset":"a:b/c","destinationAsset":"d:e/f","amount":"1","swapType":"EXACT_INPUT","feeBps":10,"sender":"0x1","recipient":"0x2","dry":false}`,
		},
	}
	for _, tt := range tests {
		var o wire.OrderRequest
		if err := json.Unmarshal([]byte(tt.body), &o); err != nil {
			t.Fatal(err)
		}
		f, err := validateOrder(&o)
		if err == nil {
			err = f.resolveFee(fees)
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		o.FeeBps = f.FeeBps
		if got, _ := json.Marshal(o); string(got) != tt.order {
			t.Errorf("order %s\n got %s\nwant %s", tt.body, got, tt.order)
		}

		var body map[string]any
		_ = json.Unmarshal([]byte(tt.body), &body)
		delete(body, "providerId")
		raw, _ := json.Marshal(body)
		var q wire.QuoteRequest
		if err := json.Unmarshal(raw, &q); err != nil {
			t.Fatal(err)
		}
		q.Dry = new(bool)
		f, err = validateQuote(&q)
		if err == nil {
			err = f.resolveFee(fees)
		}
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		q.FeeBps = f.FeeBps
		if got, _ := json.Marshal(q); string(got) != tt.quote {
			t.Errorf("quote %s\n got %s\nwant %s", raw, got, tt.quote)
		}
	}
}
