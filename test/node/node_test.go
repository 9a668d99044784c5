// Package node deploys swaprouter on a real single-node Kubernetes cluster
// (internal/testing/node) exactly as the README's deploy section tells a user to: the block
// between its deploy markers runs as written, its image loaded into containerd with ctr,
// scheduled by kube-scheduler, run by the kubelet, reached through kube-proxy's Services by
// CoreDNS's names, its NetworkPolicies enforced by kube-router. What the README asks a user to
// provide runs beyond the node's NIC (PostgreSQL, a mirror of OFAC's files, the partner's
// webhook receiver), and Redis's image is Debian's redis-server packed as a mirror's copy.
// Then a partner's journey, the swap page, the policies, a liveness restart, a rollout with an
// order in flight and a leader's loss.
//
// It needs root and the node's parts (make node, which make test builds first). Where it
// cannot run it is skipped with the reason, and fails when CI=true.
package node

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/redis/go-redis/v9"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/testing/node"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/test/deploy"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

const namespace = deploy.Namespace

// dialImage is test/node/dial packed as an image: a Pod's TCP client.
const dialImage = "swaprouter.test/dial:test"

// The exit codes of test/node/dial.
const (
	connected = 0
	refused   = 3
)

// simulatorOverlay is config/simulator with the provider simulator's image pinned as `make
// image` tags it: the providers every journey here swaps with.
const simulatorOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ` + namespace + `
resources: [%s]
images: [{name: provider-sim, newName: swaprouter/provider-sim, newTag: %q}]
`

// simulatorURL is the simulator's Service, by its cluster DNS name.
const simulatorURL = "http://provider-sim." + namespace + ".svc.cluster.local:18080"

// providers is the PROVIDERS file of the deploy block: route_A and route_B at the simulator
// (route_A's quotes signed with the key of its default seed).
const providers = `apiVersion: swap.swaprouter.dev/v1alpha1
kind: RoutingProvider
metadata: {name: route-a}
spec:
  providerId: route_A
  displayName: NEAR Intents (simulated)
  protocol: oneclick
  endpoint: ` + simulatorURL + `/route_A
  quoteSigningKey: %s
  timeout: 5s
  pollInterval: {min: 1s, max: 2s}
  enabled: true
---
apiVersion: swap.swaprouter.dev/v1alpha1
kind: RoutingProvider
metadata: {name: route-b}
spec:
  providerId: route_B
  displayName: Chainflip (simulated)
  protocol: channel
  endpoint: ` + simulatorURL + `/route_B
  timeout: 5s
  pollInterval: {min: 1s, max: 2s}
  enabled: true
`

// partsDir is where hack/build-node.sh puts the node's parts.
func partsDir() string {
	return filepath.Join(testenv.RepoRoot(), "bin", "node", testenv.K8sVersion+"-linux-amd64")
}

// unavailable says why the node cannot run here ("" when it can).
func unavailable() string {
	if os.Geteuid() != 0 {
		return "the node needs root (namespaces, cgroups, iptables)"
	}
	for _, bin := range []string{"runc", "ip", "iptables", "ipset", "redis-server"} {
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
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	g := NewWithT(t)
	SetDefaultEventuallyTimeout(5 * time.Minute)
	SetDefaultEventuallyPollingInterval(500 * time.Millisecond)
	ctx := context.Background()
	dir := t.TempDir()

	// The test is a machine in the cluster's network: its names are CoreDNS's.
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort(node.IP, "53"))
	}}

	dial := filepath.Join(dir, "dial.tar")
	g.Expect(buildImage(dir, "./test/node/dial", dialImage, dial)).To(Succeed())
	redisRef, redisTarball, err := redisImage(dir)
	g.Expect(err).NotTo(HaveOccurred())
	n, err := node.Start(ctx, node.Options{
		PartsDir: partsDir(), ControlPlaneDir: testenv.AssetsDir(), Dir: dir,
		Images: []string{dial, redisTarball},
	})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(n.LogTails(60))
			logPods(t, n)
		}
		n.Stop()
	})
	world, err := startOutside(ctx, t, dir)
	g.Expect(err).NotTo(HaveOccurred())
	repo, err := newClone(dir, n)
	g.Expect(err).NotTo(HaveOccurred())

	providersFile := filepath.Join(dir, "providers.yaml")
	g.Expect(os.WriteFile(providersFile, []byte(fmt.Sprintf(providers, simulator.SeedQuotePublicKey(1))), 0o644)).To(Succeed())
	section, err := deploy.Section()
	g.Expect(err).NotTo(HaveOccurred())
	block, err := deploy.Block(section)
	g.Expect(err).NotTo(HaveOccurred())
	started := time.Now()
	out, err := repo.run(ctx, block, "ARCHIVE_DSN="+world.archiveDSN, "REDIS_IMAGE="+redisRef,
		"SANCTIONS_FILES="+world.mirrorURL, "PROVIDERS="+providersFile)
	g.Expect(err).NotTo(HaveOccurred(), "the README's deploy block")
	t.Logf("the README's deploy block ran in %s:\n%s", time.Since(started).Round(time.Second), out)

	// The providers: config/simulator beside it, from the image the block's make image built.
	out, err = repo.run(ctx, "make -s version")
	g.Expect(err).NotTo(HaveOccurred())
	version := strings.TrimSpace(out)
	_, err = n.Ctr(ctx, "images", "import", filepath.Join(repo.dir, "dist", "provider-sim.tar"))
	g.Expect(err).NotTo(HaveOccurred())
	simulatorDir := filepath.Join(dir, "simulator")
	g.Expect(os.MkdirAll(simulatorDir, 0o755)).To(Succeed())
	base, err := filepath.Rel(simulatorDir, filepath.Join(repo.dir, "config", "simulator"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(simulatorDir, "kustomization.yaml"),
		[]byte(fmt.Sprintf(simulatorOverlay, base, version)), 0o644)).To(Succeed())
	_, err = testenv.Kubectl(n.Kubeconfig, nil, "apply", "-k", simulatorDir)
	g.Expect(err).NotTo(HaveOccurred())

	t.Run("every Deployment of the README's overlay becomes Available with all its replicas", func(t *testing.T) {
		g := NewWithT(t)
		want := map[string]int32{"swaprouter-controllers": 2, "swaprouter-frontend": 3, "swaprouter-redis": 1, "provider-sim": 1}
		g.Eventually(func(g Gomega) {
			list, err := n.Client.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			got := map[string]int32{}
			for _, d := range list.Items {
				g.Expect(available(&d)).To(BeTrue(), "Deployment %s is not Available", d.Name)
				got[d.Name] = d.Status.ReadyReplicas
			}
			g.Expect(got).To(Equal(want))
		}).Should(Succeed())
	})

	t.Run("the sanctions Job run now writes the list from the mirror", func(t *testing.T) {
		g := NewWithT(t)
		g.Eventually(func() (string, error) {
			cm, err := n.Client.CoreV1().ConfigMaps(namespace).Get(ctx, "swaprouter-sanctions", metav1.GetOptions{})
			if err != nil {
				return "", err
			}
			return strings.Join(slices.Collect(maps.Values(cm.Data)), "\n"), nil
		}).Should(ContainSubstring("0xCa0Df2c95Aa144c1d0FF2ff3C8F967fDc1de9EF0"), "the sample SDN.CSV's first address")
	})

	sys := &system{n: n, repo: repo, world: world}
	var (
		api                *partnerapi.Client
		acmeKeyID, acmeKey string
	)
	t.Run("a listed sender is refused; a partner's journey through the frontend Service reaches SUCCESS with a verified webhook", func(t *testing.T) {
		RegisterTestingT(t)
		api, acmeKeyID, acmeKey = sys.partner(ctx, "acme", "standard", true)
		sys.refusesListedSender(api)
		sys.settle(api, sys.order(api))
	})

	t.Run("the frontend keeps the partner's request budget in the cluster's Redis", func(t *testing.T) {
		g := NewWithT(t)
		rdb := redis.NewClient(&redis.Options{Addr: "swaprouter-redis." + namespace + ".svc.cluster.local:6379"})
		t.Cleanup(func() { _ = rdb.Close() })
		// Bucket keys are "rate:swaprouter:apikey:<key id>" (internal/ratelimit/redislimit).
		g.Eventually(func() ([]string, error) { return rdb.Keys(ctx, "rate:swaprouter:apikey:*").Result() }).
			Should(ContainElement(HaveSuffix(acmeKeyID)))
	})

	t.Run("the swap page through the app Service shows every route's quote", func(t *testing.T) {
		RegisterTestingT(t)
		// As "The swap app" says: a Partner of its own on the enterprise tier, its key in the
		// Secret swap-app-key, and config/app added to the overlay.
		_, keyID, secret := sys.partner(ctx, "swap-app", "enterprise", false)
		sys.kubectl(nil, "-n", namespace, "create", "secret", "generic", "swap-app-key", "--from-literal=keyId="+keyID, "--from-literal=secret="+secret)
		Expect(repo.editOverlay("resources: [../../config/default, ../../config/sanctions]",
			"resources: [../../config/default, ../../config/sanctions, ../../config/app]")).To(Succeed())
		_, err := repo.run(ctx, "kubectl apply --server-side -k deploy/production && "+
			"kubectl -n "+namespace+" rollout status deployment/swaprouter-app --timeout=5m")
		Expect(err).NotTo(HaveOccurred())
		// Chromium resolves names with the machine's resolver, not the cluster's: it is given
		// the address CoreDNS gives the Service's name.
		addrs, err := net.DefaultResolver.LookupHost(ctx, "swaprouter-app."+namespace+".svc.cluster.local")
		Expect(err).NotTo(HaveOccurred())
		b, err := startBrowser(dir, t.Cleanup)
		Expect(err).NotTo(HaveOccurred())
		b.quotes(Default, "http://"+addrs[0]+"/")
	})

	t.Run("the NetworkPolicies refuse a foreign Pod Redis and the metrics port, and admit it to the API and the swap page, and monitoring to the metrics", func(t *testing.T) {
		RegisterTestingT(t)
		metrics := net.JoinHostPort(sys.pods(ctx, "frontend")[0].Status.PodIP, "8443")
		attempt := 0
		dialFrom := func(ns, app, target string, args ...string) func() (int32, error) {
			return func() (int32, error) {
				attempt++
				return runDial(ctx, n, ns, fmt.Sprintf("dial-%d", attempt), app, append(args, target)...)
			}
		}
		Eventually(dialFrom(namespace, "someone-else", "swaprouter-redis."+namespace+".svc.cluster.local:6379")).Should(Equal(int32(refused)))
		Eventually(dialFrom(namespace, "someone-else", metrics)).Should(Equal(int32(refused)))
		for _, service := range []string{"swaprouter-frontend", "swaprouter-app"} {
			Eventually(dialFrom(namespace, "someone-else", service+"."+namespace+".svc.cluster.local:80", "-until-connected")).Should(Equal(int32(connected)), service)
		}
		// The namespace config/network-policy names as the metrics' scrapers.
		sys.kubectl(nil, "create", "namespace", "monitoring")
		sys.kubectl(nil, "label", "namespace", "monitoring", "swaprouter.dev/monitoring=true")
		Eventually(dialFrom("monitoring", "prometheus", metrics, "-until-connected")).Should(Equal(int32(connected)))
	})

	t.Run("every container runs as its Pod spec says", func(t *testing.T) {
		RegisterTestingT(t)
		pods, err := n.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{
			LabelSelector: "app.kubernetes.io/name=swaprouter", FieldSelector: "status.phase=Running",
		})
		Expect(err).NotTo(HaveOccurred())
		for _, pod := range pods.Items {
			pid, err := sys.containerPID(ctx, pod)
			Expect(err).NotTo(HaveOccurred())
			wrong, err := runsAsSpecified(pid, pod, pod.Spec.Containers[0])
			Expect(err).NotTo(HaveOccurred())
			Expect(wrong).To(BeEmpty(), pod.Name)
		}
	})

	t.Run("on SIGTERM each of swaprouter's programs exits by itself with status 0", func(t *testing.T) {
		RegisterTestingT(t)
		for _, component := range []string{"controllers", "frontend", "app"} {
			pod := sys.pods(ctx, component)[0]
			before := pod.Status.ContainerStatuses[0].RestartCount
			pid, err := sys.containerPID(ctx, pod)
			Expect(err).NotTo(HaveOccurred())
			// Nothing else ends it: a program that ignored the signal would never restart.
			Expect(syscall.Kill(pid, syscall.SIGTERM)).To(Succeed())
			Eventually(func(g Gomega) {
				status := sys.containerStatus(ctx, g, pod.Name)
				g.Expect(status.RestartCount).To(BeNumerically(">", before))
				g.Expect(status.LastTerminationState.Terminated).NotTo(BeNil())
				g.Expect(status.LastTerminationState.Terminated.ExitCode).To(BeZero(), "%s's exit code", pod.Name)
				g.Expect(status.Ready).To(BeTrue())
			}).Should(Succeed())
		}
	})

	// The checks below take the partner of the journey through what operating the cluster does
	// to the pods.
	if api == nil {
		t.Fatal("the journey declared no partner")
	}

	t.Run("a frontend that fails its liveness probe is restarted by the kubelet and ready again", func(t *testing.T) {
		RegisterTestingT(t)
		pod := sys.pods(ctx, "frontend")[0]
		before := pod.Status.ContainerStatuses[0].RestartCount
		pid, err := sys.containerPID(ctx, pod)
		Expect(err).NotTo(HaveOccurred())
		// Stopped, the process answers no probe, and the kubelet decides to restart it. Let go
		// then, it ends on the kubelet's SIGTERM instead of the grace period's SIGKILL.
		Expect(syscall.Kill(pid, syscall.SIGSTOP)).To(Succeed())
		Eventually(func() ([]string, error) { return sys.events(ctx, pod.Name, "Killing") }).
			Should(ContainElement(ContainSubstring("failed liveness probe")))
		Expect(syscall.Kill(pid, syscall.SIGCONT)).To(Succeed())
		Eventually(func(g Gomega) {
			status := sys.containerStatus(ctx, g, pod.Name)
			g.Expect(status.RestartCount).To(BeNumerically(">", before))
			g.Expect(status.Ready).To(BeTrue())
		}).Should(Succeed(), "the kubelet restarts %s", pod.Name)
	})

	t.Run("a rollout to a new image tag with an order in flight: the order reaches SUCCESS with its webhook", func(t *testing.T) {
		RegisterTestingT(t)
		order := sys.order(api)
		// The next version, built and loaded as step 1 does, and pinned in the overlay.
		next := version + "-next"
		_, err := repo.run(ctx, `make image IMAGE_TAG="$NEXT" && ctr -n k8s.io images import dist/swaprouter.tar`, "NEXT="+next)
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.editOverlay(`newTag: "`+version+`"`, `newTag: "`+next+`"`)).To(Succeed())
		// The partner polls the order all along, and sees no failure.
		poll, err := pollOrder(ctx, order.Id, acmeKeyID, acmeKey)
		Expect(err).NotTo(HaveOccurred())
		_, err = repo.run(ctx, "kubectl apply --server-side -k deploy/production && "+
			"kubectl -n "+namespace+" rollout status deployment/swaprouter-controllers --timeout=5m && "+
			"kubectl -n "+namespace+" rollout status deployment/swaprouter-frontend --timeout=5m")
		Expect(err).NotTo(HaveOccurred())
		// Until the last replaced pod has ended: its SIGTERM comes after the rollout's end.
		Eventually(func() (int, error) {
			list, err := n.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=frontend"})
			if err != nil {
				return 0, err
			}
			return len(list.Items), nil
		}).Should(Equal(3))
		polls, failures := poll.finish()
		Expect(failures).To(BeEmpty(), "of %d polls of the order through the rollout", polls)
		for _, component := range []string{"controllers", "frontend"} {
			for _, pod := range sys.pods(ctx, component) {
				Expect(pod.Spec.Containers[0].Image).To(Equal("swaprouter/swaprouter:"+next), pod.Name)
			}
		}
		sys.settle(api, order)
	})

	t.Run("the leader's Pod deleted, the standby takes the Lease and an order still reaches SUCCESS", func(t *testing.T) {
		RegisterTestingT(t)
		order := sys.order(api)
		leader, err := sys.leader(ctx)
		Expect(err).NotTo(HaveOccurred())
		var standby []string
		for _, pod := range sys.pods(ctx, "controllers") {
			if pod.Name != leader {
				standby = append(standby, pod.Name)
			}
		}
		Expect(standby).To(HaveLen(1), "the leader %s and its standby", leader)
		// The node cordoned, the Pod replacing the leader cannot start and race the standby
		// for the Lease.
		sys.kubectl(nil, "cordon", node.Name)
		Expect(n.Client.CoreV1().Pods(namespace).Delete(ctx, leader, metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() (string, error) { return sys.leader(ctx) }).Should(Equal(standby[0]))
		sys.kubectl(nil, "uncordon", node.Name)
		sys.settle(api, order)
	})
}

// runDial runs test/node/dial with args in a Pod of namespace ns labeled as app name
// (restricted, as swaprouter's namespace enforces), and returns its exit code once it has ended. A Pod that has not ended
// within a minute is an error, and the caller's Eventually tries another.
func runDial(ctx context.Context, n *node.Node, ns, pod, app string, args ...string) (int32, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	pods := n.Client.CoreV1().Pods(ns)
	_, err := pods.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: pod, Labels: map[string]string{"app.kubernetes.io/name": app}},
		Spec: corev1.PodSpec{
			RestartPolicy:   corev1.RestartPolicyNever,
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "dial", Image: dialImage, ImagePullPolicy: corev1.PullNever, Args: args,
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
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

// logPods logs every Pod's phase, conditions and container states, for a failure's message.
func logPods(t *testing.T, n *node.Node) {
	pods, err := n.Client.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Log(err)
		return
	}
	for _, p := range pods.Items {
		t.Logf("pod %s: %s %v", p.Name, p.Status.Phase, p.Status.ContainerStatuses)
	}
}
