package orderid

import (
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// crdOrderID and crdHash are the SwapOrder CRD's rules for spec.orderId and
// spec.idempotencyKeyHash: an id or hash the frontend makes must pass them.
var (
	crdOrderID = regexp.MustCompile(`^ord_[a-z2-7]{26}$`)
	crdHash    = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// visibleASCII is what the frontend admits as an Idempotency-Key (1 to 255 of them).
func visibleASCII(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// FuzzForIdempotencyKey: the id a (namespace, partner, key) maps to is a valid order id and
// object name, the same on every call, and different for any other triple — another partner
// reusing a key never lands on someone else's order.
func FuzzForIdempotencyKey(f *testing.F) {
	f.Add("swap", "acme", "k1", "swap", "acme", "k2")
	f.Add("swap", "acme", "k1", "swap", "globex", "k1")
	f.Add("a", "bc", "d", "ab", "c", "d")
	f.Add("swap", "acme", "", "swap", "acme", " ")
	f.Add("", "", "", "", "", "\x00")
	f.Fuzz(func(t *testing.T, ns, partner, key, ns2, partner2, key2 string) {
		id := ForIdempotencyKey(ns, partner, key)
		if !Valid(id) || !crdOrderID.MatchString(id) {
			t.Fatalf("ForIdempotencyKey(%q, %q, %q) = %q, not a valid order id", ns, partner, key, id)
		}
		if errs := validation.IsDNS1123Subdomain(ObjectName(id)); len(errs) > 0 {
			t.Fatalf("object name %q of %q: %v", ObjectName(id), id, errs)
		}
		if again := ForIdempotencyKey(ns, partner, key); again != id {
			t.Fatalf("not deterministic: %q then %q", id, again)
		}
		// Each part is length-prefixed with 16 bits; parts are far shorter in practice
		// (namespace and partner are object names, keys at most 255 bytes).
		for _, p := range []string{ns, partner, key, ns2, partner2, key2} {
			if len(p) >= 1<<16 {
				return
			}
		}
		if [3]string{ns, partner, key} != [3]string{ns2, partner2, key2} && ForIdempotencyKey(ns2, partner2, key2) == id {
			t.Fatalf("(%q, %q, %q) and (%q, %q, %q) map to the same order %s", ns, partner, key, ns2, partner2, key2, id)
		}
	})
}

// FuzzRequestHash: the fingerprint of an idempotent request is the CRD's hash form and tells
// any two different requests (or keys) apart.
func FuzzRequestHash(f *testing.F) {
	f.Add("k1", []byte(`{"amount":"1"}`), "k1", []byte(`{"amount":"2"}`))
	f.Add("k1", []byte(`x`), "k1x", []byte(``))
	f.Fuzz(func(t *testing.T, key string, body []byte, key2 string, body2 []byte) {
		h := RequestHash(key, body)
		if !crdHash.MatchString(h) {
			t.Fatalf("RequestHash = %q, not 64 lowercase hex digits", h)
		}
		if !visibleASCII(key) || !visibleASCII(key2) {
			return // the frontend refuses such keys before hashing
		}
		if (key != key2 || string(body) != string(body2)) && RequestHash(key2, body2) == h {
			t.Fatalf("(%q, %q) and (%q, %q) share the hash %s", key, body, key2, body2, h)
		}
	})
}

// FuzzValid: whatever Valid admits (a path segment of GET /v1/order/{id}) is an order id whose
// object name is valid and maps back to it; nothing else is admitted.
func FuzzValid(f *testing.F) {
	for _, s := range []string{New(), "ord_", "ord_" + strings.Repeat("a", 26), "ord_" + strings.Repeat("A", 26),
		"ord-" + strings.Repeat("a", 26), "ord_" + strings.Repeat("a", 26) + "\n", "ord_" + strings.Repeat("1", 26)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !Valid(s) {
			return
		}
		if !crdOrderID.MatchString(s) || len(s) != 30 {
			t.Fatalf("Valid(%q) but not the CRD's order id form", s)
		}
		name := ObjectName(s)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Fatalf("object name %q: %v", name, errs)
		}
		if back := strings.Replace(name, "-", "_", 1); back != s {
			t.Fatalf("object name %q does not map back to %q", name, s)
		}
	})
}
