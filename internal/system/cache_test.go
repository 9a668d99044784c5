package system

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
)

// A frontend process caches only the Secret its RBAC names; a process running the
// controllers (which read webhook signing secrets) caches every Secret of the namespace.
func TestFrontendCachesOnlyItsSecret(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		controllers, frontend bool
		want                  string // field selector on Secrets; "" for all
	}{
		{"frontend only", false, true, "metadata.name=" + auth.FrontendSecret},
		{"controllers only", true, false, ""},
		{"both (swaprouter dev)", true, true, ""},
	} {
		o := DefaultOptions()
		o.Controllers, o.Frontend = tt.controllers, tt.frontend
		got := ""
		for obj, by := range cacheByObject(o) {
			if _, ok := obj.(*corev1.Secret); ok {
				got = by.Field.String()
			}
		}
		if got != tt.want {
			t.Errorf("%s: Secrets cached by %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Every process caches (and its RBAC reads) one ConfigMap: the sanctions list.
func TestCachesOnlyTheSanctionsConfigMap(t *testing.T) {
	for _, frontendOnly := range []bool{true, false} {
		o := DefaultOptions()
		o.Controllers = !frontendOnly
		got := ""
		for obj, by := range cacheByObject(o) {
			if _, ok := obj.(*corev1.ConfigMap); ok {
				got = by.Field.String()
			}
		}
		if got != "metadata.name="+sdnwatch.ConfigMapName {
			t.Errorf("controllers %v: ConfigMaps cached by %q", o.Controllers, got)
		}
	}
}
