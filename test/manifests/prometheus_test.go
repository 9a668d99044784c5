package manifests

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// renderObjects renders an overlay and splits it into objects.
func renderObjects(t *testing.T, overlay string) []map[string]any {
	t.Helper()
	return splitObjects(t, overlay, kubectl(t, "", nil, "kustomize", filepath.Join(testenv.RepoRoot(), overlay)))
}

// splitObjects splits the rendering of overlay into objects.
func splitObjects(t *testing.T, overlay string, rendered []byte) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, doc := range bytes.Split(rendered, []byte("\n---\n")) {
		var o map[string]any
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatalf("%s: %v", overlay, err)
		}
		objs = append(objs, o)
	}
	return objs
}

func find(objs []map[string]any, kind, name string) map[string]any {
	for _, o := range objs {
		if o["kind"] == kind && field(o, "metadata", "name") == name {
			return o
		}
	}
	return nil
}

// field walks nested maps and slices (int keys index slices).
func field(o any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := o.(map[string]any)
			if !ok {
				return nil
			}
			o = m[k]
		case int:
			s, ok := o.([]any)
			if !ok || k >= len(s) {
				return nil
			}
			o = s[k]
		}
	}
	return o
}

// The metrics endpoint is HTTPS behind TokenReview/SubjectAccessReview: both service accounts
// may create those reviews cluster-wide, and the reader role grants get on /metrics only.
func TestDefaultOverlayShipsMetricsAuthRBAC(t *testing.T) {
	objs := renderObjects(t, "config/default")
	auth := find(objs, "ClusterRole", "swaprouter-metrics-auth")
	if auth == nil {
		t.Fatal("no ClusterRole swaprouter-metrics-auth")
	}
	rules, _ := yaml.Marshal(auth["rules"])
	for _, want := range []string{"tokenreviews", "subjectaccessreviews"} {
		if !bytes.Contains(rules, []byte(want)) {
			t.Errorf("swaprouter-metrics-auth cannot create %s", want)
		}
	}
	binding := find(objs, "ClusterRoleBinding", "swaprouter-metrics-auth")
	var subjects []string
	for _, s := range field(binding, "subjects").([]any) {
		subjects = append(subjects, field(s, "namespace").(string)+"/"+field(s, "name").(string))
	}
	if got := strings.Join(subjects, ","); got != "swaprouter-system/swaprouter-controllers,swaprouter-system/swaprouter-frontend" {
		t.Errorf("metrics auth bound to %s", got)
	}
	reader := find(objs, "ClusterRole", "swaprouter-metrics-reader")
	if field(reader, "rules", 0, "nonResourceURLs", 0) != "/metrics" || field(reader, "rules", 0, "verbs", 0) != "get" {
		t.Errorf("metrics reader role: %v", reader["rules"])
	}
	for _, d := range []string{"swaprouter-controllers", "swaprouter-frontend"} {
		args, _ := yaml.Marshal(field(find(objs, "Deployment", d), "spec", "template", "spec", "containers", 0, "args"))
		if bytes.Contains(args, []byte("--metrics-secure=false")) {
			t.Errorf("%s serves metrics without authentication", d)
		}
	}
}

// config/prometheus scrapes the metrics Service over HTTPS with a token and alerts on every
// metric the README's operating table names.
func TestPrometheusOverlay(t *testing.T) {
	objs := renderObjects(t, "config/prometheus")
	monitor := find(objs, "ServiceMonitor", "swaprouter")
	if monitor == nil {
		t.Fatal("no ServiceMonitor")
	}
	ep := field(monitor, "spec", "endpoints", 0)
	if field(ep, "scheme") != "https" || field(ep, "bearerTokenFile") == nil {
		t.Errorf("ServiceMonitor endpoint does not scrape with a token over HTTPS: %v", ep)
	}
	// The monitor selects the metrics Service of config/default by its labels and port name.
	svc := find(renderObjects(t, "config/default"), "Service", "swaprouter-metrics")
	for k, v := range field(monitor, "spec", "selector", "matchLabels").(map[string]any) {
		if field(svc, "metadata", "labels", k) != v {
			t.Errorf("ServiceMonitor selects %s=%v, the metrics Service has %v", k, v, field(svc, "metadata", "labels", k))
		}
	}
	if field(svc, "spec", "ports", 0, "name") != field(ep, "port") {
		t.Errorf("ServiceMonitor port %v is not the metrics Service's port %v", field(ep, "port"), field(svc, "spec", "ports", 0, "name"))
	}

	rule := find(objs, "PrometheusRule", "swaprouter")
	if rule == nil {
		t.Fatal("no PrometheusRule")
	}
	var exprs []string
	for _, g := range field(rule, "spec", "groups").([]any) {
		for _, r := range field(g, "rules").([]any) {
			if field(r, "alert") == nil || field(r, "expr") == nil || field(r, "annotations", "summary") == nil {
				t.Errorf("incomplete alert rule %v", r)
				continue
			}
			exprs = append(exprs, field(r, "expr").(string))
		}
	}
	all := strings.Join(exprs, "\n")
	for _, metric := range readmeAlertMetrics(t) {
		if !strings.Contains(all, metric) {
			t.Errorf("README lists an alert on %s, config/prometheus has none", metric)
		}
	}
}

// readmeAlertMetrics are the metrics named in the README's "alerts worth setting" table.
func readmeAlertMetrics(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "alerts worth setting")
	if !ok {
		t.Fatal("README has no alerts table")
	}
	table, _, _ = strings.Cut(table, "\n#")
	var metrics []string
	for _, m := range regexp.MustCompile("`((?:swaprouter|controller_runtime)_[a-z_]+)").FindAllStringSubmatch(table, -1) {
		metrics = append(metrics, m[1])
	}
	if len(metrics) < 8 {
		t.Fatalf("found only %v in the README's alerts table", metrics)
	}
	return metrics
}
