package quotesig

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// sdkHashes are what quoteHash of 1Click's TypeScript SDK 0.1.25 returns for the responses in
// testdata (test/oneclicksdk recomputes them with the SDK in make test).
var sdkHashes = map[string]string{
	"dry.json":   "FyBHwtEDzX1DsjJoTgZ3WwUAekEc79U9JMkup1jbag3p",
	"bound.json": "E5qSPjnGApMr9MryVtytDWX3VApe4G6UZrJmCeSX6uXC",
	// A repeated quoteRequest (the last counts), an escaped name, a nested object with keys
	// that sort differently by UTF-16 than by code point, -0, 1.0, 0.5e1, 1E2, an integer past
	// 2^53, escapes and astral characters in strings, a truthy [] and a falsy 0 for dry.
	"edge.json": "FMpzRJ21VfJ4UB6LgVUe1THFaosxyb3Cv7RYTXtTv1om",
}

func readResponse(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMessageIsWhatTheSDKHashes(t *testing.T) {
	for name, want := range sdkHashes {
		got, err := Message(readResponse(t, name))
		if err != nil || got != want {
			t.Errorf("%s: Message = %q, %v; the SDK hashes it to %q", name, got, err, want)
		}
	}
}

func testKey() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
}

// signed returns the response in testdata/name signed with testKey.
func signed(t *testing.T, name string) map[string]any {
	t.Helper()
	raw := readResponse(t, name)
	sig, err := Sign(testKey(), raw)
	if err != nil {
		t.Fatal(err)
	}
	resp := decodeMap(t, raw)
	resp["signature"] = sig
	return resp
}

func decodeMap(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func encode(t *testing.T, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m) // Go's encoder: other escapes and spacing than the signer saw
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerify(t *testing.T) {
	pub := testKey().Public().(ed25519.PublicKey)
	type edit struct {
		file, section, field string
		value                any // nil deletes the field
	}
	tests := []struct {
		name string
		edit
		verifies bool
	}{
		{"unchanged dry quote", edit{"dry.json", "", "", nil}, true},
		{"unchanged bound quote", edit{"bound.json", "", "", nil}, true},
		// Every signed request field.
		{"dry", edit{"dry.json", "quoteRequest", "dry", false}, false},
		{"swapType", edit{"dry.json", "quoteRequest", "swapType", "EXACT_OUTPUT"}, false},
		{"slippageTolerance", edit{"dry.json", "quoteRequest", "slippageTolerance", 101}, false},
		{"originAsset", edit{"dry.json", "quoteRequest", "originAsset", "nep141:btc.omft.near"}, false},
		{"depositType", edit{"dry.json", "quoteRequest", "depositType", "INTENTS"}, false},
		{"destinationAsset", edit{"dry.json", "quoteRequest", "destinationAsset", "nep141:wrap.near"}, false},
		{"amount", edit{"dry.json", "quoteRequest", "amount", "100000000000000001"}, false},
		{"refundTo", edit{"dry.json", "quoteRequest", "refundTo", "0x000000000000000000000000000000000000dEaE"}, false},
		{"refundType", edit{"dry.json", "quoteRequest", "refundType", "INTENTS"}, false},
		{"recipient", edit{"dry.json", "quoteRequest", "recipient", "attacker.near"}, false},
		{"recipientType", edit{"dry.json", "quoteRequest", "recipientType", "INTENTS"}, false},
		{"request deadline of a dry quote", edit{"dry.json", "quoteRequest", "deadline", "2026-11-26T22:00:00Z"}, false},
		{"quoteWaitingTimeMs from 0", edit{"dry.json", "quoteRequest", "quoteWaitingTimeMs", 5}, false},
		{"referral from empty", edit{"dry.json", "quoteRequest", "referral", "trustwallet"}, false},
		{"virtualChainRecipient", edit{"dry.json", "quoteRequest", "virtualChainRecipient", "0xabd"}, false},
		{"virtualChainRefundRecipient from absent", edit{"dry.json", "quoteRequest", "virtualChainRefundRecipient", "0x1"}, false},
		// Every signed quote field of a dry quote.
		{"amountIn", edit{"dry.json", "quote", "amountIn", "100000000000000001"}, false},
		{"amountInFormatted", edit{"dry.json", "quote", "amountInFormatted", "0.2"}, false},
		{"amountInUsd", edit{"dry.json", "quote", "amountInUsd", "351.0000"}, false},
		{"minAmountIn", edit{"dry.json", "quote", "minAmountIn", "1"}, false},
		{"amountOut", edit{"dry.json", "quote", "amountOut", "2500000001"}, false},
		{"amountOutFormatted", edit{"dry.json", "quote", "amountOutFormatted", "2.6"}, false},
		{"amountOutUsd", edit{"dry.json", "quote", "amountOutUsd", "1.0000"}, false},
		{"minAmountOut", edit{"dry.json", "quote", "minAmountOut", "2487500001"}, false},
		// ... and of a bound (non-dry) quote.
		{"depositAddress", edit{"bound.json", "quote", "depositAddress", "0x2222222222222222222222222222222222222222"}, false},
		{"depositMemo from empty", edit{"bound.json", "quote", "depositMemo", "42"}, false},
		{"quote deadline", edit{"bound.json", "quote", "deadline", "2026-11-25T21:30:00Z"}, false},
		{"timeWhenInactive", edit{"bound.json", "quote", "timeWhenInactive", "2026-11-25T21:16:00Z"}, false},
		{"timeEstimate", edit{"bound.json", "quote", "timeEstimate", 2}, false},
		{"quote virtualChainRecipient", edit{"bound.json", "quote", "virtualChainRecipient", "0xdee"}, false},
		{"quote customRecipientMsg", edit{"bound.json", "quote", "customRecipientMsg", "other"}, false},
		{"refundFee", edit{"bound.json", "quote", "refundFee", "1"}, false},
		{"withdrawFee from null", edit{"bound.json", "quote", "withdrawFee", "7"}, false},
		{"timestamp", edit{"bound.json", "", "timestamp", "2026-11-25T21:00:01.5Z"}, false},
		// Fields the SDK leaves out of the signature.
		{"correlationId is not signed", edit{"dry.json", "", "correlationId", "other"}, true},
		{"rebates are not signed", edit{"dry.json", "quoteRequest", "rebates", []any{}}, true},
		{"appFees are not signed", edit{"dry.json", "quoteRequest", "appFees", nil}, true},
		{"sessionId is not signed", edit{"dry.json", "quoteRequest", "sessionId", "s-2"}, true},
		{"a dry quote's deadline is not signed", edit{"dry.json", "quote", "deadline", "2026-11-25T21:31:00Z"}, true},
		{"a bound quote's request deadline is not signed", edit{"bound.json", "quoteRequest", "deadline", "2026-11-26T22:00:00Z"}, true},
		{"a request customRecipientMsg replaced by the quote's absent one", edit{"bound.json", "quoteRequest", "customRecipientMsg", "x"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := signed(t, tt.file)
			if tt.field != "" {
				target := resp
				if tt.section != "" {
					target = resp[tt.section].(map[string]any)
				}
				if tt.value == nil {
					delete(target, tt.field)
				} else {
					target[tt.field] = tt.value
				}
			}
			err := Verify(pub, encode(t, resp))
			if got := err == nil; got != tt.verifies {
				t.Fatalf("Verify = %v, want verifies=%v", err, tt.verifies)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("Verify = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestVerifyRejectsOtherKeysAndMalformedSignatures(t *testing.T) {
	resp := signed(t, "bound.json")
	published, err := ParsePublicKey(PublishedKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(published, encode(t, resp)); !errors.Is(err, ErrInvalid) {
		t.Errorf("verified with 1Click's published key: %v", err)
	}
	pub := testKey().Public().(ed25519.PublicKey)
	for _, sig := range []any{"", "ed25519:", "ed25519:0OIl", "ed25519:3yZe7d", nil} {
		resp["signature"] = sig
		if err := Verify(pub, encode(t, resp)); !errors.Is(err, ErrInvalid) {
			t.Errorf("signature %v: Verify = %v, want ErrInvalid", sig, err)
		}
	}
}

func TestPublicKeyRoundTrip(t *testing.T) {
	pub := testKey().Public().(ed25519.PublicKey)
	s := FormatPublicKey(pub)
	for _, in := range []string{s, s[len("ed25519:"):]} {
		got, err := ParsePublicKey(in)
		if err != nil || !got.Equal(pub) {
			t.Errorf("ParsePublicKey(%q) = %x, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "ed25519:abc", "secp256k1:" + s[len("ed25519:"):], s + "1"} {
		if _, err := ParsePublicKey(bad); err == nil {
			t.Errorf("ParsePublicKey(%q) accepted", bad)
		}
	}
}

func TestJSNumber(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0", 100: "100", 50.0: "50", 11.6: "11.6", -2.5: "-2.5", 1e21: "1e+21", 1e20: "100000000000000000000",
		1.5e-7: "1.5e-7", 0.000001: "0.000001", 123456789012345680000: "123456789012345680000", 1.25e25: "1.25e+25",
	} {
		if got := jsNumber(in); got != want {
			t.Errorf("jsNumber(%v) = %q, want %q", in, got, want)
		}
	}
}
