package oneclick

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/providertest"
	"github.com/swaprouter/swaprouter/internal/quotesig"
)

// A quote whose signature does not verify with the RoutingProvider's key is refused with
// ReasonSignatureInvalid, and nothing in it (its deposit address above all) comes back.
func TestQuoteSignatureIsVerified(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "quote.json"))
	if err != nil {
		t.Fatal(err)
	}
	tampered := strings.Replace(string(fixture), depo, "0x000000000000000000000000000000000000bEEF", 1)
	tests := []struct {
		name, key, body string
		verifies        bool
	}{
		{"signed by the configured key", fixtureSigningKey, string(fixture), true},
		{"another deposit address than was signed", fixtureSigningKey, tampered, false},
		{"1Click's published key (the default) for a quote it did not sign", "", string(fixture), false},
		{"signature missing", fixtureSigningKey, strings.Replace(string(fixture), `"signature"`, `"unsigned"`, 1), false},
	}
	req := provider.DepositRequest{OrderID: "ord_x", QuoteRequest: provider.QuoteRequest{
		OriginAsset: ethID, DestinationAsset: solID, Amount: "100000000000000000", Sender: from, Recipient: solDst,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := providertest.NewBackend(t, map[string]providertest.Answer{
				"GET /v0/tokens": {Status: 200, File: "tokens.json"}, "POST /v0/quote": {Status: 200, Body: tt.body},
			})
			a, err := New(provider.Config{ID: swapv1.ProviderRouteA, Endpoint: b.URL, Timeout: time.Minute, QuoteSigningKey: tt.key})
			if err != nil {
				t.Fatal(err)
			}
			d, err := a.CreateDeposit(context.Background(), req)
			_, qerr := a.Quote(context.Background(), req.QuoteRequest)
			if tt.verifies {
				if err != nil || d.DepositAddress != depo || qerr != nil {
					t.Fatalf("CreateDeposit = %+v, %v; Quote: %v", d, err, qerr)
				}
				if !strings.HasPrefix(d.Signature, "ed25519:") || !strings.Contains(tt.body, `"`+d.Signature+`"`) {
					t.Errorf("the deposit carries signature %q, want the quote's own", d.Signature)
				}
				return
			}
			for _, e := range []error{err, qerr} {
				pe := provider.AsError(e)
				if e == nil || pe.Kind != provider.KindRefused || pe.Reason != provider.ReasonSignatureInvalid || !errors.Is(e, quotesig.ErrInvalid) {
					t.Fatalf("error %v, want a refusal with reason %s", e, provider.ReasonSignatureInvalid)
				}
			}
			if d.DepositAddress != "" {
				t.Fatalf("deposit address %q came back from a quote that does not verify", d.DepositAddress)
			}
		})
	}
}

func TestNewRejectsAMalformedSigningKey(t *testing.T) {
	if _, err := New(provider.Config{ID: swapv1.ProviderRouteA, Endpoint: "http://127.0.0.1:1", QuoteSigningKey: "ed25519:short"}); err == nil {
		t.Fatal("adapter built with a malformed quote signing key")
	}
}
