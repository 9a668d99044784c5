package tokenkeys

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzOpen: Open answers any string with a plaintext or ErrInvalid; whatever is sealed opens
// as it was, without showing it; and a token with one character changed never opens.
func FuzzOpen(f *testing.F) {
	tokens := Random().For("fuzz")
	good := tokens.Seal([]byte(`{"id":"ord_x"}`))
	for _, s := range []string{"", good, good[:len(good)-1], good + "A", "AQAAAAA", "e30", strings.Repeat("A", 64)} {
		f.Add(s, []byte("secret payload"), uint16(7))
	}
	f.Fuzz(func(t *testing.T, token string, payload []byte, flip uint16) {
		if _, err := tokens.Open(token); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("token %q: %v", token, err)
		}
		tok := tokens.Seal(payload)
		if got, err := tokens.Open(tok); err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("payload %q came back as %q (%v)", payload, got, err)
		}
		if len(payload) >= 8 && strings.Contains(tok, string(payload)) {
			t.Fatalf("token %q shows the payload %q", tok, payload)
		}
		altered := []byte(tok)
		altered[int(flip)%len(altered)] ^= 1
		if got, err := tokens.Open(string(altered)); !errors.Is(err, ErrInvalid) {
			t.Fatalf("altered token %q opened as %q", altered, got)
		}
	})
}
