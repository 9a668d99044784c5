package apiserver

import (
	"testing"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// TestFreeTextFieldsRefuseTheSameCharacters: every free-text field a partner sends refuses
// the characters that make one value look like another or hide in a log, the same set for
// each field.
func TestFreeTextFieldsRefuseTheSameCharacters(t *testing.T) {
	const eth = "eip155:1/slip44:60"
	order := func(sender, recipient, refundTo, ref, quoteID string) func() *apierror.Error {
		return func() *apierror.Error {
			o := orderRequest{swapFields: swapFields{OriginAsset: eth, DestinationAsset: eth, Amount: "1"},
				Sender: sender, Recipient: recipient, RefundTo: refundTo, ProviderID: "route_A",
				ClientReference: ref, QuoteID: quoteID}
			if err := o.validate(); err != nil {
				return err
			}
			return checkClientReference(o.ClientReference)
		}
	}
	const addr = "0x1111111111111111111111111111111111111111"
	fields := map[string]func(v string) *apierror.Error{
		"txHash": func(v string) *apierror.Error { return (&depositRequest{TxHash: v}).validate() },
		"nearSenderAccount": func(v string) *apierror.Error {
			return (&depositRequest{TxHash: "0xabc", NearSenderAccount: v}).validate()
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
