// Package orderid makes public order ids and the SwapOrder names derived from them.
//
// An id is "ord_" followed by 26 lowercase base32 characters (130 bits). Without an
// Idempotency-Key the bits are random; with one they are derived from (namespace, partner, key),
// so every retry of a request maps to the same SwapOrder name and the API server's
// AlreadyExists is the idempotency lock — no second order and no second deposit address.
package orderid

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"regexp"
	"strings"
)

// Prefix starts every order id.
const Prefix = "ord_"

// encodedLen is the number of base32 characters after the prefix.
const encodedLen = 26

var (
	encoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)
	valid    = regexp.MustCompile(`^ord_[a-z2-7]{26}$`)
)

// New returns a fresh random order id.
func New() string {
	var b [20]byte // 160 random bits, the first 130 are used
	if _, err := rand.Read(b[:]); err != nil {
		panic("orderid: crypto/rand failed: " + err.Error())
	}
	return encode(b[:])
}

// ForIdempotencyKey returns the id every request of partner (in namespace) carrying key maps to.
// Length-prefixing each part keeps ("a","bc") and ("ab","c") apart.
func ForIdempotencyKey(namespace, partner, key string) string {
	h := sha256.New()
	for _, part := range []string{"swaprouter.order.v1", namespace, partner, key} {
		h.Write([]byte{byte(len(part) >> 8), byte(len(part))})
		h.Write([]byte(part))
	}
	return encode(h.Sum(nil))
}

func encode(b []byte) string {
	return Prefix + encoding.EncodeToString(b)[:encodedLen]
}

// Valid reports whether s has the shape of an order id.
func Valid(s string) bool { return valid.MatchString(s) }

// ObjectName is the SwapOrder name of an order id ("_" is not allowed in object names).
func ObjectName(id string) string { return strings.ReplaceAll(id, "_", "-") }

// RequestHash fingerprints an idempotent request: the key and the request as the server
// understood it (canonical bytes, so whitespace or field order do not matter). Stored in
// spec.idempotencyKeyHash; a retry with another hash is a different request under the same key.
func RequestHash(key string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
}
