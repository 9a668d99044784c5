package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// runQuoteKeys runs `swaprouter quote-keys ARGS` and returns what it printed.
func runQuoteKeys(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"quote-keys"}, args...))
	err := root.Execute()
	return out.String(), err
}

var listedKey = regexp.MustCompile(`(?m)^(\d+)\s+ENABLED\s+(yes)?\s*type\.googleapis\.com/google\.crypto\.tink\.XChaCha20Poly1305Key$`)

// listed is the key ids `quote-keys list FILE` prints and the one that seals.
func listed(t *testing.T, file string) (ids []string, seals string) {
	t.Helper()
	out, err := runQuoteKeys(t, "list", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range listedKey.FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
		if m[2] != "" {
			seals = m[1]
		}
	}
	return ids, seals
}

// TestQuoteKeysRotation walks the README's rotation: a token sealed before it opens at every
// step until its key is retired, the file keeps its mode, and the frontend loads every step.
func TestQuoteKeysRotation(t *testing.T) {
	created, err := runQuoteKeys(t, "create")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(file, []byte(created), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func() *tokenkeys.Tokens {
		t.Helper()
		k, err := tokenkeys.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		return k.For("quoteId")
	}
	before := load().Seal([]byte("issued before the rotation"))
	opens := func(step string, want bool) {
		t.Helper()
		if _, err := load().Open(before); (err == nil) != want {
			t.Errorf("%s: the earlier token opens: %v, want %v", step, err == nil, want)
		}
	}
	ids, old := listed(t, file)
	if len(ids) != 1 || old != ids[0] {
		t.Fatalf("created keyset lists %v sealing with %q", ids, old)
	}

	out, err := runQuoteKeys(t, "add", file)
	if err != nil {
		t.Fatal(err)
	}
	added := strings.TrimSpace(out)
	if ids, seals := listed(t, file); len(ids) != 2 || ids[1] != added || seals != old {
		t.Errorf("after add %s: %v sealing with %s", added, ids, seals)
	}
	opens("added", true)

	if _, err := runQuoteKeys(t, "promote", file, added); err != nil {
		t.Fatal(err)
	}
	if _, seals := listed(t, file); seals != added {
		t.Errorf("after promote: %s seals, want %s", seals, added)
	}
	opens("promoted", true)

	if _, err := runQuoteKeys(t, "retire", file, added); err == nil || !strings.Contains(err.Error(), "primary") {
		t.Errorf("retiring the sealing key: %v", err)
	}
	if _, err := runQuoteKeys(t, "retire", file, old); err != nil {
		t.Fatal(err)
	}
	if ids, _ := listed(t, file); len(ids) != 1 || ids[0] != added {
		t.Errorf("after retire: %v", ids)
	}
	opens("retired", false)
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the rewritten file: %v %v, want mode 0600", info.Mode(), err)
	}
}

func TestQuoteKeysRefuses(t *testing.T) {
	dir := t.TempDir()
	earlier := filepath.Join(dir, "earlier")
	content := "k1 YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE=\n"
	if err := os.WriteFile(earlier, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	created, err := runQuoteKeys(t, "create")
	if err != nil {
		t.Fatal(err)
	}
	keyset := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(keyset, []byte(created), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"add to the earlier format":  {[]string{"add", earlier}, "swaprouter quote-keys create"},
		"list the earlier format":    {[]string{"list", earlier}, "swaprouter quote-keys create"},
		"a key id that is no number": {[]string{"promote", keyset, "k1"}, "quote-keys list"},
		"a key the keyset lacks":     {[]string{"promote", keyset, "1"}, "not found"},
		"a missing file":             {[]string{"add", filepath.Join(dir, "missing")}, "no such file"},
	} {
		if _, err := runQuoteKeys(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, c.want)
		}
	}
	if got, _ := os.ReadFile(earlier); string(got) != content {
		t.Errorf("a refused add changed the file: %q", got)
	}
}
