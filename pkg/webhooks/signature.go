// Package webhooks signs and verifies swaprouter's order.status_changed webhooks in the
// Standard Webhooks format (https://www.standardwebhooks.com). Partners import it to verify
// deliveries; the service uses it to sign them. It depends on the standard library only.
//
// A delivery carries three headers:
//
//	webhook-id:        the event id (evt_...), identical on every retry and redelivery
//	webhook-timestamp: Unix seconds of this attempt
//	webhook-signature: space-separated "v1,<base64 HMAC-SHA256>" signatures, one per
//	                   active secret, over "<webhook-id>.<webhook-timestamp>.<body>"
//
// The HMAC key is the base64-decoded part of the secret after "whsec_".
package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of the Standard Webhooks format.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every secret this package generates.
const SecretPrefix = "whsec_"

// Tolerance is how far webhook-timestamp may be from the receiver's clock, either way.
const Tolerance = 5 * time.Minute

// signatureVersion tags HMAC-SHA256 signatures in webhook-signature.
const signatureVersion = "v1"

// Errors Verify returns; test with errors.Is.
var (
	// ErrMissingHeader: webhook-id, webhook-timestamp or webhook-signature is absent.
	ErrMissingHeader = errors.New("webhooks: missing header")
	// ErrInvalidTimestamp: webhook-timestamp is not an integer number of seconds.
	ErrInvalidTimestamp = errors.New("webhooks: invalid webhook-timestamp")
	// ErrTimestampTooOld: webhook-timestamp is more than Tolerance in the past (a replay?).
	ErrTimestampTooOld = errors.New("webhooks: webhook-timestamp too old")
	// ErrTimestampTooNew: webhook-timestamp is more than Tolerance in the future.
	ErrTimestampTooNew = errors.New("webhooks: webhook-timestamp too far in the future")
	// ErrNoMatchingSignature: no v1 signature in webhook-signature matches the body.
	ErrNoMatchingSignature = errors.New("webhooks: no matching signature")
	// ErrInvalidSecret: the secret is empty or not base64 after the whsec_ prefix.
	ErrInvalidSecret = errors.New("webhooks: invalid secret")
)

// NewSecret returns a fresh signing secret: "whsec_" + base64 of 32 random bytes.
func NewSecret() (string, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("webhooks: generating secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// DecodeSecret returns the HMAC key of a secret: the base64 part, with or without the
// whsec_ prefix (the reference libraries accept both).
func DecodeSecret(secret string) ([]byte, error) {
	encoded := strings.TrimPrefix(strings.TrimSpace(secret), SecretPrefix)
	if encoded == "" {
		return nil, fmt.Errorf("%w: empty", ErrInvalidSecret)
	}
	key, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64 after %q", ErrInvalidSecret, SecretPrefix)
	}
	if len(key) == 0 {
		return nil, fmt.Errorf("%w: empty key", ErrInvalidSecret)
	}
	return key, nil
}

// Sign returns the "v1,<base64>" signature of body for message id msgID sent at ts.
func Sign(secret string, msgID string, ts time.Time, body []byte) (string, error) {
	if msgID == "" {
		return "", fmt.Errorf("webhooks: empty message id")
	}
	key, err := DecodeSecret(secret)
	if err != nil {
		return "", err
	}
	mac := computeMAC(key, msgID, strconv.FormatInt(ts.Unix(), 10), body)
	return signatureVersion + "," + base64.StdEncoding.EncodeToString(mac), nil
}

// SignatureHeader returns the webhook-signature value for several active secrets: one v1
// signature each, space-separated, so a receiver holding any one of them can verify while
// secrets rotate.
func SignatureHeader(secrets []string, msgID string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", fmt.Errorf("%w: no secret", ErrInvalidSecret)
	}
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := Sign(s, msgID, ts, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// SetHeaders sets webhook-id, webhook-timestamp and webhook-signature on h for one attempt
// sent at ts, signed with every secret in secrets.
func SetHeaders(h http.Header, secrets []string, msgID string, ts time.Time, body []byte) error {
	sig, err := SignatureHeader(secrets, msgID, ts, body)
	if err != nil {
		return err
	}
	h.Set(HeaderID, msgID)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	return nil
}

// Verify checks a delivery against secret: the three headers are present, the timestamp is
// within Tolerance of now, and one of the v1 signatures matches body. body must be the raw
// request bytes, before any JSON decoding. On success the payload can be trusted; dedupe on
// headers.Get(HeaderID), which stays the same across retries.
func Verify(secret string, headers http.Header, body []byte, now time.Time) error {
	key, err := DecodeSecret(secret)
	if err != nil {
		return err
	}
	msgID, tsText, sigHeader := headers.Get(HeaderID), headers.Get(HeaderTimestamp), headers.Get(HeaderSignature)
	for _, h := range [...]struct{ name, value string }{
		{HeaderID, msgID}, {HeaderTimestamp, tsText}, {HeaderSignature, sigHeader},
	} {
		if h.value == "" {
			return fmt.Errorf("%w: %s", ErrMissingHeader, h.name)
		}
	}
	sec, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrInvalidTimestamp, tsText)
	}
	ts := time.Unix(sec, 0)
	switch {
	case ts.Before(now.Add(-Tolerance)):
		return ErrTimestampTooOld
	case ts.After(now.Add(Tolerance)):
		return ErrTimestampTooNew
	}
	want := computeMAC(key, msgID, tsText, body)
	for _, candidate := range strings.Fields(sigHeader) {
		version, encoded, ok := strings.Cut(candidate, ",")
		if !ok || version != signatureVersion {
			continue // other schemes (v1a, future versions) are not ours to check
		}
		got, err := base64.StdEncoding.DecodeString(encoded)
		if err != nil {
			continue
		}
		if hmac.Equal(got, want) { // constant time
			return nil
		}
	}
	return ErrNoMatchingSignature
}

// computeMAC is HMAC-SHA256(key, "id.timestamp.body"). The timestamp is passed as the exact
// header text so verification signs what was received.
func computeMAC(key []byte, msgID, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msgID))
	m.Write([]byte{'.'})
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}
