package manifests

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// publishedList serves SDN.CSV and SDN_COMMENTS.CSV as OFAC's list service does; set changes
// what it publishes.
type publishedList struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (p *publishedList) set(files map[string][]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files = files
}

func (p *publishedList) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	data, ok := p.files[strings.TrimPrefix(r.URL.Path, "/")]
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Last-Modified", "Thu, 20 Jan 2022 15:04:05 GMT")
	_, _ = w.Write(data)
}

// The CronJob's container, run as its ServiceAccount under the shipped Role against a real
// API server, writes the ConfigMap the frontends watch: the extract of the published files,
// the remark SDN.CSV cuts completed from SDN_COMMENTS.CSV. A list too large for a ConfigMap,
// a download that is not the list, and a ConfigMap someone else's SDN.CSV would keep broken
// fail the run with a message saying why, and the ConfigMap keeps its list.
func TestSanctionsCronJobWritesTheWatchedConfigMap(t *testing.T) {
	var cronJob map[string]any
	for _, o := range renderObjects(t, "config/sanctions") {
		if o["kind"] == "CronJob" {
			cronJob = o
		}
	}
	container := field(cronJob, "spec", "jobTemplate", "spec", "template", "spec", "containers", 0)
	if image := field(container, "image"); image != "swaprouter/swaprouter:latest" {
		t.Fatalf("the CronJob runs %v, not the swaprouter image", image)
	}
	const namespace = "swaprouter-system"
	var args []string
	for _, a := range field(container, "args").([]any) {
		args = append(args, strings.ReplaceAll(a.(string), "$(POD_NAMESPACE)", namespace))
	}
	if env := field(container, "env", 0); field(env, "name") != "POD_NAMESPACE" || field(env, "valueFrom", "fieldRef", "fieldPath") != "metadata.namespace" {
		t.Fatalf("the container's namespace is not the Pod's: %v", env)
	}

	plane, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plane.Env.Stop() })
	ctx := context.Background()
	dir := t.TempDir()
	admin := filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(admin, plane.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := plane.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		t.Fatal(err)
	}
	if err := testenv.ApplyOverlay(admin, "config/sanctions"); err != nil {
		t.Fatal(err)
	}
	fetcher, err := testenv.ServiceAccountConfig(ctx, plane.Config, namespace, "swaprouter-sanctions-fetcher")
	if err != nil {
		t.Fatal(err)
	}
	fetcherKubeconfig := filepath.Join(dir, "fetcher.kubeconfig")
	if err := testenv.WriteKubeconfig(fetcherKubeconfig, fetcher); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "swaprouter")
	build := exec.Command("go", "build", "-o", bin, "./cmd/swaprouter")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	publisher := &publishedList{}
	srv := httptest.NewServer(publisher)
	t.Cleanup(srv.Close)
	run := func(files map[string][]byte) (string, error) {
		publisher.set(files)
		cmd := exec.Command(bin, append(args, "--sdn", srv.URL+"/SDN.CSV", "--comments", srv.URL+"/SDN_COMMENTS.CSV")...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+fetcherKubeconfig)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	list := func() *corev1.ConfigMap {
		t.Helper()
		cm := &corev1.ConfigMap{}
		if err := plane.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sdnwatch.ConfigMapName}, cm); err != nil {
			t.Fatal(err)
		}
		return cm
	}
	fixture := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "internal", "screening", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	if out, err := run(map[string][]byte{"SDN.CSV": fixture("SDN.CSV"), "SDN_COMMENTS.CSV": fixture("SDN_COMMENTS.CSV")}); err != nil {
		t.Fatalf("the update failed: %v\n%s", err, out)
	}
	written := list()
	a := screening.Assess(sdnwatch.Published(written))
	if a.State != screening.StateLoaded || a.Date != "2022-01-20T15:04:05Z" {
		t.Fatalf("the ConfigMap's list is %s (%s), dated %q", a.State, a.Detail, a.Date)
	}
	if e, ok := a.List.Lookup("btc", "3Nr3Wm1yj12difJeFyiZgeyJMPuNDkYhZk"); !ok || e.EntNum != 90201 {
		t.Errorf("the address SDN.CSV cuts is not listed whole: %+v", e)
	}

	for _, tt := range []struct {
		name  string
		files map[string][]byte
		err   string
	}{
		{"a list larger than a ConfigMap", map[string][]byte{"SDN.CSV": screening.SyntheticSDN(24000), "SDN_COMMENTS.CSV": {}},
			"more than a ConfigMap holds (1048576): refused, never cut short; nothing written, the ConfigMap keeps its list"},
		{"an error page", map[string][]byte{"SDN.CSV": []byte("<html>maintenance</html>\r\n"), "SDN_COMMENTS.CSV": {}},
			"the download is not the published list"},
		{"no comments file", map[string][]byte{"SDN.CSV": fixture("SDN.CSV")}, "SDN_COMMENTS.CSV: GET"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(tt.files)
			if err == nil || !strings.Contains(out, tt.err) {
				t.Fatalf("the update: %v\n%s", err, out)
			}
			if now := list(); now.ResourceVersion != written.ResourceVersion {
				t.Errorf("a refused list changed the ConfigMap")
			}
		})
	}

	// A hand-loaded SDN.CSV someone else keeps beside the extract would make the list broken:
	// the update says so and leaves the ConfigMap as it is.
	cm := list()
	cm.Data[sdnwatch.Key] = string(fixture("SDN.CSV"))
	if err := plane.Client.Update(ctx, cm, client.FieldOwner("operator")); err != nil {
		t.Fatal(err)
	}
	before := list().ResourceVersion
	out, err := run(map[string][]byte{"SDN.CSV": fixture("SDN.CSV"), "SDN_COMMENTS.CSV": fixture("SDN_COMMENTS.CSV")})
	if err == nil || !strings.Contains(out, fmt.Sprintf("would hold no usable list (Broken: %s holds both an extract and SDN.CSV", sdnwatch.Where)) {
		t.Fatalf("the update over someone else's SDN.CSV: %v\n%s", err, out)
	}
	if list().ResourceVersion != before {
		t.Errorf("the refused update changed the ConfigMap")
	}
}
