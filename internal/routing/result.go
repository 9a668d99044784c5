// Package routing fans a quote out to every enabled provider and decides the outcome.
package routing

import (
	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// ProviderError is one provider's failure in a fan-out.
type ProviderError struct {
	ProviderID swapv1.ProviderID
	Err        *provider.Error
}

// Result is the outcome of a quote fan-out: every candidate, the best one, and the failures.
type Result struct {
	Candidates []provider.Quote
	// Best is nil when no provider answered with a quote.
	Best *provider.Quote
	// BestBy is the preference that chose Best.
	BestBy Preference
	Errors []ProviderError
}
