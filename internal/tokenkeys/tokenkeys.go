// Package tokenkeys makes the service's opaque tokens (quoteIds, listing cursors, event stream
// tokens and positions) with a Tink AEAD keyset every frontend replica shares: a payload
// encrypted and authenticated, so a client can neither read nor alter it. Each purpose passes
// its name as the associated data, so a token of one kind never opens as another.
//
// The keyset is a cleartext Tink JSON keyset file, as a Kubernetes Secret holds it (see
// keyset.go to make and rotate one). Its primary key seals, every enabled key opens: a key is
// rotated by adding it everywhere, then making it primary, then retiring the old one once the
// tokens it sealed are no longer needed.
package tokenkeys

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/insecurecleartextkeyset"
	"github.com/tink-crypto/tink-go/v2/keyset"
	"github.com/tink-crypto/tink-go/v2/tink"
)

// Keys are a keyset's AEAD: the primary key seals, every enabled key opens.
type Keys struct{ aead tink.AEAD }

// Random is a keyset of one fresh key: its tokens only open in this process (dev, tests).
func Random() *Keys {
	h, err := keyset.NewHandle(template())
	if err != nil {
		panic(err) // only for a template Tink does not know; template() is one of its own
	}
	k, err := fromHandle(h)
	if err != nil {
		panic(err) // a fresh handle of an AEAD template has a primary AEAD key
	}
	return k
}

// Load reads a Tink JSON keyset file, as `swaprouter quote-keys create` writes one.
func Load(path string) (*Keys, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// Parse reads a Tink JSON keyset of AEAD keys with a primary.
func Parse(raw []byte) (*Keys, error) {
	h, err := readHandle(raw)
	if err != nil {
		return nil, err
	}
	return fromHandle(h)
}

func fromHandle(h *keyset.Handle) (*Keys, error) {
	a, err := aead.New(h)
	if err != nil {
		return nil, fmt.Errorf("not a keyset of AEAD keys with a primary: %w", err)
	}
	return &Keys{aead: a}, nil
}

// readHandle parses a cleartext JSON keyset; the earlier "<kid> <base64 secret>" lines get an
// error that says what to do instead of a JSON parser's complaint.
func readHandle(raw []byte) (*keyset.Handle, error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] != '{' {
		return nil, errors.New(`not a Tink JSON keyset (the "<kid> <base64 secret>" lines of earlier versions are no longer read): make one with "swaprouter quote-keys create"`)
	}
	h, err := insecurecleartextkeyset.Read(keyset.NewJSONReader(bytes.NewReader(raw)))
	if err != nil {
		return nil, fmt.Errorf("reading the Tink JSON keyset: %w", err)
	}
	return h, nil
}

// Tokens seals and opens the tokens of one purpose.
type Tokens struct {
	aead    tink.AEAD
	purpose []byte
}

// For returns the tokens of purpose (e.g. "quoteId"): sealed with the purpose as associated
// data, they open for that purpose only.
func (k *Keys) For(purpose string) *Tokens {
	return &Tokens{aead: k.aead, purpose: []byte("swaprouter token " + purpose)}
}

// b64 is strict, so a token has one spelling: no character of it can change unnoticed.
var b64 = base64.RawURLEncoding.Strict()

// ErrInvalid: the token was not sealed by these keys for this purpose (malformed, unknown
// key, altered).
var ErrInvalid = errors.New("not a token issued by this service")

// Seal returns the base64url of the primary key's ciphertext of plaintext: Tink's 5-byte key
// prefix, then the nonce, ciphertext and tag.
func (t *Tokens) Seal(plaintext []byte) string {
	ct, err := t.aead.Encrypt(plaintext, t.purpose)
	if err != nil {
		panic(err) // only when the system's random source fails
	}
	return b64.EncodeToString(ct)
}

// Open returns the plaintext of a token Seal made with any enabled key, or ErrInvalid.
func (t *Tokens) Open(token string) ([]byte, error) {
	ct, err := b64.DecodeString(token)
	if err != nil {
		return nil, ErrInvalid
	}
	plain, err := t.aead.Decrypt(ct, t.purpose)
	if err != nil {
		return nil, ErrInvalid
	}
	return plain, nil
}
