package manifests

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
)

// The admission policies protect exactly the operator annotations the reconciler acts on
// (swapv1.OperatorAnnotations is the one list: a new control must be added to both), and
// config/default ships them.
func TestAdmissionPoliciesListTheOperatorAnnotations(t *testing.T) {
	quoted := make([]string, len(swapv1.OperatorAnnotations))
	for i, a := range swapv1.OperatorAnnotations {
		quoted[i] = fmt.Sprintf("'%s'", a)
	}
	want := "[" + strings.Join(quoted, ", ") + "]"
	objs := renderObjects(t, "config/default")
	for kind, name := range map[string]string{
		"ValidatingAdmissionPolicy": "swaprouter-swaporder-writers",
		"MutatingAdmissionPolicy":   "swaprouter-swaporder-requester",
	} {
		policy := find(objs, kind, name)
		if policy == nil {
			t.Fatalf("config/default renders no %s %s", kind, name)
		}
		vars, _ := field(policy, "spec", "variables").([]any)
		got := ""
		for _, v := range vars {
			if field(v, "name") == "operatorAnnotations" {
				got = fmt.Sprint(field(v, "expression"))
			}
		}
		if got != want {
			t.Errorf("%s lists operator annotations %s, want %s", kind, got, want)
		}
	}
}

// The frontend's ClusterRole names the one Secret its cache holds, and no other.
func TestFrontendRoleReadsOnlyItsSecret(t *testing.T) {
	role := find(renderObjects(t, "config/default"), "ClusterRole", "swaprouter-frontend")
	rules, _ := field(role, "rules").([]any)
	for _, r := range rules {
		resources, _ := field(r, "resources").([]any)
		if !slices.Contains(resources, any("secrets")) {
			continue
		}
		names, _ := field(r, "resourceNames").([]any)
		if len(names) != 1 || names[0] != auth.FrontendSecret {
			t.Errorf("the frontend may read Secrets %v, want only %s", names, auth.FrontendSecret)
		}
	}
}
