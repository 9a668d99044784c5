package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swaprouter/swaprouter/internal/receipt"
)

// runVerify runs `swaprouter receipt verify FILE --jwks SOURCE` and returns its output.
func runVerify(t *testing.T, file, source string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"receipt", "verify", file, "--jwks", source})
	err := root.Execute()
	return out.String(), err
}

func TestReceiptVerifyChecksAgainstAKeySetFileOrURL(t *testing.T) {
	data, _, err := receipt.Rotate(nil)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := receipt.ParseKeys(data)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := keys.Sign(map[string]any{"orderId": "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa", "final": true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	set, _ := json.Marshal(keys.Public())
	jwksFile := filepath.Join(dir, "jwks.json")
	answer := filepath.Join(dir, "receipt.json")
	tampered := filepath.Join(dir, "tampered.jws")
	must(t, os.WriteFile(jwksFile, set, 0o600))
	must(t, os.WriteFile(answer, []byte(`{"receipt":"`+jws+`"}`), 0o600))
	i := strings.Index(jws, ".") + 3
	must(t, os.WriteFile(tampered, []byte(jws[:i]+string(jws[i]^1)+jws[i+1:]), 0o600))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(set) }))
	defer srv.Close()

	for _, source := range []string{jwksFile, srv.URL + "/.well-known/jwks.json"} {
		out, err := runVerify(t, answer, source)
		if err != nil || !strings.Contains(out, `"orderId": "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"`) {
			t.Errorf("verify with %s: %v\n%s", source, err, out)
		}
	}
	if out, err := runVerify(t, tampered, jwksFile); err == nil {
		t.Errorf("a changed receipt verified:\n%s", out)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
