package webhooks

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

var fuzzNow = time.Unix(1_772_000_000, 0)

// FuzzVerifyMutation signs a delivery, checks that Verify accepts it, then changes one thing —
// a body byte, the id, the timestamp text, a signature byte or the secret — and checks that
// Verify refuses it. A receiver must never trust a message that is not exactly what was signed.
func FuzzVerifyMutation(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef"), "evt_abc", int64(0), []byte(`{"status":"SUCCESS"}`), uint8(0), uint16(3), uint8(1))
	f.Add([]byte("k"), "msg_p5jXN8AQM9LWM0D4loKWxJek", int64(-299), []byte(``), uint8(1), uint16(0), uint8(0x80))
	f.Add([]byte("k"), "evt_x", int64(299), []byte(`{}`), uint8(2), uint16(0), uint8(0))
	f.Add([]byte("kk"), "evt_x", int64(10), []byte(`{}`), uint8(3), uint16(31), uint8(0xff))
	f.Add([]byte("kkk"), "evt_x", int64(10), []byte(`{}`), uint8(4), uint16(0), uint8(1))
	f.Fuzz(func(t *testing.T, key []byte, id string, offset int64, body []byte, what uint8, pos uint16, flip uint8) {
		if len(key) == 0 || id == "" || strings.ContainsAny(id, "\r\n") || strings.TrimSpace(id) != id {
			return // Sign refuses these; header values cannot carry them as sent
		}
		offset %= int64(Tolerance / time.Second)
		secret := SecretPrefix + base64.StdEncoding.EncodeToString(key)
		ts := fuzzNow.Add(time.Duration(offset) * time.Second)
		h := http.Header{}
		if err := SetHeaders(h, []string{secret}, id, ts, body); err != nil {
			t.Fatalf("SetHeaders: %v", err)
		}
		if err := Verify(secret, h, body, fuzzNow); err != nil {
			t.Fatalf("a genuine delivery was refused: %v", err)
		}
		if flip == 0 {
			flip = 1
		}
		verifySecret, mutated := secret, body
		switch what % 5 {
		case 0: // body
			if len(body) == 0 {
				mutated = []byte{flip}
			} else {
				mutated = bytes.Clone(body)
				mutated[int(pos)%len(body)] ^= flip
			}
		case 1: // id
			b := []byte(id)
			b[int(pos)%len(b)] ^= flip
			if strings.TrimSpace(string(b)) != string(b) || strings.ContainsAny(string(b), "\r\n") {
				return
			}
			h.Set(HeaderID, string(b))
		case 2: // timestamp: another second, or the same second written differently
			if flip%2 == 0 {
				h.Set(HeaderTimestamp, "0"+h.Get(HeaderTimestamp))
			} else {
				h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix()+int64(flip%16)+1, 10))
			}
		case 3: // one bit of the MAC
			_, enc, _ := strings.Cut(h.Get(HeaderSignature), ",")
			mac, err := base64.StdEncoding.DecodeString(enc)
			if err != nil {
				t.Fatal(err)
			}
			mac[int(pos)%len(mac)] ^= flip
			h.Set(HeaderSignature, "v1,"+base64.StdEncoding.EncodeToString(mac))
		case 4: // the verifier holds another secret
			k := bytes.Clone(key)
			k[int(pos)%len(k)] ^= flip
			verifySecret = SecretPrefix + base64.StdEncoding.EncodeToString(k)
		}
		if err := Verify(verifySecret, h, mutated, fuzzNow); err == nil {
			t.Fatalf("mutation %d accepted: id %q ts %q sig %q body %q", what%5, h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature), mutated)
		} else if what%5 != 2 && !errors.Is(err, ErrNoMatchingSignature) {
			t.Fatalf("mutation %d refused with %v, want ErrNoMatchingSignature", what%5, err)
		}
	})
}

// FuzzVerifyArbitrary feeds Verify arbitrary secrets and headers: it never panics, and it
// accepts only when one v1 entry of webhook-signature carries the true MAC of exactly
// id.timestamp.body under the secret, with the timestamp within Tolerance.
func FuzzVerifyArbitrary(f *testing.F) {
	f.Add("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330",
		"v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", []byte(`{"test": 2432232314}`), int64(1614265330))
	f.Add("whsec_", "x", "1", "v1,", []byte{}, int64(1))
	f.Add("whsec_!!", "x", "-1", "v1a,abc v1,=", []byte{0}, int64(0))
	f.Add("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "x", "9223372036854775807", "v2,abc  v1", []byte("a"), int64(9223372036854775807))
	f.Add("whsec_AA==", "x", "+10", "v1,AA==", []byte("a"), int64(10))
	f.Fuzz(func(t *testing.T, secret, id, ts, sig string, body []byte, now int64) {
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
		err := Verify(secret, h, body, time.Unix(now, 0))
		if err != nil {
			return
		}
		key, kerr := DecodeSecret(secret)
		if kerr != nil {
			t.Fatalf("accepted under a secret DecodeSecret refuses: %v", kerr)
		}
		sec, perr := strconv.ParseInt(ts, 10, 64)
		if perr != nil {
			t.Fatalf("accepted timestamp %q", ts)
		}
		if d := time.Unix(sec, 0).Sub(time.Unix(now, 0)); d > Tolerance || d < -Tolerance {
			t.Fatalf("accepted timestamp %d, %s away from now", sec, d)
		}
		want := computeMAC(key, id, ts, body)
		for _, c := range strings.Fields(sig) {
			v, enc, _ := strings.Cut(c, ",")
			if got, err := base64.StdEncoding.DecodeString(enc); v == "v1" && err == nil && bytes.Equal(got, want) {
				return
			}
		}
		t.Fatalf("accepted signature %q, which carries no true MAC", sig)
	})
}
