package providertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"testing"
)

// Fetch calls a simulator endpoint with an optional JSON body and returns the 2xx answer.
func Fetch(t *testing.T, method, url string, body any) []byte {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, out)
	}
	return out
}

// FieldPaths lists the JSON key paths of a document: "quote.amountIn", array elements as
// "[]" ("swapDetails.originChainTxHashes[].hash"). A top-level array is "[]".
func FieldPaths(doc []byte) (map[string]bool, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				out[p] = true
				walk(p, c)
			}
		case []any:
			for _, c := range x {
				walk(prefix+"[]", c)
			}
		}
	}
	walk("", v)
	return out, nil
}

// CheckFields fails when the simulator's answer carries a field the provider's published model
// does not have: models are the fixtures written from the SDKs, with every field present.
func CheckFields(t *testing.T, what string, sim []byte, models ...map[string]bool) {
	t.Helper()
	got, err := FieldPaths(sim)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var extra []string
	for p := range got {
		known := false
		for _, m := range models {
			known = known || m[p]
		}
		if !known {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("%s: the simulator answers fields the real API does not have: %v", what, extra)
	}
}

// ModelFields reads the field paths of testdata fixtures, re-rooted under prefix ("" for none).
func ModelFields(t *testing.T, prefix string, files ...string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, f := range files {
		b, err := readTestdata(f)
		if err != nil {
			t.Fatal(err)
		}
		paths, err := FieldPaths(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for p := range paths {
			if prefix != "" {
				p = prefix + "." + p
			}
			out[p] = true
		}
	}
	return out
}
