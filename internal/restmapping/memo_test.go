package restmapping

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// countingMapper finds only orders, and counts the questions it is asked.
type countingMapper struct {
	meta.RESTMapper
	asked int
}

var orders = schema.GroupVersionKind{Group: "swap.example", Version: "v1alpha1", Kind: "SwapOrder"}

func (c *countingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	c.asked++
	if gk != orders.GroupKind() {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return &meta.RESTMapping{GroupVersionKind: orders, Scope: meta.RESTScopeNamespace,
		Resource: orders.GroupVersion().WithResource("swaporders")}, nil
}

func TestMemoAsksOncePerFoundMapping(t *testing.T) {
	inner := &countingMapper{}
	m := &Memo{RESTMapper: inner}
	for range 3 {
		got, err := m.RESTMapping(orders.GroupKind(), orders.Version)
		if err != nil {
			t.Fatal(err)
		}
		if got.Scope.Name() != meta.RESTScopeNameNamespace || got.Resource.Resource != "swaporders" {
			t.Fatalf("mapping %+v", got)
		}
		got.Resource.Resource = "changed by a caller"
	}
	if inner.asked != 1 {
		t.Errorf("the wrapped mapper was asked %d times for one mapping, want 1", inner.asked)
	}

	// A miss is not remembered: a CRD installed later is found.
	unknown := schema.GroupKind{Group: "swap.example", Kind: "Later"}
	for range 2 {
		if _, err := m.RESTMapping(unknown); !meta.IsNoMatchError(err) {
			t.Fatalf("error %v", err)
		}
	}
	if inner.asked != 3 {
		t.Errorf("the wrapped mapper was asked %d times in all, want 3 (misses asked again)", inner.asked)
	}
}
