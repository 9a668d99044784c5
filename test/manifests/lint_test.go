package manifests

import (
	"fmt"
	"maps"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// checkScopes fails for a cluster-scoped object that carries a namespace (kustomize stamps its
// namespace on kinds it does not know to be cluster-scoped). The API server's discovery says
// which kind is which.
func checkScopes(t *testing.T, mapper meta.RESTMapper, objs []map[string]any) {
	t.Helper()
	for _, o := range objs {
		gvk := schema.FromAPIVersionAndKind(fmt.Sprint(o["apiVersion"]), fmt.Sprint(o["kind"]))
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Errorf("%s %v: %v", gvk.Kind, field(o, "metadata", "name"), err)
			continue
		}
		if ns := field(o, "metadata", "namespace"); m.Scope.Name() == meta.RESTScopeNameRoot && ns != nil {
			t.Errorf("%s %v is cluster-scoped but renders with namespace %v", gvk.Kind, field(o, "metadata", "name"), ns)
		}
	}
}

// checkServiceAccountSubjects fails for a binding whose ServiceAccount subject is not a
// ServiceAccount the overlay renders (an overlay that moves the ServiceAccounts to its own
// namespace must move the subjects with them).
func checkServiceAccountSubjects(t *testing.T, objs []map[string]any) {
	t.Helper()
	accounts := map[string]bool{}
	for _, o := range objs {
		if o["kind"] == "ServiceAccount" {
			accounts[fmt.Sprintf("%v/%v", field(o, "metadata", "namespace"), field(o, "metadata", "name"))] = true
		}
	}
	if len(accounts) == 0 {
		return // the overlay binds ServiceAccounts another one renders
	}
	for _, o := range objs {
		if o["kind"] != "RoleBinding" && o["kind"] != "ClusterRoleBinding" {
			continue
		}
		subjects, _ := field(o, "subjects").([]any)
		for _, s := range subjects {
			if field(s, "kind") != "ServiceAccount" {
				continue
			}
			sa := fmt.Sprintf("%v/%v", field(s, "namespace"), field(s, "name"))
			if !accounts[sa] {
				t.Errorf("%s %v binds ServiceAccount %s, which the overlay does not render (it renders %v)",
					o["kind"], field(o, "metadata", "name"), sa, keys(accounts))
			}
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range maps.Keys(m) {
		out = append(out, k)
	}
	return out
}

// Every replicated Deployment of config/default survives a node's loss and a drain: its pods
// spread over nodes (a hard rule, among the pods of one rollout) and a PodDisruptionBudget
// lets a drain evict fewer of them at a time than there are.
func TestReplicatedDeploymentsSpreadAndHaveADisruptionBudget(t *testing.T) {
	objs := renderObjects(t, "config/default")
	replicated := 0
	for _, d := range objs {
		if d["kind"] != "Deployment" {
			continue
		}
		replicas, _ := field(d, "spec", "replicas").(float64)
		if replicas < 2 {
			continue
		}
		replicated++
		name := field(d, "metadata", "name")
		labels, _ := field(d, "spec", "template", "metadata", "labels").(map[string]any)

		spread := false
		constraints, _ := field(d, "spec", "template", "spec", "topologySpreadConstraints").([]any)
		for _, c := range constraints {
			if field(c, "topologyKey") == "kubernetes.io/hostname" && field(c, "whenUnsatisfiable") == "DoNotSchedule" &&
				selects(field(c, "labelSelector", "matchLabels"), labels) && fmt.Sprint(field(c, "matchLabelKeys")) == "[pod-template-hash]" {
				spread = true
			}
		}
		if !spread {
			t.Errorf("Deployment %v (%v replicas) does not spread its pods over nodes", name, replicas)
		}

		budgets := 0
		for _, pdb := range objs {
			if pdb["kind"] != "PodDisruptionBudget" || !selects(field(pdb, "spec", "selector", "matchLabels"), labels) {
				continue
			}
			budgets++
			maxUnavailable, _ := field(pdb, "spec", "maxUnavailable").(float64)
			if maxUnavailable < 1 || maxUnavailable >= replicas {
				t.Errorf("PodDisruptionBudget %v lets %v of %v's %v pods be evicted at once, want 1 to %v",
					field(pdb, "metadata", "name"), maxUnavailable, name, replicas, replicas-1)
			}
		}
		if budgets != 1 {
			t.Errorf("Deployment %v has %d PodDisruptionBudgets, want 1", name, budgets)
		}
	}
	if replicated < 2 {
		t.Errorf("config/default renders %d replicated Deployments, want the controllers and the frontend", replicated)
	}
}

// selects reports whether matchLabels (a rendered selector) selects pods with labels.
func selects(matchLabels any, labels map[string]any) bool {
	m, _ := matchLabels.(map[string]any)
	if len(m) == 0 {
		return false
	}
	for k, v := range m {
		if labels[k] != v {
			return false
		}
	}
	return true
}
