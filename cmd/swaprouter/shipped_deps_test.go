package main

import (
	"os/exec"
	"strings"
	"testing"
)

// labPackages are what the lab needs and the image must not carry: envtest (whose init makes
// directories under /tmp and so panics under a read-only root), everything under internal/dev
// (the dev system, the local process helpers, the provider simulator), the test helpers under
// internal/testing, the benchmarks and the test frameworks.
var labPackages = []string{
	"sigs.k8s.io/controller-runtime/pkg/envtest",
	"sigs.k8s.io/controller-runtime/pkg/internal/testing/",
	"github.com/swaprouter/swaprouter/internal/testing/",
	"github.com/swaprouter/swaprouter/internal/dev/",
	"github.com/swaprouter/swaprouter/internal/bench",
	"github.com/onsi/",
	"testing",
}

// TestShippedBinaryCarriesNoLab reads the dependency graph of the shipped binary as the
// linker sees it.
func TestShippedBinaryCarriesNoLab(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps named only %d packages; the graph was not read", len(deps))
	}
	for _, dep := range deps {
		for _, lab := range labPackages {
			if dep == strings.TrimSuffix(lab, "/") || strings.HasPrefix(dep, strings.TrimSuffix(lab, "/")+"/") {
				t.Errorf("cmd/swaprouter links %s (lab package %s)", dep, lab)
			}
		}
	}
}
