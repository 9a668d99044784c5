package tokenkeys

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tink-crypto/tink-go/v2/keyset"
	"github.com/tink-crypto/tink-go/v2/mac"
)

// must is v, and fails the test (by panicking) on err: for the steps a test builds on.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func parse(t testing.TB, raw []byte) *Keys {
	t.Helper()
	return must(Parse(raw))
}

// rotation is a keyset through each step of a rotation from key 1 to key 2.
type rotation struct{ old, added, promoted, retired []byte }

func rotate(t testing.TB) rotation {
	t.Helper()
	var r rotation
	r.old = must(Create())
	oldID := must(List(r.old))[0].ID
	var newID uint32
	var err error
	r.added, newID, err = Add(r.old)
	if err != nil {
		t.Fatal(err)
	}
	r.promoted = must(Promote(r.added, newID))
	r.retired = must(Retire(r.promoted, oldID))
	return r
}

// TestSealOpen: a token opens on every replica holding its key, through a rotation, and
// nowhere else: not under another keyset, another purpose, once its key is retired, or altered.
func TestSealOpen(t *testing.T) {
	r := rotate(t)
	msg := []byte(`{"t":1700000000,"id":"ord_x"}`)
	tok := parse(t, r.old).For("cursor").Seal(msg)
	if strings.Contains(tok, "ord_x") || strings.Contains(tok, base64.RawURLEncoding.EncodeToString(msg)[:8]) {
		t.Errorf("token %s shows its plaintext", tok)
	}
	for name, raw := range map[string][]byte{
		"another replica": r.old,
		"key added":       r.added,
		"key promoted":    r.promoted,
	} {
		if got, err := parse(t, raw).For("cursor").Open(tok); err != nil || string(got) != string(msg) {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
	// The promoted key seals, and only keysets holding it open its tokens.
	fresh := parse(t, r.promoted).For("cursor").Seal(msg)
	if _, err := parse(t, r.added).For("cursor").Open(fresh); err != nil {
		t.Errorf("a replica with the added key cannot open the promoted key's token: %v", err)
	}
	if _, err := parse(t, r.old).For("cursor").Open(fresh); !errors.Is(err, ErrInvalid) {
		t.Errorf("a replica without the new key opened its token: %v", err)
	}

	flipped := []byte(tok)
	flipped[len(flipped)/2] ^= 1
	for name, c := range map[string]struct {
		keys    []byte
		purpose string
		tok     string
	}{
		"retired key":     {r.retired, "cursor", tok},
		"another keyset":  {must(Create()), "cursor", tok},
		"another purpose": {r.old, "quoteId", tok},
		"altered":         {r.old, "cursor", string(flipped)},
		"truncated":       {r.old, "cursor", tok[:len(tok)-2]},
		"not base64":      {r.old, "cursor", tok + "!"},
		"prefix only":     {r.old, "cursor", tok[:7]},
		"empty":           {r.old, "cursor", ""},
	} {
		if got, err := parse(t, c.keys).For(c.purpose).Open(c.tok); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: opened as %q (%v)", name, got, err)
		}
	}
}

// TestTokenSize pins what Tink adds to a payload: 5 bytes of key prefix, a 24-byte nonce and a
// 16-byte tag, in base64url.
func TestTokenSize(t *testing.T) {
	msg := bytes.Repeat([]byte("x"), 30)
	if got, want := len(Random().For("cursor").Seal(msg)), base64.RawURLEncoding.EncodedLen(len(msg)+45); got != want {
		t.Errorf("a %d-byte payload seals to %d characters, want %d", len(msg), got, want)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keys")
	for name, c := range map[string]struct {
		file    string
		wantErr string
	}{
		"created keyset": {string(must(Create())), ""},
		"earlier line format": {"k1 " + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("a"), 32)) + "\n",
			"swaprouter quote-keys create"},
		"comment first":   {"# sealing key first\nk1 YWFh\n", "swaprouter quote-keys create"},
		"empty":           {"", "reading the Tink JSON keyset"},
		"broken JSON":     {`{"primaryKeyId": 1, "key": [`, "reading the Tink JSON keyset"},
		"a MAC keyset":    {string(macKeyset(t)), "not a keyset of AEAD keys"},
		"without primary": {string(withoutPrimary(t)), "primary key"},
	} {
		if err := os.WriteFile(p, []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := Load(p)
		switch {
		case c.wantErr == "" && (err != nil || k == nil):
			t.Errorf("%s: %v", name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), p)):
			t.Errorf("%s: error %v, want one naming the file and %q", name, err, c.wantErr)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func macKeyset(t *testing.T) []byte {
	t.Helper()
	return must(write(must(keyset.NewHandle(mac.HMACSHA256Tag256KeyTemplate()))))
}

// withoutPrimary is a created keyset whose primaryKeyId names no key of it.
func withoutPrimary(t *testing.T) []byte {
	t.Helper()
	var ks map[string]any
	if err := json.Unmarshal(must(Create()), &ks); err != nil {
		t.Fatal(err)
	}
	ks["primaryKeyId"] = uint32(ks["primaryKeyId"].(float64)) ^ 1
	return must(json.Marshal(ks))
}

// TestKeysetVerbs: each step of a rotation shows in the listing, and the steps that would
// leave no sealing key, or name a key the keyset lacks, are refused.
func TestKeysetVerbs(t *testing.T) {
	r := rotate(t)
	ids := func(raw []byte) (primary uint32, all []uint32) {
		for _, k := range must(List(raw)) {
			if k.Status != "ENABLED" || !strings.HasSuffix(k.Type, "XChaCha20Poly1305Key") {
				t.Errorf("key %+v", k)
			}
			if k.Primary {
				primary = k.ID
			}
			all = append(all, k.ID)
		}
		return primary, all
	}
	oldPrimary, oldAll := ids(r.old)
	addedPrimary, addedAll := ids(r.added)
	promotedPrimary, promotedAll := ids(r.promoted)
	_, retiredAll := ids(r.retired)
	newID := addedAll[1]
	if len(oldAll) != 1 || addedPrimary != oldPrimary || len(addedAll) != 2 || promotedPrimary != newID ||
		len(promotedAll) != 2 || len(retiredAll) != 1 || retiredAll[0] != newID {
		t.Errorf("rotation: old %v, added %v (primary %d), promoted %v (primary %d), retired %v",
			oldAll, addedAll, addedPrimary, promotedAll, promotedPrimary, retiredAll)
	}
	if _, err := Retire(r.promoted, newID); err == nil {
		t.Error("the primary key was retired")
	}
	if _, err := Promote(r.old, newID); err == nil {
		t.Error("a key the keyset lacks was promoted")
	}
	if _, err := Retire(r.old, newID); err == nil {
		t.Error("a key the keyset lacks was retired")
	}
	if _, _, err := Add([]byte("k1 YWFh")); err == nil || !strings.Contains(err.Error(), "swaprouter quote-keys create") {
		t.Errorf("adding to a file of the earlier format: %v", err)
	}
}
