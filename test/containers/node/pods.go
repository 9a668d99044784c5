package node

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/swaprouter/swaprouter/test/containers/kubelet"
)

// Name is the node's name (spec.nodeName of its Pods).
const Name = "node-0"

// Image is an image unpacked on the node.
type Image struct {
	Rootfs string
	Config kubelet.Image
}

// Node runs Pods from their specs: it creates each Pod in the kube-apiserver (so admission,
// PodSecurity included, judges it), gives it a sandbox on the Pod network, writes its
// volumes and runs its containers with runc.
type Node struct {
	Dir    string // volumes, bundles, logs
	Net    *Network
	Runc   Runc
	Kube   kubernetes.Interface
	Images map[string]Image // by the Pod spec's image reference
	// APIServer is where Pods reach the kube-apiserver: KUBERNETES_SERVICE_HOST and _PORT.
	APIServer netip.AddrPort
	// CgroupParent holds the containers' cgroups (NewCgroupParent).
	CgroupParent string

	mu   sync.Mutex
	pods []*Pod
}

// Pod is a Pod running on the node.
type Pod struct {
	Object     *corev1.Pod // as the kubelet knows it: spec with the token volume, podIP, hostIP
	IP         netip.Addr
	Containers map[string]*Container
	dir        string
	node       *Node
	pause      *exec.Cmd
	overlays   []string

	mu    sync.Mutex
	ready bool
}

// Ready is whether every container's readiness probe passed last time it ran.
func (p *Pod) Ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ready
}

// LogPath is the file that holds a container's output.
func (p *Pod) LogPath(container string) string { return filepath.Join(p.dir, container+".log") }

// RunPod creates the Pod of template as a ReplicaSet would and runs it.
func (n *Node) RunPod(ctx context.Context, namespace, name string, template corev1.PodTemplateSpec) (*Pod, error) {
	obj := &corev1.Pod{ObjectMeta: template.ObjectMeta, Spec: *template.Spec.DeepCopy()}
	obj.Name, obj.Namespace, obj.Spec.NodeName = name, namespace, Name
	// What the ServiceAccount admission plugin (off in this kube-apiserver) defaults.
	if obj.Spec.ServiceAccountName == "" {
		obj.Spec.ServiceAccountName = "default"
	}
	created, err := n.Kube.CoreV1().Pods(namespace).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create pod %s: %w", name, err)
	}
	pod := &Pod{Object: created, Containers: map[string]*Container{}, dir: filepath.Join(n.Dir, "pods", name), node: n}
	if err := os.MkdirAll(pod.dir, 0o755); err != nil {
		return nil, err
	}
	if err := n.startSandbox(pod); err != nil {
		return pod, err
	}
	sa := created.Spec.ServiceAccountName
	var saAutomount *bool
	if acct, err := n.Kube.CoreV1().ServiceAccounts(namespace).Get(ctx, sa, metav1.GetOptions{}); err == nil {
		saAutomount = acct.AutomountServiceAccountToken
	} else if created.Spec.AutomountServiceAccountToken == nil || *created.Spec.AutomountServiceAccountToken {
		return pod, fmt.Errorf("pod %s: service account %s: %w", name, sa, err)
	}
	pod.Object.Spec = kubelet.WithServiceAccountVolume(created.Spec, saAutomount)
	objs, services, err := n.namespaceObjects(ctx, namespace)
	if err != nil {
		return pod, err
	}
	volumes, err := n.writeVolumes(ctx, pod, objs)
	if err != nil {
		return pod, err
	}
	for _, c := range pod.Object.Spec.Containers {
		if err := n.startContainer(pod, c, objs, services, volumes); err != nil {
			return pod, fmt.Errorf("pod %s container %s: %w", name, c.Name, err)
		}
	}
	n.mu.Lock()
	n.pods = append(n.pods, pod)
	n.mu.Unlock()
	go pod.probeReadiness()
	return pod, nil
}

// startSandbox holds a network namespace for the Pod with a process that only waits, as a
// pause container does, and attaches it to the Pod network.
func (n *Node) startSandbox(pod *Pod) error {
	pause := exec.Command("sleep", "infinity")
	pause.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	if err := pause.Start(); err != nil {
		return err
	}
	pod.pause = pause
	ip, err := n.Net.attach(pause.Process.Pid)
	if err != nil {
		return err
	}
	pod.IP = ip
	pod.Object.Status.PodIP, pod.Object.Status.HostIP = ip.String(), n.Net.NodeIP.String()
	hosts := fmt.Sprintf("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\t%s\n", ip, pod.Object.Name)
	resolv := fmt.Sprintf("search %[1]s.svc.cluster.local svc.cluster.local cluster.local\nnameserver %[2]s\noptions ndots:5\n",
		pod.Object.Namespace, n.Net.NodeIP)
	if err := os.WriteFile(filepath.Join(pod.dir, "hosts"), []byte(hosts), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(pod.dir, "resolv.conf"), []byte(resolv), 0o644)
}

// namespaceObjects reads what env and volumes refer to, and the Services whose links the
// containers get. The kubernetes Service is the kube-apiserver's address as Pods reach it.
func (n *Node) namespaceObjects(ctx context.Context, namespace string) (kubelet.Objects, []corev1.Service, error) {
	objs := kubelet.Objects{Secrets: map[string]map[string][]byte{}, ConfigMaps: map[string]map[string]string{}}
	secrets, err := n.Kube.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return objs, nil, err
	}
	for _, s := range secrets.Items {
		objs.Secrets[s.Name] = s.Data
	}
	cms, err := n.Kube.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return objs, nil, err
	}
	for _, cm := range cms.Items {
		objs.ConfigMaps[cm.Name] = cm.Data
	}
	svcs, err := n.Kube.CoreV1().Services(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return objs, nil, err
	}
	kube := corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"},
		Spec: corev1.ServiceSpec{ClusterIP: n.APIServer.Addr().String(),
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(n.APIServer.Port())}}},
	}
	return objs, append(svcs.Items, kube), nil
}

// writeVolumes writes each volume's files under the Pod's folder and returns the folders
// by volume name.
func (n *Node) writeVolumes(ctx context.Context, pod *Pod, objs kubelet.Objects) (map[string]string, error) {
	token := func(audience string, expiration int64) (string, error) {
		req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: ptr.To(expiration),
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Object.Name, UID: pod.Object.UID},
		}}
		if audience != "" {
			req.Spec.Audiences = []string{audience}
		}
		tr, err := n.Kube.CoreV1().ServiceAccounts(pod.Object.Namespace).CreateToken(ctx, pod.Object.Spec.ServiceAccountName, req, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		return tr.Status.Token, nil
	}
	dirs := map[string]string{}
	for _, vol := range pod.Object.Spec.Volumes {
		files, err := kubelet.VolumeFiles(pod.Object, vol, objs, token)
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(pod.dir, "volumes", vol.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		for _, f := range files {
			path := filepath.Join(dir, f.Path)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, f.Data, 0o600); err != nil {
				return nil, err
			}
			if err := os.Chown(path, 0, int(f.GID)); err != nil {
				return nil, err
			}
			if err := os.Chmod(path, f.Mode); err != nil {
				return nil, err
			}
		}
		dirs[vol.Name] = dir
	}
	return dirs, nil
}

func (n *Node) startContainer(pod *Pod, c corev1.Container, objs kubelet.Objects, services []corev1.Service, volumes map[string]string) error {
	img, ok := n.Images[c.Image]
	if !ok {
		return fmt.Errorf("image %s is not on this node", c.Image)
	}
	env, err := kubelet.Env(pod.Object, c, img.Config, services, objs)
	if err != nil {
		return err
	}
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	user, err := kubelet.User(pod.Object, c, img.Config)
	if err != nil {
		return err
	}
	mounts := []specs.Mount{
		bind(filepath.Join(pod.dir, "hosts"), "/etc/hosts", false),
		bind(filepath.Join(pod.dir, "resolv.conf"), "/etc/resolv.conf", false),
	}
	for _, m := range c.VolumeMounts {
		dir, ok := volumes[m.Name]
		if !ok || m.SubPath != "" {
			return fmt.Errorf("volume mount %s: unknown volume or subPath", m.Name)
		}
		// Secret, ConfigMap and projected volumes are read-only whatever the mount says.
		mounts = append(mounts, bind(dir, m.MountPath, true))
	}
	id := pod.Object.Name + "-" + c.Name
	bundle := filepath.Join(pod.dir, c.Name)
	if err := n.overlayRootfs(pod, img.Rootfs, bundle); err != nil {
		return err
	}
	spec, err := kubelet.Spec(pod.Object, c, kubelet.Launch{
		Argv: kubelet.Command(img.Config, c, vars), Env: env, Cwd: img.Config.WorkingDir, User: user,
		Hostname: pod.Object.Name, Mounts: mounts,
		NetNS:       "/proc/" + strconv.Itoa(pod.pause.Process.Pid) + "/ns/net",
		CgroupsPath: n.CgroupParent + "/" + id,
	})
	if err != nil {
		return err
	}
	ctr, err := n.Runc.Run(id, bundle, spec, pod.LogPath(c.Name))
	if err != nil {
		return err
	}
	pod.Containers[c.Name] = ctr
	return nil
}

// overlayRootfs mounts the image under a writable layer of the container's own at
// bundle/rootfs, as containerd's overlay snapshotter does: the image stays as unpacked, and
// what the runtime adds (mount points) or a container with a writable root writes lands in
// the container's layer.
func (n *Node) overlayRootfs(pod *Pod, lower, bundle string) error {
	upper, work, rootfs := filepath.Join(bundle, "upper"), filepath.Join(bundle, "work"), filepath.Join(bundle, "rootfs")
	for _, d := range []string{upper, work, rootfs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := syscall.Mount("overlay", rootfs, "overlay", 0, "lowerdir="+lower+",upperdir="+upper+",workdir="+work); err != nil {
		return fmt.Errorf("overlay mount of %s: %w", rootfs, err)
	}
	pod.overlays = append(pod.overlays, rootfs)
	return nil
}

func bind(src, dst string, readOnly bool) specs.Mount {
	opts := []string{"rbind", "rprivate"}
	if readOnly {
		opts = append(opts, "ro")
	}
	return specs.Mount{Destination: dst, Type: "bind", Source: src, Options: opts}
}

// probeReadiness runs the containers' readiness probes until the Pod ends, every 500 ms
// (faster than the spec's period, so the test waits less; the outcome is the same).
func (p *Pod) probeReadiness() {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		ready := true
		for _, c := range p.Object.Spec.Containers {
			ctr := p.Containers[c.Name]
			select {
			case <-ctr.Exited():
				ready = false
				continue
			default:
			}
			if c.ReadinessProbe != nil && ProbeOnce(p.IP.String(), c, c.ReadinessProbe) != nil {
				ready = false
			}
		}
		p.mu.Lock()
		p.ready = ready
		done := p.pause == nil
		p.mu.Unlock()
		if done {
			return
		}
	}
}

// StopResult is how one container ended when its Pod was terminated.
type StopResult struct {
	Container string
	// Killed: it did not end within terminationGracePeriodSeconds after SIGTERM and was killed.
	Killed   bool
	ExitCode int
}

// Terminate ends the Pod as the kubelet does when it is deleted: SIGTERM to every container,
// SIGKILL to those still running after terminationGracePeriodSeconds; then the sandbox,
// its volumes and the Pod object go.
func (p *Pod) Terminate(ctx context.Context) []StopResult {
	grace := time.Duration(ptr.Deref(p.Object.Spec.TerminationGracePeriodSeconds, 30)) * time.Second
	var wg sync.WaitGroup
	results := make([]StopResult, len(p.Object.Spec.Containers))
	for i, c := range p.Object.Spec.Containers {
		ctr := p.Containers[c.Name]
		if ctr == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = StopResult{Container: c.Name}
			_ = ctr.Signal(syscall.SIGTERM)
			timer := time.NewTimer(grace)
			defer timer.Stop()
			select {
			case <-ctr.Exited():
			case <-timer.C:
				results[i].Killed = true
			}
			ctr.Remove()
			results[i].ExitCode = ctr.ExitCode()
		}()
	}
	wg.Wait()
	p.release()
	_ = p.node.Kube.CoreV1().Pods(p.Object.Namespace).Delete(ctx, p.Object.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	return results
}

// release removes the containers, their root file systems and the sandbox.
func (p *Pod) release() {
	n := p.node
	n.mu.Lock()
	n.pods = slices.DeleteFunc(n.pods, func(q *Pod) bool { return q == p })
	n.mu.Unlock()
	for _, c := range p.Containers {
		c.Remove()
	}
	for _, rootfs := range p.overlays {
		_ = syscall.Unmount(rootfs, syscall.MNT_DETACH)
	}
	p.overlays = nil
	p.mu.Lock()
	pause := p.pause
	p.pause = nil
	p.mu.Unlock()
	if pause != nil {
		_ = pause.Process.Kill()
		_ = pause.Wait()
	}
}

// Endpoints returns, for a port of svc, the ready Pods of this node that svc selects, as
// podIP:targetPort: what the endpoints controller would publish for it.
func (n *Node) Endpoints(svc corev1.Service) func(corev1.ServicePort) []string {
	return func(port corev1.ServicePort) []string {
		n.mu.Lock()
		pods := slices.Clone(n.pods)
		n.mu.Unlock()
		var out []string
		for _, p := range pods {
			if p.Object.Namespace != svc.Namespace || len(svc.Spec.Selector) == 0 ||
				!labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(p.Object.Labels)) || !p.Ready() {
				continue
			}
			if target, ok := targetPort(p.Object.Spec.Containers, port); ok {
				out = append(out, net.JoinHostPort(p.IP.String(), strconv.Itoa(target)))
			}
		}
		return out
	}
}

// targetPort resolves a Service port's targetPort (a number, or a container port's name;
// unset: the Service port's number) against a Pod's containers.
func targetPort(containers []corev1.Container, port corev1.ServicePort) (int, bool) {
	if port.TargetPort.IntValue() == 0 && port.TargetPort.StrVal == "" {
		return int(port.Port), true
	}
	for _, c := range containers {
		if p, err := kubelet.ContainerPort(c, port.TargetPort); err == nil {
			return p, true
		}
	}
	return 0, false
}
