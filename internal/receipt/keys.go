// Package receipt signs and verifies order receipts: compact JWS (EdDSA, Ed25519) that a
// partner can keep and verify offline against the service's published keys (a JSON Web Key
// Set). The keys live in the frontend's Secret; the first signs, all verify.
package receipt

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// SecretKey is the data key of the frontend's Secret (auth.FrontendSecret) that holds the
// signing keys: a JSON Web Key Set of Ed25519 private keys (kty OKP, crv Ed25519, kid, x, d).
// The first key signs; every key in it verifies and is published.
const SecretKey = "receipt-signing-keys"

// Keys are the receipt signing keys, the signing one first.
type Keys struct{ set jose.JSONWebKeySet }

// ParseKeys reads a key set as stored under SecretKey. It must hold at least one key, each
// an Ed25519 private key with a unique kid.
func ParseKeys(data []byte) (*Keys, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("receipt keys: %w", err)
	}
	if len(set.Keys) == 0 {
		return nil, errors.New("receipt keys: the key set is empty")
	}
	seen := map[string]bool{}
	for _, k := range set.Keys {
		if _, ok := k.Key.(ed25519.PrivateKey); !ok {
			return nil, fmt.Errorf("receipt keys: key %q is not an Ed25519 private key", k.KeyID)
		}
		if k.KeyID == "" || seen[k.KeyID] {
			return nil, fmt.Errorf("receipt keys: every key needs its own kid (%q)", k.KeyID)
		}
		seen[k.KeyID] = true
	}
	return &Keys{set: set}, nil
}

// Public is the JSON Web Key Set partners verify receipts with.
func (k *Keys) Public() jose.JSONWebKeySet {
	out := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(k.set.Keys))}
	for _, key := range k.set.Keys {
		out.Keys = append(out.Keys, key.Public())
	}
	return out
}

// Sign returns payload's JSON as a compact JWS signed with the first key (EdDSA, header
// kid). Ed25519 signatures are deterministic, so equal payloads give equal receipts.
func (k *Keys) Sign(payload any) (string, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: k.set.Keys[0]}, nil)
	if err != nil {
		return "", fmt.Errorf("receipt signer: %w", err)
	}
	jws, err := signer.Sign(body)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// Verify checks a compact JWS receipt against a published key set (the key its kid names)
// and returns its payload.
func Verify(receipt string, keys jose.JSONWebKeySet) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(receipt, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		return nil, fmt.Errorf("not a compact EdDSA JWS: %w", err)
	}
	// The last character of a segment carries bits a lenient decoder drops (and go-jose
	// re-encodes what it decoded): only the canonical encoding is the receipt.
	for _, segment := range strings.Split(receipt, ".") {
		if _, err := base64.RawURLEncoding.Strict().DecodeString(segment); err != nil {
			return nil, fmt.Errorf("not canonical base64url: %w", err)
		}
	}
	kid := jws.Signatures[0].Header.KeyID
	candidates := keys.Key(kid)
	if kid == "" || len(candidates) == 0 {
		return nil, fmt.Errorf("no key %q in the key set", kid)
	}
	payload, err := jws.Verify(candidates[0].Public())
	if err != nil {
		return nil, fmt.Errorf("signature: %w", err)
	}
	return payload, nil
}

// Rotate puts a fresh key in front of the key set stored as data (empty: none yet): it
// signs from now on, the older keys still verify. It returns the new set and the new kid.
func Rotate(data []byte) ([]byte, string, error) {
	var set jose.JSONWebKeySet
	if len(data) > 0 {
		keys, err := ParseKeys(data)
		if err != nil {
			return nil, "", err
		}
		set = keys.set
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, "", err
	}
	key := jose.JSONWebKey{Key: priv, Algorithm: string(jose.EdDSA), Use: "sig"}
	thumb, err := key.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, "", err
	}
	// The RFC 7638 thumbprint: unique per key, and anyone can recompute it from the JWKS.
	key.KeyID = base64.RawURLEncoding.EncodeToString(thumb)
	set.Keys = append([]jose.JSONWebKey{key}, set.Keys...)
	out, err := json.Marshal(set)
	return out, key.KeyID, err
}

// Retire removes kid from the key set stored as data; receipts it signed stop verifying.
// The signing key (the first) cannot be retired: rotate first.
func Retire(data []byte, kid string) ([]byte, error) {
	keys, err := ParseKeys(data)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(keys.set.Keys, func(k jose.JSONWebKey) bool { return k.KeyID == kid })
	switch {
	case i < 0:
		return nil, fmt.Errorf("no receipt key %q", kid)
	case i == 0:
		return nil, fmt.Errorf("receipt key %q signs; rotate to a new key before retiring it", kid)
	}
	keys.set.Keys = slices.Delete(keys.set.Keys, i, i+1)
	return json.Marshal(keys.set)
}
