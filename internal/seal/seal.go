// Package seal makes the service's opaque tokens (quoteIds, listing cursors): a payload
// encrypted and authenticated with XChaCha20-Poly1305, so a client can neither read nor alter
// it, under a keyring every frontend replica shares. Each purpose seals with its own key,
// derived from the keyring's secret with HKDF-SHA256, so a token of one kind never opens as
// another.
//
// Keys come from a file (one "<kid> <base64 secret>" per line). The first line seals, every
// line opens, so a key is rotated by adding the new one as a second line on every replica,
// then moving it first, then removing the old one once its tokens are no longer needed.
package seal

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
)

// Keyring holds the secrets; the first seals.
type Keyring struct {
	ids     []string
	secrets map[string][]byte
}

var kidRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// minKeyLen: shorter secrets are guessable.
const minKeyLen = 32

// NewKeyring returns a keyring of (kid, secret) pairs; the first seals.
func NewKeyring(pairs ...[2]string) (*Keyring, error) {
	k := &Keyring{secrets: map[string][]byte{}}
	for _, p := range pairs {
		kid, secret := p[0], []byte(p[1])
		if !kidRE.MatchString(kid) {
			return nil, fmt.Errorf("key id %q: want 1-32 of A-Z a-z 0-9 _ -", kid)
		}
		if len(secret) < minKeyLen {
			return nil, fmt.Errorf("key %s: want at least %d bytes", kid, minKeyLen)
		}
		if _, dup := k.secrets[kid]; dup {
			return nil, fmt.Errorf("key id %s listed twice", kid)
		}
		k.ids = append(k.ids, kid)
		k.secrets[kid] = secret
	}
	if len(k.ids) == 0 {
		return nil, errors.New("no keys")
	}
	return k, nil
}

// Random is a keyring of one fresh key: its tokens only open in this process (dev, tests).
func Random() *Keyring {
	b := make([]byte, minKeyLen)
	_, _ = rand.Read(b)
	k, _ := NewKeyring([2]string{"local", string(b)})
	return k
}

// Load reads a key file: one "<kid> <base64 secret>" per line, # comments and blank lines ignored.
func Load(path string) (*Keyring, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pairs [][2]string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kid, enc, ok := strings.Cut(line, " ")
		secret, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
		if !ok || err != nil {
			return nil, fmt.Errorf("%s line %d: want <kid> <base64 secret>", path, n)
		}
		pairs = append(pairs, [2]string{kid, string(secret)})
	}
	k, err := NewKeyring(pairs...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// Sealer seals and opens the tokens of one purpose.
type Sealer struct {
	sealID string
	aeads  map[string]cipher.AEAD
}

// Sealer returns the sealer of purpose (e.g. "quoteId"): its keys are derived from every
// secret of k and purpose, so tokens sealed for one purpose do not open for another.
func (k *Keyring) Sealer(purpose string) *Sealer {
	s := &Sealer{sealID: k.ids[0], aeads: make(map[string]cipher.AEAD, len(k.ids))}
	for kid, secret := range k.secrets {
		key, err := hkdf.Key(sha256.New, secret, nil, "swaprouter token "+purpose, chacha20poly1305.KeySize)
		if err != nil {
			panic(err) // only for a key length HKDF-SHA256 cannot give; KeySize is 32
		}
		aead, err := chacha20poly1305.NewX(key)
		if err != nil {
			panic(err) // only for a key of the wrong size
		}
		s.aeads[kid] = aead
	}
	return s
}

var b64 = base64.RawURLEncoding

// ErrInvalid: the token was not sealed by this keyring for this purpose (malformed, unknown
// key, altered).
var ErrInvalid = errors.New("not a token issued by this service")

// Seal returns "<kid>.<base64url(nonce, ciphertext)>" of plaintext. The nonce is random;
// XChaCha20's 24 bytes make a repeat negligible however many tokens one key seals.
func (s *Sealer) Seal(plaintext []byte) string {
	aead := s.aeads[s.sealID]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	_, _ = rand.Read(nonce)
	return s.sealID + "." + b64.EncodeToString(aead.Seal(nonce, nonce, plaintext, []byte(s.sealID)))
}

// Open returns the plaintext of a token Seal made with any key of the keyring, or ErrInvalid.
func (s *Sealer) Open(token string) ([]byte, error) {
	kid, body, ok := strings.Cut(token, ".")
	aead, known := s.aeads[kid]
	if !ok || !known {
		return nil, ErrInvalid
	}
	raw, err := b64.DecodeString(body)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return nil, ErrInvalid
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(kid))
	if err != nil {
		return nil, ErrInvalid
	}
	return plain, nil
}
