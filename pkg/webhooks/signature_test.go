package webhooks

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Standard Webhooks published test vector (libraries' TestWebhookSign / spec examples).
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignReproducesStandardWebhooksVector(t *testing.T) {
	for _, secret := range []string{vectorSecret, strings.TrimPrefix(vectorSecret, SecretPrefix)} {
		got, err := Sign(secret, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
		if err != nil {
			t.Fatalf("Sign(%q): %v", secret, err)
		}
		if got != vectorSignature {
			t.Fatalf("Sign(%q) = %q, want %q", secret, got, vectorSignature)
		}
	}
}

func TestVerifyAcceptsStandardWebhooksVector(t *testing.T) {
	h := http.Header{}
	h.Set(HeaderID, vectorID)
	h.Set(HeaderTimestamp, strconv.Itoa(vectorTimestamp))
	h.Set(HeaderSignature, vectorSignature)
	if err := Verify(vectorSecret, h, []byte(vectorBody), time.Unix(vectorTimestamp, 0)); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

func TestVerify(t *testing.T) {
	const (
		oldSecret = vectorSecret
		newSecret = "whsec_dGhlIG5ldyBzZWNyZXQgYWZ0ZXIgcm90YXRpb24h"
		other     = "whsec_c29tZSBvdGhlciBwYXJ0bmVyJ3Mgc2VjcmV0"
	)
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"evt_x","status":"PENDING"}`)

	// signed builds the headers of one attempt sent at ts with the given secrets.
	signed := func(t *testing.T, ts time.Time, secrets ...string) http.Header {
		t.Helper()
		h := http.Header{}
		if err := SetHeaders(h, secrets, "evt_abc", ts, body); err != nil {
			t.Fatal(err)
		}
		return h
	}

	tests := []struct {
		name    string
		secret  string
		headers func(t *testing.T) http.Header
		body    []byte
		want    error // nil: accepted
	}{
		{"valid", oldSecret, func(t *testing.T) http.Header { return signed(t, now, oldSecret) }, body, nil},
		{"mutated body byte", oldSecret, func(t *testing.T) http.Header { return signed(t, now, oldSecret) },
			[]byte(`{"id":"evt_x","status":"PENDINg"}`), ErrNoMatchingSignature},
		{"extra trailing newline", oldSecret, func(t *testing.T) http.Header { return signed(t, now, oldSecret) },
			append(append([]byte{}, body...), '\n'), ErrNoMatchingSignature},
		{"other webhook-id", oldSecret, func(t *testing.T) http.Header {
			h := signed(t, now, oldSecret)
			h.Set(HeaderID, "evt_abd")
			return h
		}, body, ErrNoMatchingSignature},
		{"timestamp changed within window", oldSecret, func(t *testing.T) http.Header {
			h := signed(t, now, oldSecret)
			h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix()+1, 10))
			return h
		}, body, ErrNoMatchingSignature},
		{"wrong secret", other, func(t *testing.T) http.Header { return signed(t, now, oldSecret) }, body, ErrNoMatchingSignature},
		{"stale timestamp", oldSecret, func(t *testing.T) http.Header {
			return signed(t, now.Add(-Tolerance-time.Second), oldSecret)
		}, body, ErrTimestampTooOld},
		{"future timestamp", oldSecret, func(t *testing.T) http.Header {
			return signed(t, now.Add(Tolerance+time.Second), oldSecret)
		}, body, ErrTimestampTooNew},
		{"oldest accepted timestamp", oldSecret, func(t *testing.T) http.Header {
			return signed(t, now.Add(-Tolerance), oldSecret)
		}, body, nil},
		{"newest accepted timestamp", oldSecret, func(t *testing.T) http.Header {
			return signed(t, now.Add(Tolerance), oldSecret)
		}, body, nil},
		{"rotation: receiver holds the new secret", newSecret, func(t *testing.T) http.Header {
			return signed(t, now, oldSecret, newSecret)
		}, body, nil},
		{"rotation: receiver still holds the old secret", oldSecret, func(t *testing.T) http.Header {
			return signed(t, now, oldSecret, newSecret)
		}, body, nil},
		{"unknown versions and garbage are skipped", newSecret, func(t *testing.T) http.Header {
			h := signed(t, now, newSecret)
			h.Set(HeaderSignature, "v1,bm9wZQ== v2,"+strings.TrimPrefix(h.Get(HeaderSignature), "v1,")+" v1,***  "+h.Get(HeaderSignature))
			return h
		}, body, nil},
		{"correct MAC under another version", oldSecret, func(t *testing.T) http.Header {
			h := signed(t, now, oldSecret)
			h.Set(HeaderSignature, "v2,"+strings.TrimPrefix(h.Get(HeaderSignature), "v1,"))
			return h
		}, body, ErrNoMatchingSignature},
		{"missing webhook-id", oldSecret, func(t *testing.T) http.Header {
			h := signed(t, now, oldSecret)
			h.Del(HeaderID)
			return h
		}, body, ErrMissingHeader},
		{"missing webhook-timestamp", oldSecret, func(t *testing.T) http.Header {
			h := signed(t, now, oldSecret)
			h.Del(HeaderTimestamp)
			return h
		}, body, ErrMissingHeader},
		{"missing webhook-signature", oldSecret, func(t *testing.T) http.Header {
			h := signed(t, now, oldSecret)
			h.Del(HeaderSignature)
			return h
		}, body, ErrMissingHeader},
		{"non-numeric timestamp", oldSecret, func(t *testing.T) http.Header {
			h := signed(t, now, oldSecret)
			h.Set(HeaderTimestamp, "2026-01-01T00:00:00Z")
			return h
		}, body, ErrInvalidTimestamp},
		{"invalid secret", "whsec_***", func(t *testing.T) http.Header { return signed(t, now, oldSecret) }, body, ErrInvalidSecret},
		{"empty secret", "", func(t *testing.T) http.Header { return signed(t, now, oldSecret) }, body, ErrInvalidSecret},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(tc.secret, tc.headers(t), tc.body, now)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Verify: unexpected error %v", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify: got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSignatureHeaderHasOneSignaturePerSecret(t *testing.T) {
	secrets := []string{vectorSecret, "whsec_dGhlIG5ldyBzZWNyZXQgYWZ0ZXIgcm90YXRpb24h"}
	ts := time.Unix(vectorTimestamp, 0)
	got, err := SignatureHeader(secrets, vectorID, ts, []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(got, " ")
	if len(parts) != 2 || parts[0] != vectorSignature || parts[1] == parts[0] || !strings.HasPrefix(parts[1], "v1,") {
		t.Fatalf("SignatureHeader = %q", got)
	}
	if _, err := SignatureHeader(nil, vectorID, ts, nil); !errors.Is(err, ErrInvalidSecret) {
		t.Fatalf("no secrets: got %v", err)
	}
	if _, err := SignatureHeader([]string{vectorSecret, "whsec_%%"}, vectorID, ts, nil); !errors.Is(err, ErrInvalidSecret) {
		t.Fatalf("one bad secret: got %v", err)
	}
}

func TestNewSecret(t *testing.T) {
	a, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSecret()
	if a == b {
		t.Fatal("two secrets are equal")
	}
	if !strings.HasPrefix(a, SecretPrefix) {
		t.Fatalf("secret %q lacks %s", a, SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a, SecretPrefix))
	if err != nil || len(key) != 32 {
		t.Fatalf("secret %q: %d bytes, err %v", a, len(key), err)
	}
	now := time.Now()
	h := http.Header{}
	if err := SetHeaders(h, []string{a}, "evt_1", now, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := Verify(a, h, []byte("{}"), now); err != nil {
		t.Fatalf("round trip: %v", err)
	}
}
