// Package app drives the consumer swap page in a real browser (Debian's chromium, headless,
// through chromedp) against the whole running system: control plane, controllers, the /v1
// frontend, the provider simulator and the app's backend, all on 127.0.0.1.
package app

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/swaprouter/swaprouter/internal/consumerapp"
	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/chromium"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
)

func TestSwapPage(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(60 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "consumer swap page in a browser")
}

// perSession is each user's budget in this suite: enough for a whole journey, small enough
// that the throttle spec spends it quickly. The throttle's clock stands still here, so a
// spent budget never refills while a slow run is still clicking.
const perSession = 40

var throttleEpoch = time.Now()

var (
	env     *devenv.Env
	appURL  string
	seen    *traffic
	browser context.Context
	// axeSource is axe-core (pinned in hack/axe), run inside the page on every screen.
	axeSource string
)

// loadAxe installs hack/axe's pinned axe-core with npm when it is not there yet (as
// hack/check-openapi-generators.sh installs its tools) and returns its script. Only the tests
// need Node; the page is served without it.
func loadAxe() string {
	dir := filepath.Join("..", "..", "hack", "axe")
	script := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
	if _, err := os.Stat(script); err != nil {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, GinkgoWriter, GinkgoWriter
		Expect(cmd.Run()).To(Succeed(), "installing axe-core with npm in hack/axe (Node.js 18 or later is needed for the tests)")
	}
	b, err := os.ReadFile(script)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

var _ = BeforeSuite(func(ctx context.Context) {
	axeSource = loadAxe()
	opts := devenv.EphemeralManager("app")
	var err error
	// The simulator settles in a couple of seconds and providers are polled every second, as
	// in test/e2e: the journeys take seconds, the logic is the production one.
	env, err = devenv.Start(ctx, devenv.EnvOptions{
		Manager:       opts,
		SimulatorAddr: "127.0.0.1:0",
		Simulator: simulator.Options{StepDelay: 300 * time.Millisecond, RefundDelay: time.Second, DepositWindow: time.Minute,
			Instances: []simulator.Instance{{ID: fourthRoute.ID, Protocol: fourthRoute.Protocol}}},
		PollMin: time.Second, PollMax: 1500 * time.Millisecond,
		Partner: "swapapp",
		Out:     GinkgoWriter,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)

	app, err := consumerapp.New(consumerapp.Options{
		APIURL: env.FrontendURL, Key: upstream.Key{ID: env.KeyID, Secret: env.Secret},
		SimulatorURL: env.SimulatorURL,
		PerSession:   perSession, PerClientAddress: 100000, ThrottleClock: func() time.Time { return throttleEpoch },
		PollMin: 300 * time.Millisecond, PollMax: 500 * time.Millisecond,
		Log: ctrl.Log.WithName("app"),
	})
	Expect(err).NotTo(HaveOccurred())
	seen = &traffic{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	srv := &http.Server{Handler: seen.record(app), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	DeferCleanup(srv.Close)
	appURL = "http://" + ln.Addr().String()

	dir, err := os.MkdirTemp("", "swapapp-chromium-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	// Like every local server of the tests, Chromium runs through localproc; it lives until
	// the suite's cleanup (not the BeforeSuite context), and a fresh profile keeps runs
	// independent.
	b, err := chromium.Start(context.Background(), dir, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(b.Stop)
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), b.DevToolsURL())
	var cancelBrowser context.CancelFunc
	browser, cancelBrowser = chromedp.NewContext(alloc)
	Expect(chromedp.Do(browser)).To(Succeed(), "attaching to Chromium at %s", b.DevToolsURL())
	DeferCleanup(func() { cancelBrowser(); cancelAlloc() })
}, NodeTimeout(8*time.Minute))

// traffic keeps every response the app sent the browser (headers and body), so a spec can
// show the partner secret never left the server.
type traffic struct {
	mu        sync.Mutex
	responses [][]byte
}

func (t *traffic) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &tee{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		var head bytes.Buffer
		_ = w.Header().Write(&head)
		t.mu.Lock()
		t.responses = append(t.responses, append(head.Bytes(), rec.body.Bytes()...))
		t.mu.Unlock()
	})
}

func (t *traffic) contains(s string) (count int, found bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.responses {
		if bytes.Contains(r, []byte(s)) {
			return len(t.responses), true
		}
	}
	return len(t.responses), false
}

type tee struct {
	http.ResponseWriter
	mu   sync.Mutex
	body bytes.Buffer
}

func (t *tee) Write(b []byte) (int, error) {
	t.mu.Lock()
	t.body.Write(b)
	t.mu.Unlock()
	return t.ResponseWriter.Write(b)
}

// Flush keeps server-sent events flowing through the recorder.
func (t *tee) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
