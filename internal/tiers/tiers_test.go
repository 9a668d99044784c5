package tiers

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func partner(tier string, rpm int32, quota int64) *swapv1.Partner {
	return &swapv1.Partner{Spec: swapv1.PartnerSpec{Tier: tier, RequestsPerMinute: rpm, MonthlyQuoteQuota: quota}}
}

func TestFor(t *testing.T) {
	table := Table{"standard": {300, 0}, "free": {60, 1000}}
	tests := []struct {
		name string
		p    *swapv1.Partner
		want Limits
	}{
		{"tier's limits", partner("free", 0, 0), Limits{60, 1000}},
		{"own values override", partner("free", 120, 5000), Limits{120, 5000}},
		{"own rate only", partner("free", 90, 0), Limits{90, 1000}},
		{"no tier", partner("", 0, 0), Limits{300, 0}},
		{"unknown tier falls back", partner("platinum", 0, 0), Limits{300, 0}},
	}
	for _, tt := range tests {
		if got := table.For(tt.p); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "tiers.yaml")
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	table, err := Load(write("standard: {requestsPerMinute: 200, monthlyQuoteQuota: 50000}\ngold: {requestsPerMinute: 1000, monthlyQuoteQuota: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := table.For(partner("gold", 0, 0)); got != (Limits{1000, 0}) {
		t.Errorf("gold %+v", got)
	}
	if got := table.For(partner("", 0, 0)); got != (Limits{200, 50000}) {
		t.Errorf("standard %+v", got)
	}
	for name, bad := range map[string]string{
		"no standard tier": "gold: {requestsPerMinute: 1000}\n",
		"zero rate":        "standard: {requestsPerMinute: 0}\n",
		"negative quota":   "standard: {requestsPerMinute: 10, monthlyQuoteQuota: -1}\n",
		"unknown field":    "standard: {requestsPerMinute: 10, burst: 5}\n",
	} {
		if _, err := Load(write(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The table config/default ships loads, and says what the built-in one says.
func TestShippedConfigMapLoads(t *testing.T) {
	raw, err := os.ReadFile("../../config/manager/tiers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "tiers.yaml")
	if err := os.WriteFile(p, []byte(cm.Data["tiers.yaml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	table, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(table, Default()) {
		t.Errorf("shipped %+v, built-in %+v", table, Default())
	}
}
