package tiers

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func partner(tier string, rpm int32, quota int64) *swapv1.Partner {
	return &swapv1.Partner{Spec: swapv1.PartnerSpec{Tier: tier, RequestsPerMinute: rpm, MonthlyQuoteQuota: quota}}
}

func TestFor(t *testing.T) {
	table := Table{"standard": {300, 0, 0}, "free": {60, 1000, 3}}
	tests := []struct {
		name string
		p    *swapv1.Partner
		want Limits
	}{
		{"tier's limits", partner("free", 0, 0), Limits{60, 1000, 3}},
		{"own values override", partner("free", 120, 5000), Limits{120, 5000, 3}},
		{"own rate only", partner("free", 90, 0), Limits{90, 1000, 3}},
		// A table without eventStreams (written before the cap existed) gets the built-in default.
		{"no tier", partner("", 0, 0), Limits{300, 0, 10}},
		{"unknown tier falls back", partner("platinum", 0, 0), Limits{300, 0, 10}},
	}
	for _, tt := range tests {
		if got := table.For(tt.p); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestInEffect(t *testing.T) {
	table := Table{"standard": {300, 0, 0}, "free": {60, 1000, 0}}
	tests := []struct {
		name string
		p    *swapv1.Partner
		want swapv1.PartnerLimits
	}{
		{"tier's limits", partner("free", 0, 0), swapv1.PartnerLimits{Tier: "free", RequestsPerMinute: 60, MonthlyQuoteQuota: 1000, Quota: "1000"}},
		{"own values override", partner("free", 120, 0), swapv1.PartnerLimits{Tier: "free", RequestsPerMinute: 120, MonthlyQuoteQuota: 1000, Quota: "1000"}},
		{"unlimited", partner("standard", 0, 0), swapv1.PartnerLimits{Tier: "standard", RequestsPerMinute: 300, Quota: "unlimited"}},
		{"unknown tier shows the default it gets", partner("growth", 0, 0), swapv1.PartnerLimits{Tier: "standard", RequestsPerMinute: 300, Quota: "unlimited"}},
	}
	for _, tt := range tests {
		if got := table.InEffect(tt.p); got != tt.want {
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
	table, err := Load(write("standard: {requestsPerMinute: 200, monthlyQuoteQuota: 50000}\ngold: {requestsPerMinute: 1000, monthlyQuoteQuota: 0, eventStreams: 40}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := table.For(partner("gold", 0, 0)); got != (Limits{1000, 0, 40}) {
		t.Errorf("gold %+v", got)
	}
	if got := table.For(partner("", 0, 0)); got != (Limits{200, 50000, 10}) {
		t.Errorf("standard %+v", got)
	}
	for name, bad := range map[string]string{
		"no standard tier": "gold: {requestsPerMinute: 1000}\n",
		"zero rate":        "standard: {requestsPerMinute: 0}\n",
		"negative streams": "standard: {requestsPerMinute: 10, eventStreams: -1}\n",
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

// TestSamplesNameKnownTiers: a Partner copied from the samples gets the limits its tier
// promises, not the default tier's.
func TestSamplesNameKnownTiers(t *testing.T) {
	files, err := filepath.Glob("../../config/samples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples found (%v)", err)
	}
	partners := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(raw), "\n---") {
			var obj struct {
				Kind string             `json:"kind"`
				Spec swapv1.PartnerSpec `json:"spec"`
			}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if obj.Kind != "Partner" {
				continue
			}
			partners++
			if _, ok := Default()[obj.Spec.Tier]; !ok {
				t.Errorf("%s: tier %q is not in the shipped tier table", f, obj.Spec.Tier)
			}
		}
	}
	if partners == 0 {
		t.Error("the samples hold no Partner")
	}
}
