package containers

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/postgres"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/redis"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
	"github.com/swaprouter/swaprouter/test/containers/node"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

const (
	namespace = "swaprouter-system"
	partner   = "acme"
	podCIDR   = "10.88.0.0/16"
	// simulatorDeployment is config/simulator's Deployment: the providers.
	simulatorDeployment = "provider-sim"
	// The partner's webhook endpoint has a public address, as a partner's has: the shipped
	// controllers refuse private ones. It lives on the node, whose network namespace has no
	// route out, so the address reaches nothing else.
	receiverAddr = "11.0.0.1:8000"
	// archiveDB names the PostgreSQL server in the archive DSN, as an operator names a
	// managed database: a Service without a selector whose endpoint is the local server.
	archiveDB = "swaprouter-archive-db"
)

// overlays are what a user applies: config/default and the swap app.
var overlays = []string{"config/default", "config/app"}

// simulatorOverlay deploys config/simulator beside them as config/dev does, with its image
// named as `make image` tags it.
const simulatorOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ` + namespace + `
resources: [%s]
images: [{name: provider-sim, newName: swaprouter/provider-sim, newTag: latest}]
`

// runsOnNode are the Deployments run as servers on the node instead of containers, with
// their Service: Redis's image (redis:7.4-alpine) cannot be fetched on this machine.
var runsOnNode = map[string]string{"swaprouter-redis": "swaprouter-redis"}

// images are the tarballs `make image` writes, by the reference the manifests use.
var images = map[string]string{
	"swaprouter/swaprouter:latest":   "dist/swaprouter.tar",
	"swaprouter/provider-sim:latest": "dist/provider-sim.tar",
}

// cluster is the running system: the control plane, PostgreSQL and Redis on the node, and
// every Deployment of the overlays as Pods of containers.
type cluster struct {
	t        *testing.T
	dir      string
	admin    client.Client
	kube     kubernetes.Interface
	node     *node.Node
	services *node.Services

	deployments []appsv1.Deployment
	pods        map[string][]*node.Pod // by Deployment
	clusterIPs  map[string]netip.Addr  // by Service name
	receiver    *devenv.Receiver
	keyID       string
	secret      string
}

func startCluster(t *testing.T, g *WithT) *cluster {
	ctx := context.Background()
	log.SetLogger(logr.Discard())
	c := &cluster{t: t, dir: t.TempDir(), pods: map[string][]*node.Pod{}, clusterIPs: map[string]netip.Addr{}, receiver: &devenv.Receiver{}}
	t.Cleanup(c.dumpLogsOnFailure)
	root := testenv.RepoRoot()

	// The images exactly as a user builds them.
	build := exec.Command("make", "image")
	build.Dir = root
	out, err := build.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "make image:\n%s", out)
	unpacked := map[string]node.Image{}
	for ref, tarball := range images {
		rootfs := filepath.Join(c.dir, "images", filepath.Base(tarball), "rootfs")
		cfg, err := node.Unpack(filepath.Join(root, tarball), rootfs)
		g.Expect(err).NotTo(HaveOccurred())
		unpacked[ref] = node.Image{Rootfs: rootfs, Config: cfg}
	}

	network, err := node.NewNetwork(podCIDR)
	g.Expect(err).NotTo(HaveOccurred())
	c.services, err = node.StartServices(network)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(c.services.Close)

	// The control plane serves on the node's address, which its certificate names, so Pods
	// reach it as KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT with their ca.crt.
	env, err := testenv.New()
	g.Expect(err).NotTo(HaveOccurred())
	apiPort := freePort(g, network.NodeIP)
	env.ControlPlane.APIServer = &envtest.APIServer{SecurePort: apiPort}
	env.ControlPlane.APIServer.SecureServing.Address = network.NodeIP.String()
	cfg, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	c.admin, err = client.New(cfg, client.Options{Scheme: scheme.New()})
	g.Expect(err).NotTo(HaveOccurred())
	c.kube, err = kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(c.dir, "admin.kubeconfig")
	g.Expect(testenv.WriteKubeconfig(kubeconfig, cfg)).To(Succeed())

	simulator := filepath.Join(c.dir, "simulator")
	g.Expect(os.MkdirAll(simulator, 0o755)).To(Succeed())
	base, err := filepath.Rel(simulator, filepath.Join(root, "config", "simulator"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(simulator, "kustomization.yaml"), []byte(fmt.Sprintf(simulatorOverlay, base)), 0o644)).To(Succeed())
	var dirs []string
	for _, overlay := range overlays {
		dirs = append(dirs, filepath.Join(root, overlay))
	}
	for _, overlay := range append(dirs, simulator) {
		rendered, err := testenv.Kubectl("", nil, "kustomize", overlay)
		g.Expect(err).NotTo(HaveOccurred())
		_, err = testenv.Kubectl(kubeconfig, rendered, "apply", "--server-side", "--force-conflicts", "--field-manager=containers-test", "-n", namespace, "-f", "-")
		g.Expect(err).NotTo(HaveOccurred(), "apply %s", overlay)
		// The simulator's Pod starts first, as the providers the others call.
		if overlay == simulator {
			c.deployments = append(deploymentsOf(g, rendered), c.deployments...)
		} else {
			c.deployments = append(c.deployments, deploymentsOf(g, rendered)...)
		}
	}
	// What kube-controller-manager makes in every namespace: the cluster's CA and the
	// default ServiceAccount.
	g.Expect(c.admin.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: namespace},
		Data:       map[string]string{"ca.crt": string(cfg.CAData)},
	})).To(Succeed())
	g.Expect(c.admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: namespace}})).To(Succeed())

	pg, stop, err := postgres.StartThrowaway(ctx, c.logFile("postgres"))
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(stop)
	_, err = pg.CreateDatabase(ctx, "swaprouter")
	g.Expect(err).NotTo(HaveOccurred())
	rd, stop, err := redis.StartThrowaway(ctx, c.logFile("redis"))
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(stop)
	g.Expect(c.admin.Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: archiveDB, Namespace: namespace},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "postgres", Port: 5432}}},
	})).To(Succeed())
	c.seed(ctx, g)

	c.node = &node.Node{
		Dir: filepath.Join(c.dir, "node"), Net: network, Runc: node.Runc{Root: filepath.Join(c.dir, "runc")},
		Kube: c.kube, Images: unpacked, APIServer: netip.AddrPortFrom(network.NodeIP, uint16(apiPort)),
		CgroupParent: node.NewCgroupParent(),
	}
	t.Cleanup(func() { node.RemoveCgroupParent(c.node.CgroupParent) })
	// Every Service of the namespace; those of the servers on the node have them as endpoints.
	onNode := map[string]string{runsOnNode["swaprouter-redis"]: rd.Addr, archiveDB: pg.Addr}
	var svcs corev1.ServiceList
	g.Expect(c.admin.List(ctx, &svcs, client.InNamespace(namespace))).To(Succeed())
	for _, svc := range svcs.Items {
		endpoints := c.node.Endpoints(svc)
		if addr, ok := onNode[svc.Name]; ok {
			endpoints = func(corev1.ServicePort) []string { return []string{addr} }
		}
		g.Expect(c.services.Expose(svc, endpoints)).To(Succeed())
		c.clusterIPs[svc.Name] = netip.MustParseAddr(svc.Spec.ClusterIP)
	}

	// The partner's webhook receiver: verifies every signature, dedupes by webhook-id.
	recvIP := netip.MustParseAddrPort(receiverAddr).Addr()
	g.Expect(network.AddLocalAddress(recvIP)).To(Succeed())
	ln, err := net.Listen("tcp", receiverAddr)
	g.Expect(err).NotTo(HaveOccurred())
	srv := &http.Server{Handler: c.receiver, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	c.runDeployments(ctx, g, "", func(string) bool { return true })
	return c
}

// runDeployments runs the replicas of the Deployments picked as Pods named
// <deployment>-<suffix><n>, as their ReplicaSets would; never Redis (runsOnNode).
func (c *cluster) runDeployments(ctx context.Context, g *WithT, suffix string, pick func(deployment string) bool) {
	for _, d := range c.deployments {
		if _, ok := runsOnNode[d.Name]; ok || !pick(d.Name) {
			continue
		}
		replicas := 1
		if d.Spec.Replicas != nil {
			replicas = int(*d.Spec.Replicas)
		}
		for i := range replicas {
			pod, err := c.node.RunPod(ctx, namespace, fmt.Sprintf("%s-%s%d", d.Name, suffix, i), d.Spec.Template)
			if pod != nil {
				c.t.Cleanup(func() { pod.Terminate(context.Background()) })
			}
			g.Expect(err).NotTo(HaveOccurred())
			c.pods[d.Name] = append(c.pods[d.Name], pod)
		}
	}
}

// seed declares what an operator declares: the Secrets the manifests name, the providers
// (the simulator's Service), the partner with its webhook and key, and the app's key.
func (c *cluster) seed(ctx context.Context, g *WithT) {
	quoteKeys, err := tokenkeys.Create()
	g.Expect(err).NotTo(HaveOccurred())
	svc := func(name string) string { return name + "." + namespace + ".svc." + node.ClusterDomain }
	for name, data := range map[string]map[string]string{
		"swaprouter-archive":    {"dsn": "postgres://postgres@" + svc(archiveDB) + ":5432/swaprouter?sslmode=disable"},
		"swaprouter-quote-keys": {"keys": string(quoteKeys)},
	} {
		g.Expect(c.admin.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, StringData: data})).To(Succeed())
	}
	// config/simulator's provider-sim runs with the default seed.
	key, err := partnerapi.Declare(ctx, c.admin, namespace, partner, "http://"+svc("provider-sim")+":18080",
		simulator.SeedQuotePublicKey(1), "http://"+receiverAddr,
		time.Second, 2*time.Second, c.receiver)
	g.Expect(err).NotTo(HaveOccurred())
	c.keyID, c.secret = key.KeyID, key.Secret
	// config/app's key Secret, as its kustomization tells the operator to create it.
	g.Expect(c.admin.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "swap-app-key", Namespace: namespace},
		StringData: map[string]string{"keyId": c.keyID, "secret": c.secret},
	})).To(Succeed())
}

// serviceURL is http://<cluster IP>:<port> of a Service, as a client in the cluster dials it.
func (c *cluster) serviceURL(name string, port int) string {
	return "http://" + net.JoinHostPort(c.clusterIPs[name].String(), strconv.Itoa(port))
}

// allPods lists every running Pod with its Deployment.
func (c *cluster) allPods() []*node.Pod {
	var out []*node.Pod
	for _, d := range c.deployments {
		out = append(out, c.pods[d.Name]...)
	}
	return out
}

func (c *cluster) logFile(name string) io.Writer {
	f, err := os.OpenFile(filepath.Join(c.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = f.Close() })
	return f
}

// dumpLogsOnFailure prints the end of every container's output when the test failed.
func (c *cluster) dumpLogsOnFailure() {
	if !c.t.Failed() {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(c.dir, "node", "pods", "*", "*.log"))
	for _, path := range logs {
		b, _ := os.ReadFile(path)
		if len(b) > 3000 {
			b = b[len(b)-3000:]
		}
		c.t.Logf("--- %s (end)\n%s", path, b)
	}
}

// deploymentsOf reads the Deployments of rendered manifests.
func deploymentsOf(g *WithT, rendered []byte) []appsv1.Deployment {
	var out []appsv1.Deployment
	dec := utilyaml.NewYAMLReader(bufioReader(rendered))
	for {
		doc, err := dec.Read()
		if err == io.EOF {
			return out
		}
		g.Expect(err).NotTo(HaveOccurred())
		var meta metav1.TypeMeta
		g.Expect(yaml.Unmarshal(doc, &meta)).To(Succeed())
		if meta.Kind != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		g.Expect(yaml.Unmarshal(doc, &d)).To(Succeed())
		if d.Namespace == "" {
			d.Namespace = namespace
		}
		out = append(out, d)
	}
}

func freePort(g *WithT, ip netip.Addr) int {
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }
