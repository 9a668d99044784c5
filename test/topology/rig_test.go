// Package topology runs the topology of config/default as separate OS processes on one
// machine — two leader-elected controller managers, two frontends, the swap app backend, the
// provider simulator, PostgreSQL, Redis and the envtest control plane with etcd fsync on —
// each swaprouter process authenticated as its own ServiceAccount with exactly the RBAC
// config/rbac renders, and injects faults by real signals while partners keep trading.
//
// `go test` runs a short fault list. TOPOLOGY_LONG=1 runs the full list
// (hack/reliability.sh); TOPOLOGY_REPORT=<file> writes the figures as Markdown.
package topology

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/postgres"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/redis"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

const (
	namespace = "swaprouter-system"
	partner   = "acme"
	leaseName = "swaprouter-controllers.swap.swaprouter.dev"
)

// Compressed timers: the rig waits for failovers and polls, so shorter ones make the same
// faults in less time. Not assertions: the checks wait for outcomes, never for these.
var (
	leaseDuration = 6 * time.Second
	renewDeadline = 4 * time.Second
	retryPeriod   = time.Second
	pollMin       = 1 * time.Second
	pollMax       = 2 * time.Second
	simStep       = 500 * time.Millisecond
	// The design's webhook retry schedule sixty times faster (0s, 83ms, 5s, 30s, 2m, 5m, 10m,
	// 10m): still far longer in all than the five-minute receiver outage, and the retry that
	// follows the outage comes within minutes instead of the 30-minute or 2-hour step.
	webhookSchedule = compress(delivery.DefaultSchedule, 60)
)

// compress divides every delay of schedule by factor.
func compress(schedule []time.Duration, factor int) []time.Duration {
	out := make([]time.Duration, len(schedule))
	for i, d := range schedule {
		out[i] = d / time.Duration(factor)
	}
	return out
}

// scheduleFlag formats a schedule as --webhook-retry-schedule takes it.
func scheduleFlag(schedule []time.Duration) string {
	parts := make([]string, len(schedule))
	for i, d := range schedule {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// rig is the running topology.
type rig struct {
	t     *testing.T
	dir   string
	admin client.Client
	cfg   *rest.Config
	env   *envtest.Environment

	bin         map[string]string // swaprouter, provider-sim
	controllers []*proc
	frontends   []*proc
	app, sim    *proc
	apiserver   *proc // nil until the rig restarted envtest's
	etcd        *proc

	controllerMetrics []string // host:port of each controller's HTTPS metrics
	frontendMetrics   []string // and each frontend's
	frontendURLs      []string
	frontendReady     []atomic.Bool // what the Service's endpoints would hold: /readyz answers 200
	appURL, simURL    string
	receiver          *devenv.Receiver
	receiverListener  *toggleListener
	postgres          *postgres.Server
	redis             *redis.Server

	keyID, secret string
	readerToken   string
}

// startRig brings the topology up and returns once every part answers. Everything it starts
// ends with the test (t.Cleanup, and Pdeathsig should the test binary die first).
func startRig(t *testing.T) *rig {
	ctx := context.Background()
	g := NewWithT(t)
	g.SetDefaultEventuallyTimeout(testDeadline(t))
	g.SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	r := &rig{t: t, dir: t.TempDir(), bin: map[string]string{}, receiver: &devenv.Receiver{}}
	t.Cleanup(r.dumpLogsOnFailure)
	r.build("")

	// The control plane, etcd with fsync on (envtest's default turns it off for speed).
	env, err := testenv.New()
	g.Expect(err).NotTo(HaveOccurred())
	env.ControlPlane.Etcd = &envtest.Etcd{}
	env.ControlPlane.Etcd.Configure().Set("unsafe-no-fsync", "false")
	// A fixed cert dir: a restarted kube-apiserver keeps its serving and signing keys.
	env.ControlPlane.APIServer = &envtest.APIServer{CertDir: filepath.Join(r.dir, "apiserver")}
	g.Expect(os.MkdirAll(env.ControlPlane.APIServer.CertDir, 0o700)).To(Succeed())
	r.cfg, err = env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	r.env = env
	t.Cleanup(func() { _ = env.Stop() })
	// envtest starts etcd and kube-apiserver without a parent-death signal: restarted under
	// the rig's supervision they end with the test binary however it ends.
	r.restartControlPlane("etcd")
	r.restartControlPlane("kube-apiserver")
	r.admin, err = client.New(r.cfg, client.Options{Scheme: scheme.New()})
	g.Expect(err).NotTo(HaveOccurred())
	adminKubeconfig := filepath.Join(r.dir, "admin.kubeconfig")
	g.Expect(testenv.WriteKubeconfig(adminKubeconfig, r.cfg)).To(Succeed())
	// RBAC, service accounts, CRDs, namespace: config/default as a cluster gets it.
	g.Expect(testenv.ApplyOverlay(adminKubeconfig, "config/default")).To(Succeed())

	var stop func()
	r.postgres, stop, err = postgres.StartThrowaway(ctx, r.logFile("postgres"))
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(stop)
	dsn, err := r.postgres.CreateDatabase(ctx, "swaprouter")
	g.Expect(err).NotTo(HaveOccurred())
	r.redis, stop, err = redis.StartThrowaway(ctx, r.logFile("redis"))
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(stop)

	// The partner's webhook receiver: verifies every signature, dedupes by webhook-id.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	r.receiverListener = &toggleListener{Listener: ln}
	receiverSrv := &http.Server{Handler: r.receiver, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = receiverSrv.Serve(r.receiverListener) }()
	t.Cleanup(func() { _ = receiverSrv.Close() })

	simAddr := freeAddr(t)
	r.simURL = "http://" + simAddr
	r.sim = r.run("provider-sim", r.bin["provider-sim"], []string{"--addr", simAddr, "--step", simStep.String()}, nil)
	r.seed(ctx, g, "http://"+ln.Addr().String())

	// Each process authenticates as its Deployment's ServiceAccount with a TokenRequest token.
	kubeconfigFor := func(sa, file string) string {
		cfg, err := testenv.ServiceAccountConfig(ctx, r.cfg, namespace, sa)
		g.Expect(err).NotTo(HaveOccurred())
		path := filepath.Join(r.dir, file)
		g.Expect(testenv.WriteKubeconfig(path, cfg)).To(Succeed())
		return path
	}
	common := []string{"manager", "--namespace", namespace, "--archive-dsn", dsn, "--zap-log-level", "info"}
	for i := range 2 {
		metrics := freeAddr(t)
		r.controllerMetrics = append(r.controllerMetrics, metrics)
		args := append(append([]string{}, common...), "--controllers=true", "--frontend=false", "--leader-elect",
			"--metrics-bind-address", metrics, "--health-probe-bind-address", freeAddr(t),
			"--leader-elect-lease-duration", leaseDuration.String(), "--leader-elect-renew-deadline", renewDeadline.String(),
			"--leader-elect-retry-period", retryPeriod.String(), "--allow-loopback-webhooks", "--order-ttl", "1h",
			"--webhook-retry-schedule", scheduleFlag(webhookSchedule))
		kc := kubeconfigFor("swaprouter-controllers", fmt.Sprintf("controllers-%d.kubeconfig", i))
		r.controllers = append(r.controllers, r.run(fmt.Sprintf("controllers-%d", i), r.bin["swaprouter"], args, []string{"KUBECONFIG=" + kc}))
	}
	var probes []string
	for i := range 2 {
		addr, probe, metrics := freeAddr(t), freeAddr(t), freeAddr(t)
		probes = append(probes, probe)
		r.frontendURLs = append(r.frontendURLs, "http://"+addr)
		r.frontendMetrics = append(r.frontendMetrics, metrics)
		args := append(append([]string{}, common...), "--controllers=false", "--frontend=true", "--listen-address", addr,
			"--metrics-bind-address", metrics, "--health-probe-bind-address", probe, "--redis-url", r.redis.URL())
		kc := kubeconfigFor("swaprouter-frontend", fmt.Sprintf("frontend-%d.kubeconfig", i))
		r.frontends = append(r.frontends, r.run(fmt.Sprintf("frontend-%d", i), r.bin["swaprouter"], args, []string{"KUBECONFIG=" + kc}))
	}
	// The swap app backend holds the partner key as its mounted Secret would.
	keyDir := filepath.Join(r.dir, "app-key")
	g.Expect(os.MkdirAll(keyDir, 0o700)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(keyDir, "keyId"), []byte(r.keyID), 0o600)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(keyDir, "secret"), []byte(r.secret), 0o600)).To(Succeed())
	appAddr := freeAddr(t)
	r.appURL = "http://" + appAddr
	r.app = r.run("app", r.bin["swaprouter"], []string{"app", "--listen-address", appAddr, "--api-url", r.frontendURLs[0],
		"--metrics-bind-address", "", "--partner-key-dir", keyDir}, nil)

	r.readerToken = r.metricsReader(ctx, g)

	// Like the endpoints controller, route partners only to frontends whose readiness passes.
	r.frontendReady = make([]atomic.Bool, len(probes))
	stopProbing := make(chan struct{})
	t.Cleanup(func() { close(stopProbing) })
	go r.probeFrontends(probes, stopProbing)

	// Ready: both frontends' probes, a leader, both providers Ready, the key known.
	for i := range probes {
		g.Eventually(r.frontendReady[i].Load).Should(BeTrue())
	}
	g.Eventually(r.leader).ShouldNot(BeNil(), "a controller process is leader")
	g.Eventually(func(g Gomega) {
		for _, name := range []string{"route-a", "route-b"} {
			var rp swapv1.RoutingProvider
			g.Expect(r.admin.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &rp)).To(Succeed())
			g.Expect(isTrue(rp.Status.Conditions, swapv1.ConditionReady)).To(BeTrue(), "%s ready", name)
		}
	}).Should(Succeed())
	for _, u := range r.frontendURLs {
		g.Eventually(func() int { return r.partnerStatus(u + "/v1/swappable-targets?from=" + eth) }).Should(Equal(http.StatusOK))
	}
	return r
}

// probeFrontends keeps frontendReady current, as kubelet probes and the endpoints
// controller keep a Service's endpoints (every 200 ms here, faster than a cluster would).
func (r *rig) probeFrontends(probes []string, stop <-chan struct{}) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		for i, probe := range probes {
			r.frontendReady[i].Store(httpStatus("http://"+probe+"/readyz") == http.StatusOK)
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// frontendURL picks a ready frontend at random, as a Service would (any, when none is).
func (r *rig) frontendURL() string {
	var ready []string
	for i, u := range r.frontendURLs {
		if r.frontendReady[i].Load() {
			ready = append(ready, u)
		}
	}
	if len(ready) == 0 {
		ready = r.frontendURLs
	}
	return ready[rand.IntN(len(ready))]
}

// build compiles the swaprouter and provider-sim binaries into a folder of their own (a
// rolling restart builds fresh ones with a different version stamp).
func (r *rig) build(version string) (swaprouter string) {
	out := filepath.Join(r.dir, "bin"+version)
	for _, name := range []string{"swaprouter", "provider-sim"} {
		args := []string{"build", "-o", filepath.Join(out, name)}
		if version != "" {
			args = append(args, "-ldflags", "-X github.com/swaprouter/swaprouter/internal/version.Version="+version)
		}
		cmd := exec.Command("go", append(args, "./cmd/"+name)...)
		cmd.Dir = testenv.RepoRoot()
		if b, err := cmd.CombinedOutput(); err != nil {
			r.t.Fatalf("go build %s: %v\n%s", name, err, b)
		}
		if version == "" {
			r.bin[name] = filepath.Join(out, name)
		}
	}
	return filepath.Join(out, "swaprouter")
}

// dumpLogsOnFailure prints the end of every process's log when the test failed.
func (r *rig) dumpLogsOnFailure() {
	if !r.t.Failed() {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(r.dir, "*.log"))
	for _, path := range logs {
		b, _ := os.ReadFile(path)
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		r.t.Logf("--- %s (end)\n%s", filepath.Base(path), b)
	}
}

func (r *rig) logFile(name string) io.Writer {
	f, err := os.OpenFile(filepath.Join(r.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = f.Close() })
	return f
}

// run starts a supervised process and stops it when the test ends.
func (r *rig) run(name, path string, args, env []string) *proc {
	p := newProc(name, path, args, env, filepath.Join(r.dir, name+".log"))
	if err := p.start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(p.stop)
	return p
}

// seed declares what an operator declares in git: the providers (the simulator) and the
// partner with its webhook, and issues the partner's key.
func (r *rig) seed(ctx context.Context, g *WithT, receiverURL string) {
	// The provider-sim process runs with the default seed.
	key, err := partnerapi.Declare(ctx, r.admin, namespace, partner, r.simURL, simulator.SeedQuotePublicKey(1), receiverURL,
		pollMin, pollMax, r.receiver)
	g.Expect(err).NotTo(HaveOccurred())
	r.keyID, r.secret = key.KeyID, key.Secret
}

// metricsReader is a Prometheus-like identity: a ServiceAccount bound to the shipped
// swaprouter-metrics-reader ClusterRole. It returns its token.
func (r *rig) metricsReader(ctx context.Context, g *WithT) string {
	g.Expect(r.admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}})).To(Succeed())
	cfg, err := testenv.ServiceAccountConfig(ctx, r.cfg, "monitoring", "prometheus")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(r.admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-swaprouter"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "swaprouter-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "monitoring", Name: "prometheus"}},
	})).To(Succeed())
	return cfg.BearerToken
}

var leaderGauge = regexp.MustCompile(`(?m)^leader_election_master_status\{name="` + regexp.QuoteMeta(leaseName) + `"\} 1$`)

// scrape GETs a controller's metrics over HTTPS with token; it returns the status and body.
func scrape(addr, token string) (int, string) {
	return testenv.ScrapeMetrics(context.Background(), addr, token)
}

// counter is the value of an unlabelled counter in a process's metrics (scraped with the
// reader's token), or -1 when the scrape fails.
func (r *rig) counter(addr, name string) float64 {
	code, body := scrape(addr, r.readerToken)
	if code != http.StatusOK {
		return -1
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return -1
	}
	return v
}

// leader is the controller process whose metrics say it leads (scraped as Prometheus would,
// with the reader's token), or nil. A paused process does not answer and is not leader.
func (r *rig) leader() *proc {
	for i, addr := range r.controllerMetrics {
		if code, body := scrape(addr, r.readerToken); code == http.StatusOK && leaderGauge.MatchString(body) {
			return r.controllers[i]
		}
	}
	return nil
}

// holder is the lease's current holder identity.
func (r *rig) holder(ctx context.Context) string {
	var lease coordinationv1.Lease
	if err := r.admin.Get(ctx, client.ObjectKey{Namespace: namespace, Name: leaseName}, &lease); err != nil {
		return ""
	}
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

// restartControlPlane restarts kube-apiserver or etcd ("kube-apiserver", "etcd") with its
// own command line, as a kubelet restarts a static pod: SIGTERM, wait, start again. The
// first time it adopts envtest's process; from then on the rig supervises it.
func (r *rig) restartControlPlane(comm string) {
	p := r.apiserver
	if comm == "etcd" {
		p = r.etcd
	}
	defer r.waitAPIServer()
	if p != nil {
		p.replace(p.path)
		return
	}
	pid, args := childProcess(comm)
	if pid == 0 {
		r.t.Fatalf("no %s child process", comm)
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	NewWithT(r.t).Eventually(func() bool { return processGone(pid) }).WithTimeout(time.Minute).Should(BeTrue(), "%s ended", comm)
	p = r.run(comm, args[0], args[1:], nil)
	if comm == "etcd" {
		r.etcd = p
	} else {
		r.apiserver = p
	}
}

// waitAPIServer returns once the kube-apiserver answers /readyz again.
func (r *rig) waitAPIServer() {
	cs, err := kubernetes.NewForConfig(r.cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	NewWithT(r.t).Eventually(func() int {
		var code int
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code)
		return code
	}).WithTimeout(testDeadline(r.t)).WithPolling(100 * time.Millisecond).Should(Equal(http.StatusOK))
}

// childProcess finds this process's child named comm and its command line.
func childProcess(comm string) (int, []string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		open, end := strings.IndexByte(string(stat), '('), strings.LastIndexByte(string(stat), ')')
		if open < 0 || end < open || string(stat[open+1:end]) != comm {
			continue
		}
		fields := strings.Fields(string(stat[end+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		return pid, strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	}
	return 0, nil
}

// processGone reports whether pid has exited (a zombie counts as gone).
func processGone(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	end := strings.LastIndexByte(string(stat), ')')
	return end > 0 && len(stat) > end+2 && stat[end+2] == 'Z'
}

// partnerStatus GETs a /v1 path as the partner and returns the status (0: no answer).
func (r *rig) partnerStatus(url string) int {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("X-Key-Id", r.keyID)
	req.Header.Set("Authorization", "Bearer "+r.secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

func httpStatus(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// appClient is an end user's browser session on the swap app.
func appClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second}
}

func isTrue(conds []metav1.Condition, t string) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
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
