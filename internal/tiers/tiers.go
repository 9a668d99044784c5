// Package tiers maps a Partner's commercial tier (spec.tier) to its default limits. The table
// is the operators': a YAML file (--tiers-file, in config/default the swaprouter-tiers
// ConfigMap) replaces the built-in one. A Partner's own requestsPerMinute or monthlyQuoteQuota
// overrides its tier's.
package tiers

import (
	"fmt"
	"os"
	"strconv"

	"sigs.k8s.io/yaml"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Limits are a partner's request and quote limits.
type Limits struct {
	// RequestsPerMinute is the per-key burst limit.
	RequestsPerMinute int32 `json:"requestsPerMinute"`
	// MonthlyQuoteQuota caps quotes per UTC month; 0 means unlimited.
	MonthlyQuoteQuota int64 `json:"monthlyQuoteQuota"`
	// EventStreams caps the partner's concurrent GET /v1/events streams, across replicas
	// when rate limits are shared; 0 takes the built-in default tier's.
	EventStreams int32 `json:"eventStreams,omitempty"`
}

// Table maps tier names to limits.
type Table map[string]Limits

// DefaultTier is the tier of a Partner that names none, and the fallback for unknown tiers.
const DefaultTier = "standard"

// Default is the built-in table.
func Default() Table {
	return Table{
		"free":       {RequestsPerMinute: 60, MonthlyQuoteQuota: 10_000, EventStreams: 2},
		DefaultTier:  {RequestsPerMinute: 300, MonthlyQuoteQuota: 0, EventStreams: 10},
		"enterprise": {RequestsPerMinute: 3000, MonthlyQuoteQuota: 0, EventStreams: 100},
	}
}

// Load reads a table: tier name → {requestsPerMinute, monthlyQuoteQuota}. It must define the
// default tier, every requestsPerMinute must be positive and no quota negative.
func Load(path string) (Table, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Table
	if err := yaml.UnmarshalStrict(raw, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := t[DefaultTier]; !ok {
		return nil, fmt.Errorf("%s: no %q tier (the fallback for partners without a known tier)", path, DefaultTier)
	}
	for name, l := range t {
		if l.RequestsPerMinute < 1 || l.MonthlyQuoteQuota < 0 || l.EventStreams < 0 {
			return nil, fmt.Errorf("%s: tier %s: requestsPerMinute must be positive, monthlyQuoteQuota and eventStreams not negative", path, name)
		}
	}
	return t, nil
}

// For is p's effective limits: its own values where set, else its tier's (an unknown tier
// gets the default tier's).
func (t Table) For(p *swapv1.Partner) Limits {
	l, ok := t[p.Spec.Tier]
	if !ok {
		l = t[DefaultTier]
	}
	if p.Spec.RequestsPerMinute > 0 {
		l.RequestsPerMinute = p.Spec.RequestsPerMinute
	}
	if p.Spec.MonthlyQuoteQuota > 0 {
		l.MonthlyQuoteQuota = p.Spec.MonthlyQuoteQuota
	}
	if l.RequestsPerMinute < 1 {
		l.RequestsPerMinute = Default()[DefaultTier].RequestsPerMinute
	}
	if l.EventStreams < 1 {
		l.EventStreams = Default()[DefaultTier].EventStreams
	}
	return l
}

// InEffect is p's limits as its status shows them: For's values and the tier they came from.
func (t Table) InEffect(p *swapv1.Partner) swapv1.PartnerLimits {
	tier := p.Spec.Tier
	if _, ok := t[tier]; !ok {
		tier = DefaultTier
	}
	l := t.For(p)
	quota := "unlimited"
	if l.MonthlyQuoteQuota > 0 {
		quota = strconv.FormatInt(l.MonthlyQuoteQuota, 10)
	}
	return swapv1.PartnerLimits{Tier: tier, RequestsPerMinute: l.RequestsPerMinute, MonthlyQuoteQuota: l.MonthlyQuoteQuota, Quota: quota}
}
