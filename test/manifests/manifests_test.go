// Package manifests renders each kustomize overlay with kubectl and applies it to a real
// kube-apiserver with a server-side dry run, so a broken manifest fails `make test`, and reads
// the rendered objects as a linter would.
package manifests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

func kubectl(t *testing.T, kubeconfig string, stdin []byte, args ...string) []byte {
	t.Helper()
	out, err := testenv.Kubectl(kubeconfig, stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOverlaysApplyToARealAPIServer(t *testing.T) {
	plane, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	env, c := plane.Env, plane.Client
	t.Cleanup(func() { _ = env.Stop() })
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	root := testenv.RepoRoot()

	for _, tc := range []struct {
		overlay   string
		namespace string
		mustHave  []string
	}{
		{"config/default", "swaprouter-system", []string{
			"Deployment/swaprouter-controllers", "Deployment/swaprouter-frontend", "Service/swaprouter-frontend",
			"NetworkPolicy/swaprouter-frontend-ingress", "ClusterRole/swaprouter-manager", "ClusterRole/swaprouter-frontend",
			"CustomResourceDefinition/swaporders.swap.swaprouter.dev", "Deployment/swaprouter-redis", "Service/swaprouter-redis", "ConfigMap/swaprouter-tiers",
		}},
		{"config/app", "swaprouter-system", []string{"Deployment/swaprouter-app", "Service/swaprouter-app", "NetworkPolicy/swaprouter-app-ingress"}},
		{"config/samples", "swaprouter-system", []string{"RoutingProvider/route-a", "RoutingProvider/route-b", "RoutingProvider/relay", "Partner/acme"}},
		{"config/sanctions", "swaprouter-system", []string{"CronJob/swaprouter-sanctions", "Role/swaprouter-sanctions-fetcher"}},
		{"config/dev", "swaprouter-dev", []string{
			"Deployment/provider-sim", "RoutingProvider/route-a", "RoutingProvider/route-b", "RoutingProvider/relay", "Partner/acme",
		}},
	} {
		t.Run(tc.overlay, func(t *testing.T) {
			rendered := kubectl(t, "", nil, "kustomize", filepath.Join(root, tc.overlay))
			objs := splitObjects(t, tc.overlay, rendered)
			checkScopes(t, c.RESTMapper(), objs)
			checkServiceAccountSubjects(t, objs)
			for _, want := range tc.mustHave {
				kind, name, _ := strings.Cut(want, "/")
				if !bytes.Contains(rendered, []byte("kind: "+kind)) || !bytes.Contains(rendered, []byte("name: "+name)) {
					t.Errorf("%s renders no %s", tc.overlay, want)
				}
			}
			// Namespaced objects can only be dry-run into an existing namespace.
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tc.namespace}}
			if err := c.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			out := kubectl(t, kubeconfig, rendered, "apply", "--server-side", "--force-conflicts",
				"--dry-run=server", "--field-manager=manifest-test", "-f", "-")
			objects := bytes.Count(rendered, []byte("\n---\n")) + 1
			if n := bytes.Count(out, []byte("(server dry run)")); n != objects {
				t.Errorf("%d of %d objects accepted:\n%s", n, objects, out)
			}
		})
	}
}
