package receipt

import (
	"encoding/json"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

func mustKeys(t *testing.T, data []byte) *Keys {
	t.Helper()
	k, err := ParseKeys(data)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func signed(t *testing.T, k *Keys, orderID string) string {
	t.Helper()
	r, err := k.Sign(map[string]any{"orderId": orderID, "final": true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSignedReceiptVerifiesWithThePublishedKeys(t *testing.T) {
	data, kid, err := Rotate(nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := mustKeys(t, data)
	r := signed(t, keys, "ord_a")
	if again := signed(t, keys, "ord_a"); again != r {
		t.Fatalf("the same payload signed twice differs:\n%s\n%s", r, again)
	}
	pub := keys.Public()
	published, _ := json.Marshal(pub)
	if strings.Contains(string(published), `"d"`) {
		t.Fatalf("the published key set holds a private key: %s", published)
	}
	if k := pub.Keys[0]; k.KeyID != kid || k.Algorithm != "EdDSA" {
		t.Fatalf("published key = %+v, want kid %s alg EdDSA", k, kid)
	}
	payload, err := Verify(r, pub)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		OrderID string `json:"orderId"`
		Final   bool   `json:"final"`
	}
	if err := json.Unmarshal(payload, &got); err != nil || got.OrderID != "ord_a" || !got.Final {
		t.Fatalf("payload = %s (%v)", payload, err)
	}
	header, _, _ := strings.Cut(r, ".")
	if h, err := jose.ParseSignedCompact(r, []jose.SignatureAlgorithm{jose.EdDSA}); err != nil || h.Signatures[0].Header.KeyID != kid {
		t.Fatalf("header %s does not name kid %s (%v)", header, kid, err)
	}
}

func TestChangingAnyCharacterOfAReceiptFailsVerification(t *testing.T) {
	data, _, err := Rotate(nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := mustKeys(t, data)
	r := signed(t, keys, "ord_b")
	for i := range len(r) {
		if r[i] == '.' {
			continue
		}
		// The neighbouring base64url character: for the last character of a segment this
		// changes only the bits a lenient decoder would drop.
		alphabet := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		j := strings.IndexByte(alphabet, r[i])
		tampered := r[:i] + string(alphabet[j^1]) + r[i+1:]
		if _, err := Verify(tampered, keys.Public()); err == nil {
			t.Fatalf("changing character %d (%q → %q) still verifies", i, r[i], alphabet[j^1])
		}
	}
}

func TestRotationKeepsOldReceiptsVerifyingAndSignsWithTheNewKey(t *testing.T) {
	first, oldKid, err := Rotate(nil)
	if err != nil {
		t.Fatal(err)
	}
	old := signed(t, mustKeys(t, first), "ord_old")
	second, newKid, err := Rotate(first)
	if err != nil {
		t.Fatal(err)
	}
	keys := mustKeys(t, second)
	if _, err := Verify(old, keys.Public()); err != nil {
		t.Fatalf("a receipt of the old key no longer verifies: %v", err)
	}
	fresh := signed(t, keys, "ord_new")
	h, _ := jose.ParseSignedCompact(fresh, []jose.SignatureAlgorithm{jose.EdDSA})
	if kid := h.Signatures[0].Header.KeyID; kid != newKid || kid == oldKid {
		t.Fatalf("signed with kid %s, want the new key %s", kid, newKid)
	}
	if _, err := Retire(second, newKid); err == nil {
		t.Fatal("the signing key was retired")
	}
	third, err := Retire(second, oldKid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(old, mustKeys(t, third).Public()); err == nil {
		t.Fatal("a receipt of a retired key still verifies")
	}
}

func TestParseKeysRefusesWhatCannotSign(t *testing.T) {
	pubOnly, _ := json.Marshal(mustKeys(t, must(Rotate(nil))).Public())
	for name, data := range map[string]string{
		"empty set":   `{"keys":[]}`,
		"not json":    `keys`,
		"public only": string(pubOnly),
	} {
		if _, err := ParseKeys([]byte(data)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func must(data []byte, _ string, err error) []byte {
	if err != nil {
		panic(err)
	}
	return data
}
