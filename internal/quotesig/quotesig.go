// Package quotesig is 1Click's quote signature: which fields of a QuoteResponse its service
// signs, the message it signs over them, and ed25519 signing and verification with keys in
// NEAR's "ed25519:<base58>" form.
//
// The message is what 1Click's TypeScript SDK hashes (its quote-signature module): chosen
// fields of quoteRequest and quote plus the response's timestamp, merged into one object
// (quote fields replacing request fields of the same name), serialized as JSON with sorted
// keys and no whitespace, hashed with SHA-256 and written in base58; the signature is over
// the UTF-8 bytes of that base58 text. Values are serialized as JavaScript's JSON.stringify
// writes what JSON.parse read, so a verifier reproduces the message byte for byte from the
// response as received.
package quotesig

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/mr-tron/base58"
)

// PublishedKey is the key 1Click signs its quotes with, as its SDK publishes it.
const PublishedKey = "ed25519:reYaWhvwu8Jzo3WUM3zhn6VrhuMEF4eADL17qtRVifc"

const prefix = "ed25519:"

// Field lists as 1Click's SDK builds the signed object. "always" fields are signed as they
// are (absent stays absent, null is signed as null); "ifTruthy" fields only when their value
// is truthy in JavaScript (not false, 0, "" or null).
var (
	requestAlways = []string{"dry", "swapType", "slippageTolerance", "originAsset", "depositType", "destinationAsset",
		"amount", "refundTo", "refundType", "recipient", "recipientType", "deadline"}
	requestIfTruthy = []string{"quoteWaitingTimeMs", "referral", "virtualChainRecipient", "virtualChainRefundRecipient",
		"customRecipientMsg"}
	quoteAlways = []string{"amountIn", "amountInFormatted", "amountInUsd", "minAmountIn", "amountOut",
		"amountOutFormatted", "amountOutUsd", "minAmountOut"}
	// quoteBound are signed only for a non-dry quote; they replace the request's fields of
	// the same name even when they are left out (deadline, virtualChain*, customRecipientMsg).
	quoteBound = []string{"depositAddress", "depositMemo", "deadline", "timeWhenInactive", "timeEstimate",
		"virtualChainRecipient", "virtualChainRefundRecipient", "customRecipientMsg", "refundFee", "withdrawFee"}
)

// ErrInvalid: the signature does not verify with the key over the response's signed fields.
var ErrInvalid = errors.New("quote signature does not verify")

// Message is what 1Click signs for a QuoteResponse (the JSON body as received): the base58
// SHA-256 of the signed fields.
func Message(response []byte) (string, error) {
	var r picked
	if err := r.read(response); err != nil {
		return "", err
	}
	return r.message()
}

func (r *picked) message() (string, error) {
	canonical, err := r.signedJSON()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canonical)
	return base58.Encode(sum[:]), nil
}

// signedJSON is the serialized object 1Click hashes: the signed fields, merged as the SDK
// merges them, written in their sorted order.
func (r *picked) signedJSON() ([]byte, error) {
	var signed fieldSet
	pick := func(from *fieldSet, names []int, onlyTruthy bool) {
		for _, n := range names {
			if v, ok := from.get(n); ok && (!onlyTruthy || truthy(v)) {
				signed.set(n, v)
			} else {
				signed.clear(n) // the SDK's undefined still replaces a value merged before
			}
		}
	}
	pick(&r.request, requestAlwaysIdx, false)
	pick(&r.request, requestIfTruthyIdx, true)
	pick(&r.quote, quoteAlwaysIdx, false)
	if dry, _ := r.request.get(nameIndex["dry"]); !truthy(dry) {
		pick(&r.quote, quoteBoundIdx, true)
	}
	if r.hasTimestamp {
		signed.set(nameIndex["timestamp"], r.timestamp)
	}
	return signed.appendCanonical(make([]byte, 0, 1024))
}

// Sign signs response (a QuoteResponse body whose signature is not yet set) and returns
// the signature as 1Click writes it, "ed25519:<base58>".
func Sign(key ed25519.PrivateKey, response []byte) (string, error) {
	msg, err := Message(response)
	if err != nil {
		return "", err
	}
	return prefix + base58.Encode(ed25519.Sign(key, []byte(msg))), nil
}

// Verify checks the signature of response (a QuoteResponse body as received) with key;
// every failure, a malformed signature included, wraps ErrInvalid.
func Verify(key ed25519.PublicKey, response []byte) error {
	var r picked
	if err := r.read(response); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	sig, err := decode(r.signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: signature %q is not an ed25519 signature", ErrInvalid, r.signature)
	}
	msg, err := r.message()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if !ed25519.Verify(key, []byte(msg), sig) {
		return ErrInvalid
	}
	return nil
}

// ParsePublicKey reads an ed25519 public key as "ed25519:<base58>" (the prefix may be left
// out).
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := decode(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("quote signing key %q: want ed25519:<base58 of 32 bytes>", s)
	}
	return ed25519.PublicKey(b), nil
}

// FormatPublicKey writes key as "ed25519:<base58>".
func FormatPublicKey(key ed25519.PublicKey) string { return prefix + base58.Encode(key) }

func decode(s string) ([]byte, error) { return base58.Decode(strings.TrimPrefix(s, prefix)) }
