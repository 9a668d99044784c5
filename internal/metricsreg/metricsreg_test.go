package metricsreg

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

func counter(help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "metricsreg_test_total", Help: help}, []string{"kind"})
}

// A second component registering the same metric with the same registry counts into the
// first one's series; each registry keeps its own.
func TestRegisterSharesOnlyWithinOneRegistry(t *testing.T) {
	one, other := prometheus.NewRegistry(), prometheus.NewRegistry()
	a := MustRegister(one, counter("Things."))
	b := MustRegister(one, counter("Things."))
	c := MustRegister(other, counter("Things."))
	a.WithLabelValues("x").Inc()
	b.WithLabelValues("x").Inc()
	c.WithLabelValues("x").Inc()
	if got := testutil.ToFloat64(a.WithLabelValues("x")); got != 2 {
		t.Errorf("the shared registry counted %v, want 2", got)
	}
	if got := testutil.ToFloat64(c.WithLabelValues("x")); got != 1 {
		t.Errorf("the other registry counted %v, want its own 1", got)
	}
}

// The same name with another definition is refused, not shared.
func TestRegisterRefusesAnotherDefinition(t *testing.T) {
	reg := prometheus.NewRegistry()
	MustRegister(reg, counter("Things."))
	if _, err := Register(reg, counter("Other things.")); err == nil {
		t.Error("a second definition of metricsreg_test_total was accepted")
	}
}

func TestNilIsControllerRuntimesRegistry(t *testing.T) {
	if OrDefault(nil) != ctrlmetrics.Registry {
		t.Error("nil is not controller-runtime's registry")
	}
	reg := prometheus.NewRegistry()
	if OrDefault(reg) != reg {
		t.Error("a given registry is replaced")
	}
}
