package system_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/swaprouter/swaprouter/internal/system"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

const namespace = "swaprouter-system"

// A frontend running as its shipped ServiceAccount serves metrics over HTTPS only to callers
// whose token the kube-apiserver authenticates and whose identity holds the metrics-reader
// role: what a Prometheus in the cluster and anyone else reaching the pod would see.
func TestMetricsNeedTheReaderRole(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	plane, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plane.Env.Stop() })
	admin := filepath.Join(t.TempDir(), "admin.kubeconfig")
	if err := testenv.WriteKubeconfig(admin, plane.Config); err != nil {
		t.Fatal(err)
	}
	if err := testenv.ApplyOverlay(admin, "config/default"); err != nil {
		t.Fatal(err)
	}

	// The frontend authenticates as its ServiceAccount: the TokenReview and
	// SubjectAccessReview behind each scrape are made with the RBAC config/rbac ships.
	frontend, err := testenv.ServiceAccountConfig(ctx, plane.Config, namespace, "swaprouter-frontend")
	if err != nil {
		t.Fatal(err)
	}
	o := system.DefaultOptions()
	o.Namespace = namespace
	o.Controllers = false
	o.FrontendAddr, o.ProbeAddr, o.MetricsAddr = "127.0.0.1:0", "0", freeAddr(t)
	sys, err := system.New(frontend, o)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sys.Manager.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	reader, err := testenv.ServiceAccountConfig(ctx, plane.Config, "default", "prometheus")
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(plane.Config)
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-swaprouter-metrics"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "swaprouter-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "prometheus"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stranger, err := testenv.ServiceAccountConfig(ctx, plane.Config, "default", "stranger")
	if err != nil {
		t.Fatal(err)
	}

	scrape := func(token string) (int, string) { return testenv.ScrapeMetrics(ctx, o.MetricsAddr, token) }
	g := gomega.NewWithT(t)
	// The server starts with the manager; wait for it, not for a time.
	g.Eventually(func() int { code, _ := scrape(reader.BearerToken); return code }).
		WithTimeout(testDeadline(t)).WithPolling(100 * time.Millisecond).Should(gomega.Equal(http.StatusOK))
	if _, body := scrape(reader.BearerToken); !strings.Contains(body, "controller_runtime_") {
		t.Errorf("the reader's scrape has no controller metrics:\n%.500s", body)
	}
	if code, body := scrape(""); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d %s, want 401", code, body)
	}
	if code, body := scrape(stranger.BearerToken); code != http.StatusForbidden {
		t.Errorf("a token without the reader role: %d %s, want 403", code, body)
	}
	// controller-runtime's filter answers 500 here (the TokenReview's error becomes its own),
	// kube-rbac-proxy 401; either way nothing is served.
	if code, body := scrape("not-a-token"); code == http.StatusOK || code == 0 {
		t.Errorf("a forged token: %d %s, want a refusal", code, body)
	}
	plain, err := http.Get("http://" + o.MetricsAddr + "/metrics")
	if err == nil {
		_ = plain.Body.Close()
		if plain.StatusCode == http.StatusOK {
			t.Error("metrics are also served over plain HTTP")
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// testDeadline is the time left before the test binary's -timeout, less a margin to report.
func testDeadline(t *testing.T) time.Duration {
	if d, ok := t.Deadline(); ok {
		return time.Until(d) - 10*time.Second
	}
	return 10 * time.Minute
}
