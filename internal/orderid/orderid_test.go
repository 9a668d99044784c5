package orderid

import (
	"strings"
	"testing"
)

func TestNewIsValidAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := New()
		if !Valid(id) {
			t.Fatalf("invalid id %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
}

func TestForIdempotencyKey(t *testing.T) {
	a := ForIdempotencyKey("ns", "acme", "k1")
	if !Valid(a) {
		t.Fatalf("invalid %q", a)
	}
	if a != ForIdempotencyKey("ns", "acme", "k1") {
		t.Error("not deterministic")
	}
	for _, other := range [][3]string{
		{"ns", "acme", "k2"}, {"ns", "other", "k1"}, {"ns2", "acme", "k1"},
		{"ns", "acm", "ek1"}, // part boundaries matter
	} {
		if ForIdempotencyKey(other[0], other[1], other[2]) == a {
			t.Errorf("%v collides with (ns, acme, k1)", other)
		}
	}
}

func TestValid(t *testing.T) {
	tests := map[string]bool{
		"ord_" + strings.Repeat("a", 26):       true,
		"ord_" + strings.Repeat("2", 26):       true,
		"ord_" + strings.Repeat("a", 25):       false,
		"ord_" + strings.Repeat("a", 27):       false,
		"ord_" + strings.Repeat("A", 26):       false,
		"ord_" + strings.Repeat("1", 26):       false,
		"ord-" + strings.Repeat("a", 26):       false,
		"":                                     false,
		"ord_" + strings.Repeat("a", 25) + "/": false,
	}
	for in, want := range tests {
		if got := Valid(in); got != want {
			t.Errorf("Valid(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestObjectName(t *testing.T) {
	if got := ObjectName("ord_abc"); got != "ord-abc" {
		t.Errorf("got %q", got)
	}
}

func TestRequestHash(t *testing.T) {
	h := RequestHash("k", []byte(`{"a":1}`))
	if len(h) != 64 || strings.ToLower(h) != h {
		t.Errorf("not lowercase hex sha256: %q", h)
	}
	if h == RequestHash("k", []byte(`{"a":2}`)) || h == RequestHash("k2", []byte(`{"a":1}`)) {
		t.Error("hash ignores its inputs")
	}
}
