package v1alpha1_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// The statuses and substatuses are declared once in Go (OrderStatuses, SubstatusStatuses and
// their Enum markers) and once in the OpenAPI source (the OrderStatus and Substatus schemas);
// the CRD and the README's substatus table say the same.

func statusNames() []string { return toStrings(swapv1.OrderStatuses) }

func substatusNames() []string {
	var out []string
	for s := range maps.Keys(swapv1.SubstatusStatuses) {
		out = append(out, string(s))
	}
	slices.Sort(out)
	return out
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), path))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// at walks doc along path (map keys and slice indexes).
func at(t *testing.T, doc any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := doc.(map[string]any)
			if !ok {
				t.Fatalf("no %q in %v", k, path)
			}
			doc = m[k]
		case int:
			s, ok := doc.([]any)
			if !ok || k >= len(s) {
				t.Fatalf("no [%d] in %v", k, path)
			}
			doc = s[k]
		}
	}
	return doc
}

func strs(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

func TestCRDEnumsAreTheGoLists(t *testing.T) {
	crd := readYAML(t, "config/crd/bases/swap.swaprouter.dev_swaporders.yaml")
	status := at(t, crd, "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "status", "properties")
	if got := strs(at(t, status, "status", "enum")); !slices.Equal(got, statusNames()) {
		t.Errorf("CRD status enum %v, Go OrderStatuses %v", got, statusNames())
	}
	if got := sorted(strs(at(t, status, "substatus", "enum"))); !slices.Equal(got, substatusNames()) {
		t.Errorf("CRD substatus enum %v, Go SubstatusStatuses %v", got, substatusNames())
	}
}

func TestOpenAPISourceDeclaresEachListOnce(t *testing.T) {
	doc := readYAML(t, "apiserver/openapi-source.yaml")
	schemas := at(t, doc, "components", "schemas")
	if got := strs(at(t, schemas, "OrderStatus", "enum")); !slices.Equal(got, statusNames()) {
		t.Errorf("OrderStatus schema %v, Go OrderStatuses %v", got, statusNames())
	}
	if got := sorted(strs(at(t, schemas, "Substatus", "enum"))); !slices.Equal(got, substatusNames()) {
		t.Errorf("Substatus schema %v, Go SubstatusStatuses %v", got, substatusNames())
	}
	// Every other place refers to those two schemas: no enum elsewhere names a status or a
	// substatus.
	named := map[string]bool{}
	for _, s := range append(statusNames(), substatusNames()...) {
		named[s] = true
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch n := v.(type) {
		case map[string]any:
			if enum, ok := n["enum"].([]any); ok && path != "/components/schemas/OrderStatus" && path != "/components/schemas/Substatus" {
				for _, e := range enum {
					if s, ok := e.(string); ok && named[s] {
						t.Errorf("%s declares an enum with %s: refer to #/components/schemas/OrderStatus or Substatus instead", path, s)
						break
					}
				}
			}
			for k, c := range n {
				walk(path+"/"+k, c)
			}
		case []any:
			for _, c := range n {
				walk(path+"/[]", c)
			}
		}
	}
	walk("", doc)
}

// The README's substatus table: a row per substatus (a row may name several), with the
// statuses it stands beside.
func TestREADMESubstatusTableIsTheGoList(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "| substatus | status | meaning |\n|---|---|---|\n")
	if !ok {
		t.Fatal("README.md has no substatus table (| substatus | status | meaning |)")
	}
	code := regexp.MustCompile("`([A-Z_]+)`")
	documented := map[swapv1.OrderSubstatus][]swapv1.OrderStatus{}
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			t.Fatalf("README substatus row %q has no status column", line)
		}
		var statuses []swapv1.OrderStatus
		for _, s := range strings.Split(cells[2], ",") {
			statuses = append(statuses, swapv1.OrderStatus(strings.TrimSpace(s)))
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			documented[swapv1.OrderSubstatus(m[1])] = statuses
		}
	}
	for sub, want := range swapv1.SubstatusStatuses {
		got, ok := documented[sub]
		if !ok {
			t.Errorf("README's substatus table has no row for %s", sub)
			continue
		}
		if !slices.Equal(sorted(toStrings(got)), sorted(toStrings(want))) {
			t.Errorf("README: %s stands beside %v; SubstatusStatuses says %v", sub, got, want)
		}
	}
	for sub := range documented {
		if _, ok := swapv1.SubstatusStatuses[sub]; !ok {
			t.Errorf("README's substatus table lists %s, which is no substatus", sub)
		}
	}
}

func toStrings(ss []swapv1.OrderStatus) []string {
	var out []string
	for _, s := range ss {
		out = append(out, string(s))
	}
	return out
}
