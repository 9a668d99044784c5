package seal

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	keyA = strings.Repeat("a", 32)
	keyB = strings.Repeat("b", 32)
)

func keyring(t *testing.T, pairs ...[2]string) *Keyring {
	t.Helper()
	k, err := NewKeyring(pairs...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSealOpen: a token opens on every replica holding its key, through a rotation, and
// nowhere else: not under another key, another purpose, or once altered.
func TestSealOpen(t *testing.T) {
	msg := []byte(`{"t":1700000000,"id":"ord_x"}`)
	tok := keyring(t, [2]string{"k1", keyA}).Sealer("cursor").Seal(msg)
	if strings.Contains(tok, "ord_x") || strings.Contains(tok, base64.RawURLEncoding.EncodeToString(msg)[:8]) {
		t.Errorf("token %s shows its plaintext", tok)
	}
	for name, k := range map[string]*Keyring{
		"another replica":  keyring(t, [2]string{"k1", keyA}),
		"rotating":         keyring(t, [2]string{"k1", keyA}, [2]string{"k2", keyB}),
		"rotated":          keyring(t, [2]string{"k2", keyB}, [2]string{"k1", keyA}),
		"old key loaded 2": keyring(t, [2]string{"k0", keyB}, [2]string{"k1", keyA}),
	} {
		if got, err := k.Sealer("cursor").Open(tok); err != nil || string(got) != string(msg) {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
	flipped := []byte(tok)
	flipped[len(flipped)-1] ^= 2
	for name, c := range map[string]struct {
		k   *Keyring
		tok string
	}{
		"removed key":            {keyring(t, [2]string{"k2", keyB}), tok},
		"same kid, other secret": {keyring(t, [2]string{"k1", keyB}), tok},
		"other purpose":          {keyring(t, [2]string{"k1", keyA}), ""},
		"altered":                {keyring(t, [2]string{"k1", keyA}), string(flipped)},
		"truncated":              {keyring(t, [2]string{"k1", keyA}), tok[:len(tok)-2]},
		"kid only":               {keyring(t, [2]string{"k1", keyA}), "k1."},
		"no kid":                 {keyring(t, [2]string{"k1", keyA}), strings.TrimPrefix(tok, "k1.")},
		"empty":                  {keyring(t, [2]string{"k1", keyA}), ""},
	} {
		purpose := "cursor"
		if name == "other purpose" {
			purpose, c.tok = "quoteId", tok
		}
		if _, err := c.k.Sealer(purpose).Open(c.tok); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: opened (%v)", name, err)
		}
	}
}

func TestNewKeyringRefuses(t *testing.T) {
	for name, pairs := range map[string][][2]string{
		"none":      nil,
		"short":     {{"k1", "short"}},
		"bad kid":   {{"k 1", keyA}},
		"duplicate": {{"k1", keyA}, {"k1", keyB}},
	} {
		if _, err := NewKeyring(pairs...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keys")
	enc := base64.StdEncoding.EncodeToString
	_ = os.WriteFile(p, []byte("# sealing key first\nk2 "+enc([]byte(keyB))+"\n\nk1 "+enc([]byte(keyA))+"\n"), 0o600)
	k, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.Sealer("x").Seal(nil), "k2.") {
		t.Error("the first line does not seal")
	}
	_ = os.WriteFile(p, []byte("k1 "+enc([]byte("short"))+"\n"), 0o600)
	if _, err := Load(p); err == nil {
		t.Error("a short key was accepted")
	}
	_ = os.WriteFile(p, []byte("k1\n"), 0o600)
	if _, err := Load(p); err == nil {
		t.Error("a line without a secret was accepted")
	}
}
