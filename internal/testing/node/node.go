// Package node runs a single-node Kubernetes cluster for tests, from the parts hack/build-node.sh
// and hack/build-envtest.sh build: etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler; containerd 2 with Debian's runc and the CNI plugins (bridge, host-local,
// loopback, portmap); the kubelet; kube-proxy in iptables mode; kube-router, which enforces
// NetworkPolicy; and CoreDNS. It runs inside the namespaces RunInOwnNamespaces makes, so its
// addresses, ports, iptables rules and mounts are the test's own.
package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The node's network: its own address on a veth standing in for its NIC (the default route's),
// the Pods' bridge network and the Services' range.
const (
	Name = "swaprouter-node"
	IP   = "10.250.0.2"
	// ClusterCIDR is the Pods' range; the node's share of it, the first /24, is PodCIDR.
	ClusterCIDR = "10.244.0.0/16"
	PodCIDR     = "10.244.0.0/24"
	ServiceCIDR = "10.96.0.0/24"
	// APIServiceIP is the kubernetes Service's address (the first of ServiceCIDR).
	APIServiceIP = "10.96.0.1"
	// PauseImage is the pod sandbox image hack/build-node.sh builds from hack/pause.
	PauseImage = "swaprouter.test/pause:source"
	// OutsideIP is an address beyond the node's NIC, on the far end of its veth, where a test
	// runs what a cluster reaches outside itself (a database, a partner's webhook receiver, a
	// mirror). It is public, as a partner's webhook endpoint is (the controllers refuse private
	// ones); the namespaces have no route out, so it reaches nothing else.
	OutsideIP = "11.0.0.1"
)

// startBound bounds each step of the start-up (a cold kubelet on a loaded 2-core machine takes
// tens of seconds to register).
const startBound = 5 * time.Minute

// Options says where the binaries are and which images to load.
type Options struct {
	// PartsDir holds what hack/build-node.sh builds; ControlPlaneDir kube-apiserver, etcd and
	// kubectl (hack/build-envtest.sh).
	PartsDir, ControlPlaneDir string
	// Images are docker-loadable tarballs (make image) imported into containerd.
	Images []string
	// Dir holds the node's state and logs (a test's temporary directory).
	Dir string
}

// Node is a running single-node cluster.
type Node struct {
	opts Options
	// Kubeconfig is an administrator's kubeconfig file (system:masters).
	Kubeconfig string
	Config     *rest.Config
	Client     kubernetes.Interface
	cgroupRoot string
	procs      []*process
}

type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Start starts the node and returns once it is Ready, with DNS and NetworkPolicy enforcement
// running. On error, what started is stopped again.
func Start(ctx context.Context, opts Options) (n *Node, err error) {
	if !insideNamespaces() {
		return nil, errors.New("the node runs only in its own namespaces: call RunInOwnNamespaces from TestMain")
	}
	n = &Node{opts: opts}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, n.LogTails(40))
			n.Stop()
		}
	}()
	if n.cgroupRoot, err = cgroupRootName(); err != nil {
		return n, err
	}
	for _, d := range []string{"pki", "logs", "etcd", "kubelet", "containerd", "cni/net.d", "cni/ipam"} {
		if err := os.MkdirAll(n.path(d), 0o755); err != nil {
			return n, err
		}
	}
	if err := setUpNetwork(); err != nil {
		return n, err
	}
	if err := n.writeCredentials(); err != nil {
		return n, err
	}
	if err := n.startControlPlane(ctx); err != nil {
		return n, err
	}
	if err := n.startRuntime(ctx); err != nil {
		return n, err
	}
	if err := n.startKubelet(ctx); err != nil {
		return n, err
	}
	return n, n.startAddons()
}

func (n *Node) path(elem ...string) string {
	return filepath.Join(append([]string{n.opts.Dir}, elem...)...)
}

func (n *Node) part(elem ...string) string {
	return filepath.Join(append([]string{n.opts.PartsDir}, elem...)...)
}

// setUpNetwork gives the node its address and the kernel settings Services and Pods need.
func setUpNetwork() error {
	for _, args := range [][]string{
		// A veth pair with no one at the far end stands in for the node's NIC (this kernel has
		// no dummy interfaces).
		{"link", "add", "node0", "type", "veth", "peer", "name", "node0-wire"},
		{"addr", "add", IP + "/24", "dev", "node0"},
		{"addr", "add", OutsideIP + "/32", "dev", "node0-wire"},
		{"link", "set", "node0-wire", "up"},
		{"link", "set", "node0", "up"},
		{"route", "add", "default", "dev", "node0"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	for key, value := range map[string]string{
		"net/ipv4/ip_forward":                 "1",
		"net/bridge/bridge-nf-call-iptables":  "1",
		"net/bridge/bridge-nf-call-ip6tables": "1",
	} {
		if err := os.WriteFile(filepath.Join("/proc/sys", key), []byte(value), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeCredentials makes the cluster's CA, the API server's serving certificate, the
// ServiceAccount signing key, and a kubeconfig per identity: the administrator (who runs the
// control plane's controllers and the test) and the kubelet (a node, as the Node authorizer
// wants it).
func (n *Node) writeCredentials() error {
	p, err := newPKI(n.path("pki"))
	if err != nil {
		return err
	}
	if err := p.issue("apiserver", "kube-apiserver", nil, IP, APIServiceIP, "127.0.0.1", "localhost",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"); err != nil {
		return err
	}
	if err := p.serviceAccountKey(); err != nil {
		return err
	}
	for _, id := range []struct{ name, user, group string }{
		{"admin", "admin", "system:masters"},
		{"kubelet", "system:node:" + Name, "system:nodes"},
	} {
		if err := p.issue(id.name, id.user, []string{id.group}); err != nil {
			return err
		}
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["node"] = &clientcmdapi.Cluster{Server: "https://" + IP + ":6443", CertificateAuthority: p.caFile()}
		cfg.AuthInfos[id.name] = &clientcmdapi.AuthInfo{
			ClientCertificate: n.path("pki", id.name+".crt"), ClientKey: n.path("pki", id.name+".key"),
		}
		cfg.Contexts["node"] = &clientcmdapi.Context{Cluster: "node", AuthInfo: id.name}
		cfg.CurrentContext = "node"
		if err := clientcmd.WriteToFile(*cfg, n.path(id.name+".kubeconfig")); err != nil {
			return err
		}
	}
	n.Kubeconfig = n.path("admin.kubeconfig")
	if n.Config, err = clientcmd.BuildConfigFromFlags("", n.Kubeconfig); err != nil {
		return err
	}
	n.Client, err = kubernetes.NewForConfig(n.Config)
	return err
}

func (n *Node) startControlPlane(ctx context.Context) error {
	pki := func(f string) string { return n.path("pki", f) }
	if err := n.start("etcd", filepath.Join(n.opts.ControlPlaneDir, "etcd"),
		"--data-dir="+n.path("etcd"), "--unsafe-no-fsync",
		"--listen-client-urls=http://127.0.0.1:2379", "--advertise-client-urls=http://127.0.0.1:2379",
		"--listen-peer-urls=http://127.0.0.1:2380"); err != nil {
		return err
	}
	if err := n.start("kube-apiserver", filepath.Join(n.opts.ControlPlaneDir, "kube-apiserver"),
		"--etcd-servers=http://127.0.0.1:2379",
		"--bind-address=0.0.0.0", "--secure-port=6443", "--advertise-address="+IP,
		"--tls-cert-file="+pki("apiserver.crt"), "--tls-private-key-file="+pki("apiserver.key"),
		"--client-ca-file="+pki("ca.crt"),
		"--kubelet-client-certificate="+pki("admin.crt"), "--kubelet-client-key="+pki("admin.key"),
		"--kubelet-preferred-address-types=InternalIP",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+pki("sa.pub"), "--service-account-signing-key-file="+pki("sa.key"),
		"--service-cluster-ip-range="+ServiceCIDR,
		"--authorization-mode=Node,RBAC", "--allow-privileged=true"); err != nil {
		return err
	}
	if err := n.waitFor(ctx, "the API server to be ready", func(ctx context.Context) (bool, error) {
		body, err := n.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", nil
	}); err != nil {
		return err
	}
	if err := n.start("kube-controller-manager", n.part("kube-controller-manager"),
		"--kubeconfig="+n.Kubeconfig, "--secure-port=0", "--leader-elect=false",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+pki("sa.key"), "--root-ca-file="+pki("ca.crt"),
		"--allocate-node-cidrs=true", "--cluster-cidr="+ClusterCIDR, "--node-cidr-mask-size=24",
		"--service-cluster-ip-range="+ServiceCIDR); err != nil {
		return err
	}
	return n.start("kube-scheduler", n.part("kube-scheduler"),
		"--kubeconfig="+n.Kubeconfig, "--secure-port=0", "--leader-elect=false")
}

// containerdConfig runs Pods with runc (cgroupfs, as the kubelet), the CNI plugins on the Pods'
// bridge network, and the pause image built from source as every Pod's sandbox. It never
// lowers a container's OOM score below its own: that takes CAP_SYS_RESOURCE, which machines
// running tests in containers often withhold (this one does).
const containerdConfig = `version = 3
root = %[1]q
state = %[2]q
[grpc]
  address = %[3]q
[plugins.'io.containerd.cri.v1.images'.pinned_images]
  sandbox = %[4]q
[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = true
[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
  runtime_type = 'io.containerd.runc.v2'
[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  BinaryName = %[5]q
  SystemdCgroup = false
[plugins.'io.containerd.cri.v1.runtime'.cni]
  bin_dirs = [%[6]q]
  conf_dir = %[7]q
`

// cniConfig attaches every Pod to one bridge, the node being its gateway, with host-local
// addresses and portmap for hostPorts.
const cniConfig = `{
  "cniVersion": "1.0.0",
  "name": "pods",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": %q}]], "routes": [{"dst": "0.0.0.0/0"}], "dataDir": %q}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`

// ContainerdSocket is containerd's address (CONTAINERD_ADDRESS of its ctr).
func (n *Node) ContainerdSocket() string { return n.path("containerd", "containerd.sock") }

func (n *Node) startRuntime(ctx context.Context) error {
	runc, err := exec.LookPath("runc")
	if err != nil {
		return errors.New("runc is not installed (make tools installs Debian's)")
	}
	config := fmt.Sprintf(containerdConfig, n.path("containerd", "root"), n.path("containerd", "state"), n.ContainerdSocket(),
		PauseImage, runc, n.part("cni"), n.path("cni", "net.d"))
	if err := os.WriteFile(n.path("containerd", "config.toml"), []byte(config), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(n.path("cni", "net.d", "10-pods.conflist"),
		[]byte(fmt.Sprintf(cniConfig, PodCIDR, n.path("cni", "ipam"))), 0o644); err != nil {
		return err
	}
	if err := n.start("containerd", n.part("containerd"), "--config="+n.path("containerd", "config.toml")); err != nil {
		return err
	}
	if err := n.waitFor(ctx, "containerd to serve", func(ctx context.Context) (bool, error) {
		_, err := n.Ctr(ctx, "version")
		return err == nil, nil
	}); err != nil {
		return err
	}
	for _, image := range append([]string{n.part("images", "pause.tar")}, n.opts.Images...) {
		if _, err := n.Ctr(ctx, "images", "import", image); err != nil {
			return err
		}
	}
	return nil
}

// Ctr runs containerd's client in the namespace the kubelet's Pods live in, and returns its
// output.
func (n *Node) Ctr(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, n.part("ctr"), append([]string{"--address", n.ContainerdSocket(), "--namespace", "k8s.io"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("ctr %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out, nil
}

// kubeletConfig: cgroup v1 (this machine's) allowed, the node's own cgroup root so that
// suites beside it keep theirs, no eviction or image garbage collection driven by a disk
// other suites fill, and the kernel's settings read, not written.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
failSwapOn: false
cgroupDriver: cgroupfs
cgroupRoot: %[1]q
containerRuntimeEndpoint: unix://%[2]s
protectKernelDefaults: true
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[3]q}
authorization: {mode: Webhook}
clusterDNS: [%[4]q]
clusterDomain: cluster.local
address: %[4]q
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
evictionHard: {memory.available: "100Mi"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
`

func (n *Node) startKubelet(ctx context.Context) error {
	if err := n.makeCgroupRoot(); err != nil {
		return err
	}
	config := fmt.Sprintf(kubeletConfig, n.cgroupRoot, n.ContainerdSocket(), n.path("pki", "ca.crt"), IP)
	if err := os.WriteFile(n.path("kubelet", "config.yaml"), []byte(config), 0o644); err != nil {
		return err
	}
	if err := n.start("kubelet", n.part("kubelet"),
		"--config="+n.path("kubelet", "config.yaml"), "--kubeconfig="+n.path("kubelet.kubeconfig"),
		"--hostname-override="+Name, "--node-ip="+IP); err != nil {
		return err
	}
	return n.waitFor(ctx, "the node to be Ready", func(ctx context.Context) (bool, error) {
		node, err := n.Client.CoreV1().Nodes().Get(ctx, Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue, nil
			}
		}
		return false, nil
	})
}

// kubeProxyConfig: iptables mode, leaving the machine-wide conntrack settings alone.
const kubeProxyConfig = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
hostnameOverride: %q
clusterCIDR: %q
clientConnection: {kubeconfig: %q}
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
`

// corefile serves the cluster's names; nothing outside the node's namespaces is reachable, so
// there is nothing to forward to.
const corefile = `.:53 {
    errors
    health :8080
    ready :8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig %q node
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
}
`

func (n *Node) startAddons() error {
	config := fmt.Sprintf(kubeProxyConfig, Name, ClusterCIDR, n.Kubeconfig)
	if err := os.WriteFile(n.path("kube-proxy.yaml"), []byte(config), 0o644); err != nil {
		return err
	}
	if err := n.start("kube-proxy", n.part("kube-proxy"), "--config="+n.path("kube-proxy.yaml")); err != nil {
		return err
	}
	if err := n.start("kube-router", n.part("kube-router"), "--kubeconfig="+n.Kubeconfig,
		"--hostname-override="+Name, "--run-firewall=true", "--run-router=false", "--run-service-proxy=false",
		"--enable-cni=false", "--service-cluster-ip-range="+ServiceCIDR); err != nil {
		return err
	}
	if err := os.WriteFile(n.path("Corefile"), []byte(fmt.Sprintf(corefile, n.Kubeconfig)), 0o644); err != nil {
		return err
	}
	return n.start("coredns", n.part("coredns"), "-conf", n.path("Corefile"))
}

// start runs a component with its output in logs/NAME.log; binaries it runs (containerd's
// shim, runc, iptables) are found beside it or on the PATH.
func (n *Node) start(name, binary string, args ...string) error {
	log, err := os.Create(n.path("logs", name+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "PATH="+n.opts.PartsDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		log.Close()
		close(p.done)
	}()
	n.procs = append(n.procs, p)
	return nil
}

// waitFor polls ready until it holds, failing early when a component has exited.
func (n *Node) waitFor(ctx context.Context, what string, ready func(context.Context) (bool, error)) error {
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, startBound, true, func(ctx context.Context) (bool, error) {
		for _, p := range n.procs {
			select {
			case <-p.done:
				return false, fmt.Errorf("%s exited: %v", p.name, p.err)
			default:
			}
		}
		return ready(ctx)
	})
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	return nil
}

// Stop ends the containers and the components, and removes the node's cgroups. (When a test
// ends without it, by a timeout's panic, the namespaces' init does the same.)
func (n *Node) Stop() {
	killCgroupTree(n.cgroupRoot)
	for i := len(n.procs) - 1; i >= 0; i-- {
		p := n.procs[i]
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
	n.procs = nil
	killOrphans()
	unmountUnder(n.opts.Dir)
	killCgroupTree(n.cgroupRoot)
	removeCgroupTree(n.cgroupRoot)
}

// killOrphans kills what is left in the PID namespace but its init and this test: containerd's
// shims, which outlive containerd, and hold the containers' root file systems mounted.
func killOrphans() {
	if !insideNamespaces() {
		return // every other process of the machine would be an "orphan"
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == 1 || pid == os.Getpid() {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// unmountUnder detaches every mount below dir (the containers' root file systems, the
// kubelet's volumes), deepest first, so that the test can remove dir.
func unmountUnder(dir string) {
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	var points []string
	for _, line := range strings.Split(string(info), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
			points = append(points, fields[4])
		}
	}
	slices.SortFunc(points, func(a, b string) int { return len(b) - len(a) })
	for _, p := range points {
		_ = syscall.Unmount(p, syscall.MNT_DETACH)
	}
}

// LogTails is the last lines of every component's log, for a failure's message.
func (n *Node) LogTails(lines int) string {
	var b strings.Builder
	logs, _ := filepath.Glob(n.path("logs", "*.log"))
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		fmt.Fprintf(&b, "--- %s (last %d lines)\n%s\n", filepath.Base(l), lines, strings.Join(all[max(0, len(all)-lines):], "\n"))
	}
	return b.String()
}
