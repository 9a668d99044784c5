// Package node runs swaprouter on a real single-node Kubernetes cluster (internal/testing/node):
// the images `make image` builds, imported into containerd, scheduled by kube-scheduler, run
// by the kubelet, reached through kube-proxy's Services by CoreDNS's names.
//
// It needs the node's parts (make node) and runs with `make node-test`; under a plain
// `go test ./...` it is skipped unless SWAPROUTER_NODE_TEST=1.
package node

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/swaprouter/swaprouter/internal/testing/node"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

const namespace = "swaprouter-system"

// dialImage is test/node/dial packed as an image: a Pod's TCP client.
const dialImage = "swaprouter.test/dial:test"

// The exit codes of test/node/dial.
const (
	connected = 0
	refused   = 3
)

// simulatorOverlay is config/simulator with the provider simulator's image pinned as `make
// image` tags it.
const simulatorOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ` + namespace + `
resources: [%s]
images: [{name: provider-sim, newName: swaprouter/provider-sim, newTag: %q}]
`

// partsDir is where hack/build-node.sh puts the node's parts.
func partsDir() string {
	return filepath.Join(testenv.RepoRoot(), "bin", "node", testenv.K8sVersion+"-linux-amd64")
}

// unavailable says why the node cannot run here ("" when it can).
func unavailable() string {
	if os.Getenv("SWAPROUTER_NODE_TEST") != "1" {
		return "the real node runs with make node-test (SWAPROUTER_NODE_TEST=1)"
	}
	if os.Geteuid() != 0 {
		return "the node needs root (namespaces, cgroups, iptables)"
	}
	for _, bin := range []string{"runc", "ip", "iptables", "ipset"} {
		if _, err := exec.LookPath(bin); err != nil {
			return bin + " is not installed (make tools installs it)"
		}
	}
	if _, err := os.Stat(filepath.Join(partsDir(), "kubelet")); err != nil {
		return "the node's parts are not built (make node)"
	}
	return ""
}

func TestMain(m *testing.M) {
	if unavailable() != "" {
		os.Exit(m.Run())
	}
	code, inside, err := node.RunInOwnNamespaces()
	if err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		os.Exit(1)
	}
	if !inside {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestNode(t *testing.T) {
	if why := unavailable(); why != "" {
		if os.Getenv("SWAPROUTER_NODE_TEST") == "1" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	g := NewWithT(t)
	SetDefaultEventuallyTimeout(5 * time.Minute)
	SetDefaultEventuallyPollingInterval(500 * time.Millisecond)
	ctx := context.Background()
	root := testenv.RepoRoot()

	build := exec.Command("make", "image")
	build.Dir = root
	out, err := build.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "make image:\n%s", out)
	version, err := exec.Command("make", "-C", root, "-s", "version").Output()
	g.Expect(err).NotTo(HaveOccurred())
	tag := strings.TrimSpace(string(version))

	dir := t.TempDir()
	dial := filepath.Join(dir, "dial.tar")
	g.Expect(buildImage(dir, "./test/node/dial", dialImage, dial)).To(Succeed())
	n, err := node.Start(ctx, node.Options{
		PartsDir: partsDir(), ControlPlaneDir: testenv.AssetsDir(), Dir: dir,
		Images: []string{filepath.Join(root, "dist", "provider-sim.tar"), dial},
	})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(n.LogTails(60))
		}
		n.Stop()
	})

	kubectl := func(stdin []byte, args ...string) []byte {
		out, err := testenv.Kubectl(n.Kubeconfig, stdin, args...)
		g.Expect(err).NotTo(HaveOccurred())
		return out
	}
	overlay := filepath.Join(dir, "simulator")
	g.Expect(os.MkdirAll(overlay, 0o755)).To(Succeed())
	base, err := filepath.Rel(overlay, filepath.Join(root, "config", "simulator"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(overlay, "kustomization.yaml"),
		[]byte(fmt.Sprintf(simulatorOverlay, base, tag)), 0o644)).To(Succeed())
	kubectl(nil, "create", "namespace", namespace)
	kubectl(nil, "apply", "-k", overlay)

	t.Run("the Deployment becomes Available", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func() bool {
			d, err := n.Client.AppsV1().Deployments(namespace).Get(ctx, "provider-sim", metav1.GetOptions{})
			return err == nil && available(d)
		}).Should(BeTrue(), "provider-sim never became Available")
	})

	t.Run("its Service answers by its cluster DNS name", func(t *testing.T) {
		g := NewWithT(t)
		dns := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort(node.IP, "53"))
		}}
		web := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			DialContext: (&net.Dialer{Resolver: dns}).DialContext,
		}}
		g.Eventually(func() (int, error) {
			resp, err := web.Get("http://provider-sim." + namespace + ".svc.cluster.local:18080/control/stats")
			if err != nil {
				return 0, err
			}
			resp.Body.Close()
			return resp.StatusCode, nil
		}).Should(Equal(http.StatusOK))
	})

	t.Run("its NetworkPolicy refuses a Pod that is not swaprouter's, and admits swaprouter's", func(t *testing.T) {
		g := NewWithT(t)
		simulator := "provider-sim." + namespace + ".svc.cluster.local:18080"
		attempt := 0
		dialFrom := func(name string, args ...string) func() (int32, error) {
			return func() (int32, error) {
				attempt++
				return runDial(ctx, n, fmt.Sprintf("dial-%d", attempt), name, append(args, simulator)...)
			}
		}
		g.Eventually(dialFrom("someone-else")).Should(Equal(int32(refused)))
		g.Eventually(dialFrom("swaprouter", "-until-connected")).Should(Equal(int32(connected)))
	})
}

// buildImage compiles the command in pkg (of this repository) and packs it with hack/image.
func buildImage(dir, pkg, ref, tarball string) error {
	root := testenv.RepoRoot()
	binary := filepath.Join(dir, filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", binary, pkg)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	pack := exec.Command("go", "run", ".", "-binary", binary, "-name", ref, "-ca-bundle", "", "-out", tarball)
	pack.Dir = filepath.Join(root, "hack", "image")
	if out, err := pack.CombinedOutput(); err != nil {
		return fmt.Errorf("hack/image %s: %v\n%s", ref, err, out)
	}
	return nil
}

// runDial runs test/node/dial with args in a Pod labeled as app name, and returns its exit
// code once it has ended. A Pod that has not ended within a minute is an error, and the
// caller's Eventually tries another.
func runDial(ctx context.Context, n *node.Node, pod, app string, args ...string) (int32, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pods := n.Client.CoreV1().Pods(namespace)
	_, err := pods.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: pod, Labels: map[string]string{"app.kubernetes.io/name": app}},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "dial", Image: dialImage, ImagePullPolicy: corev1.PullNever, Args: args,
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
			}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return 0, err
	}
	var code int32
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, pod, metav1.GetOptions{})
		if err != nil || len(p.Status.ContainerStatuses) == 0 {
			return false, nil
		}
		if ended := p.Status.ContainerStatuses[0].State.Terminated; ended != nil {
			code = ended.ExitCode
			return true, nil
		}
		return false, nil
	})
	return code, err
}

// available is a Deployment's Available condition.
func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == "True"
		}
	}
	return false
}
