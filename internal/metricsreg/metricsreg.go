// Package metricsreg registers a component's metrics with the registerer it is given, so
// each manager, frontend or test in one process can keep its own series.
package metricsreg

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// OrDefault is reg, or controller-runtime's registry (the one the manager's metrics server
// serves) when reg is nil.
func OrDefault(reg prometheus.Registerer) prometheus.Registerer {
	if reg == nil {
		return ctrlmetrics.Registry
	}
	return reg
}

// Register registers c with reg (nil: controller-runtime's registry). When reg already holds
// an equal collector, because a second component registered the same metrics with it, it
// returns that one, so both count into the same series.
func Register[T prometheus.Collector](reg prometheus.Registerer, c T) (T, error) {
	err := OrDefault(reg).Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(T); ok {
			return existing, nil
		}
	}
	return c, err
}

// MustRegister is Register for metrics whose definitions are fixed in the code: any other
// error (the same name with another help text or label set) is a programming error.
func MustRegister[T prometheus.Collector](reg prometheus.Registerer, c T) T {
	c, err := Register(reg, c)
	if err != nil {
		panic(err)
	}
	return c
}
