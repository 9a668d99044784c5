// Package tssdk runs the TypeScript SDK (sdk/typescript, @swaprouter/sdk) against the whole
// system `make run` starts (control plane, PostgreSQL, simulator, controllers and frontend):
// npm ci with its package-lock.json, tsc --strict over the package, its tests and examples,
// node --test over its unit tests and its tests against the system, the SDK bundled for
// browsers in a page of headless Chromium, then npm pack and the README's TypeScript example
// installed from the tarball in a fresh folder, as written. It needs Node.js 20 or later, npm
// and Chromium (make tools installs them).
package tssdk

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/chromium"
	"github.com/swaprouter/swaprouter/internal/dev/simulator"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

func TestTypeScriptSDK(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(30 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "TypeScript SDK")
}

var (
	env    *devenv.Env
	sdkDir = filepath.Join(testenv.RepoRoot(), "sdk", "typescript")
	// nodeEnv is what the SDK's system tests read: the system and the partners declared for them.
	nodeEnv []string
)

var _ = BeforeSuite(func(ctx context.Context) {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	out, err := exec.Command("node", "--version").Output()
	Expect(err).NotTo(HaveOccurred(), "Node.js 20 or later is needed (make tools installs it)")
	major, _ := strconv.Atoi(strings.TrimPrefix(strings.Split(strings.TrimSpace(string(out)), ".")[0], "v"))
	Expect(major).To(BeNumerically(">=", 20), "Node.js %s: the SDK needs 20 or later", out)

	By("npm ci, then tsc --strict over the package (no Node.js types) and over its tests and examples, and a browser bundle")
	npm(sdkDir, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	npm(sdkDir, "run", "--silent", "build")
	npm(sdkDir, "run", "--silent", "build:tests")
	npm(sdkDir, "run", "--silent", "build:browser")

	// The demo partner as `make run` declares it (no webhook until the README's example
	// points it at its receiver); the SDK's tests get partners of their own.
	opts := devenv.EphemeralManager("tssdk")
	opts.AllowLoopbackWebhooks = true
	opts.WebhookSchedule = []time.Duration{0, 200 * time.Millisecond, 500 * time.Millisecond, time.Second}
	env, err = devenv.Start(ctx, devenv.EnvOptions{
		Manager:       opts,
		SimulatorAddr: "127.0.0.1:0",
		Simulator:     simulator.Options{StepDelay: 300 * time.Millisecond, RefundDelay: time.Second, DepositWindow: time.Minute},
		PollMin:       time.Second, PollMax: 1500 * time.Millisecond,
		// route_A and route_B, not relay: the SDK's journeys hold every transition of the best
		// candidate's order, and the simulated Relay (best at 0.1 ETH) fills between two
		// polls and reports no amounts (test/e2e walks Relay's orders).
		Providers: devenv.DefaultProviders(simulator.Options{})[:2],
		Partner:   "demo",
		Out:       GinkgoWriter,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)

	port := freePort()
	hooks := declare(ctx, "sdk-hooks", swapv1.PartnerSpec{RequestsPerMinute: 100000,
		Webhook: &swapv1.PartnerWebhook{URL: fmt.Sprintf("http://127.0.0.1:%d/webhooks", port)}})
	nodeEnv = append(os.Environ(), "SWAPROUTER_URL="+env.FrontendURL, "SIMULATOR_URL="+env.SimulatorURL,
		"SDK_HOOKS_WEBHOOK_SECRET="+hooks.webhookSecret, "SDK_HOOKS_WEBHOOK_PORT="+strconv.Itoa(port))
	for prefix, k := range map[string]partnerKey{
		"SDK_HOOKS":   hooks,
		"SDK":         declare(ctx, "sdk", swapv1.PartnerSpec{RequestsPerMinute: 100000}),
		"SDK_LIMITED": declare(ctx, "sdk-limited", swapv1.PartnerSpec{RequestsPerMinute: 12}),
		"SDK_PAGES":   declare(ctx, "sdk-pages", swapv1.PartnerSpec{RequestsPerMinute: 100000}),
	} {
		nodeEnv = append(nodeEnv, prefix+"_KEY_ID="+k.keyID, prefix+"_API_SECRET="+k.secret)
	}
}, NodeTimeout(8*time.Minute))

var _ = Describe("@swaprouter/sdk", Ordered, func() {
	It("passes node --test: its unit tests and its tests against the whole system", func(ctx SpecContext) {
		files, err := filepath.Glob(filepath.Join(sdkDir, "build", "test", "*", "*.test.js"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).NotTo(BeEmpty(), "npm run build:tests wrote the tests")
		// One file at a time: the system tests share the machine's two cores with the system.
		cmd := exec.CommandContext(ctx, "node", append([]string{"--test", "--test-concurrency=1", "--test-reporter=tap"}, files...)...)
		cmd.Dir = sdkDir
		cmd.Env = nodeEnv
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "node --test:\n%s", out)
		report := string(out)
		for _, name := range []string{
			"an order to SUCCESS: the stream, broken and resumed midway, yields each transition once; its webhooks and receipt verify",
			"a browser's stream takes tokens from its backend, renews one close to expiry before reconnecting, and resumes",
			"a token the service does not accept is a typed Unauthorized",
			"a 429 is retried after its Retry-After, and the rate-limit headers are exposed",
			"a screened address is a typed AddressNotAllowed, not retried",
			"orders() reads every order across pages, following nextCursor",
			"an order whose answer was lost is retried with the same Idempotency-Key and exists once",
			"every operation of the served document is a method of the client",
			"an order creation keeps its Idempotency-Key across retries, and the next creation gets a new one",
			"a dropped connection resumes after the last event read; a replayed event is not yielded twice",
			"verifyReceipt refuses other algorithms, other keys and changed bytes",
			"verifyWebhook refuses what it cannot trust",
		} {
			Expect(report).To(MatchRegexp(`(?m)^ok \d+ - %s$`, regexp.QuoteMeta(name)), "test %q passed", name)
		}
		Expect(report).To(MatchRegexp(`(?m)^# fail 0$`))
		Expect(report).To(MatchRegexp(`(?m)^# pass [1-9]\d+$`))
	}, NodeTimeout(10*time.Minute))

	It("runs in a browser: a page holding no key follows an order on the event stream and verifies its receipt", func(ctx SpecContext) {
		// The page's own origin is its backend: it serves the bundle and hands out event
		// tokens with the partner's key, which never reaches the browser.
		var key partnerKey
		mux := http.NewServeMux()
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `<!doctype html><title>sdk</title><script type="module" src="/page.js"></script>`)
		})
		mux.HandleFunc("GET /page.js", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			http.ServeFile(w, r, filepath.Join(sdkDir, "build", "browser", "page.js"))
		})
		mux.HandleFunc("POST /events-token", func(w http.ResponseWriter, r *http.Request) {
			req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, env.FrontendURL+"/v1/events/token", nil)
			key.sign(req)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(resp.StatusCode)
			_, _ = io.Copy(w, resp.Body)
		})
		site := httptest.NewServer(mux)
		DeferCleanup(site.Close)
		key = declare(ctx, "sdk-browser", swapv1.PartnerSpec{RequestsPerMinute: 100000, AllowedOrigins: []string{site.URL}})
		partner := partnerapi.New(env.FrontendURL, key.keyID, key.secret)

		dir := GinkgoT().TempDir()
		b, err := chromium.Start(context.Background(), dir, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(b.Stop)
		alloc, cancelAlloc := remote.NewAllocator(context.Background(), b.DevToolsURL())
		DeferCleanup(cancelAlloc)
		tab, cancelTab := chromedp.NewContext(alloc)
		DeferCleanup(cancelTab)
		eval := func(js string) (string, error) {
			return chromedp.Run(tab, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		}

		order := partner.CreateOrder(partnerapi.OrderRequest("route_A"), "")
		Expect(order.DepositAddress).NotTo(BeNil())
		Expect(chromedp.Do(tab, chromedp.Navigate(site.URL+"/?api="+env.FrontendURL))).To(Succeed())
		Eventually(func() (string, error) { return eval(`typeof window.follow`) }).Should(Equal("function"), "the bundle loaded")
		_, err = eval(fmt.Sprintf(`window.follow(%q).then(() => "open")`, order.Id))
		Expect(err).NotTo(HaveOccurred(), "the page opened the stream with a token from its backend")

		tx := partnerapi.Deposit(env, *order.DepositAddress, partnerapi.PointOneETH)
		r, err := partner.API.SubmitDepositWithResponse(ctx, order.Id, client.DepositRequest{TxHash: tx})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.StatusCode()).To(Equal(http.StatusAccepted))
		Eventually(func() (string, error) {
			return eval(`window.failure || window.statuses.join(" ")`)
		}, 90*time.Second).Should(Equal("PROCESSING SUCCESS"), "the transitions after the stream opened, each once")

		receipt, err := partner.API.GetOrderReceiptWithResponse(ctx, order.Id)
		Expect(err).NotTo(HaveOccurred())
		Expect(receipt.JSON200).NotTo(BeNil())
		Expect(eval(fmt.Sprintf(`window.verify(%q)`, receipt.JSON200.Receipt))).To(Equal(order.Id+" SUCCESS final=true"),
			"jose verified the receipt with the browser's WebCrypto")
	}, NodeTimeout(5*time.Minute))

	It("packs into a tarball a fresh folder installs, and the README's example takes an order to SUCCESS with it", func(ctx SpecContext) {
		sh, ts := readmeExample()
		example, err := os.ReadFile(filepath.Join(sdkDir, "examples", "quickstart.mts"))
		Expect(err).NotTo(HaveOccurred())
		Expect(ts).To(Equal(string(example)), "the README's example is sdk/typescript/examples/quickstart.mts (tsc --strict checks it)")

		// The README runs from the repository after `make run`: a folder holding its dev.env,
		// with sdk/ the repository's; the partner's project is under a fresh home.
		repo, home := GinkgoT().TempDir(), GinkgoT().TempDir()
		Expect(os.Symlink(filepath.Join(testenv.RepoRoot(), "sdk"), filepath.Join(repo, "sdk"))).To(Succeed())
		writeDevEnv(filepath.Join(repo, ".swaprouter", "dev.env"))
		project := filepath.Join(home, "swaprouter-example")
		Expect(os.MkdirAll(project, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(project, "quickstart.mts"), []byte(ts), 0o644)).To(Succeed())
		cache, err := exec.Command("npm", "config", "get", "cache").Output()
		Expect(err).NotTo(HaveOccurred())

		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", sh)
		cmd.Dir = repo
		// The home is new, npm's cache the machine's; the example's receiver gets a free port.
		cmd.Env = append(os.Environ(), "HOME="+home, "npm_config_cache="+strings.TrimSpace(string(cache)),
			"npm_config_update_notifier=false", fmt.Sprintf("WEBHOOK_PORT=%d", freePort()))
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "the README's TypeScript example:\n%s", out)
		text := string(out)
		Expect(text).To(MatchRegexp(`(?m)^order (ord_[a-z2-7]{26}): deposit to \S+$`))
		id := regexp.MustCompile(`(?m)^order (ord_[a-z2-7]{26})`).FindStringSubmatch(text)[1]
		Expect(text).To(MatchRegexp(`(?m)^event \(new\) -> PENDING\nevent PENDING -> PROCESSING\nevent PROCESSING -> SUCCESS$`),
			"the stream gave each transition once, in order")
		Expect(text).To(MatchRegexp(`(?m)^webhooks verified: PENDING PROCESSING SUCCESS$`))
		Expect(text).To(MatchRegexp(`(?m)^receipt verified: %s SUCCESS final=true amountOut=\d+$`, id))
		Expect(text).To(MatchRegexp(`(?m)^requests left this minute: \d+$`))

		tarballs, err := filepath.Glob(filepath.Join(sdkDir, "swaprouter-sdk-*.tgz"))
		Expect(err).NotTo(HaveOccurred())
		Expect(tarballs).To(HaveLen(1), "npm pack wrote one tarball")
		info, err := os.Stat(tarballs[0])
		Expect(err).NotTo(HaveOccurred())
		AddReportEntry("packed tarball", fmt.Sprintf("%s: %d bytes", filepath.Base(tarballs[0]), info.Size()))
		Expect(os.Remove(tarballs[0])).To(Succeed())
		Expect(filepath.Join(project, "node_modules", "@swaprouter", "sdk", "dist", "index.js")).To(BeAnExistingFile(),
			"the example ran from the installed tarball")
	}, NodeTimeout(10*time.Minute))
})

// partnerKey is a declared partner's API key and webhook secret.
type partnerKey struct{ keyID, secret, webhookSecret string }

// declare declares a partner with spec as an operator does (a webhook in spec gets a fresh
// signing secret), issues it a key and returns once the frontend accepts that key.
func declare(ctx context.Context, name string, spec swapv1.PartnerSpec) partnerKey {
	GinkgoHelper()
	var k partnerKey
	if spec.Webhook != nil {
		var err error
		k.webhookSecret, err = webhooks.NewSecret()
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-webhook", Namespace: env.Namespace},
			Data:       map[string][]byte{"secret": []byte(k.webhookSecret)},
		})).To(Succeed())
		spec.Webhook.Enabled, spec.Webhook.SecretRef = true, swapv1.SecretKeyRef{Name: name + "-webhook", Key: "secret"}
	}
	Expect(env.Client.Create(ctx, &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: env.Namespace}, Spec: spec})).To(Succeed())
	var err error
	k.keyID, k.secret, err = auth.CreateKey(ctx, env.Client, env.Namespace, name)
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() (int, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, env.FrontendURL+"/v1/usage", nil)
		k.sign(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}).Should(Equal(http.StatusOK), "the frontend knows the key of %s", name)
	return k
}

// sign adds the key to a request.
func (k partnerKey) sign(r *http.Request) {
	r.Header.Set("X-Key-Id", k.keyID)
	r.Header.Set("Authorization", "Bearer "+k.secret)
}

// readmeExample is the README's TypeScript example: its shell block and its TypeScript.
func readmeExample() (sh, ts string) {
	GinkgoHelper()
	readme, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	Expect(err).NotTo(HaveOccurred())
	_, rest, found := strings.Cut(string(readme), "<!-- sdk-ts:start -->")
	Expect(found).To(BeTrue(), "README.md has an sdk-ts:start marker")
	block, _, found := strings.Cut(rest, "<!-- sdk-ts:end -->")
	Expect(found).To(BeTrue(), "README.md has an sdk-ts:end marker")
	fence := func(lang string) string {
		_, after, ok := strings.Cut(block, "```"+lang+"\n")
		Expect(ok).To(BeTrue(), "the example has a %s block", lang)
		code, _, _ := strings.Cut(after, "```")
		return code
	}
	return fence("sh"), fence("ts")
}

// writeDevEnv writes what `make run` writes to .swaprouter/dev.env for this system.
func writeDevEnv(path string) {
	GinkgoHelper()
	Expect(os.MkdirAll(filepath.Dir(path), 0o700)).To(Succeed())
	var b strings.Builder
	for k, v := range env.EnvFile() {
		fmt.Fprintf(&b, "export %s='%s'\n", k, v)
	}
	fmt.Fprintf(&b, "export PATH='%s':\"$PATH\"\n", testenv.AssetsDir())
	Expect(os.WriteFile(path, []byte(b.String()), 0o600)).To(Succeed())
}

// freePort is a loopback port no one listened on a moment ago, for a listener the system
// must know before it starts (a webhook URL).
func freePort() int {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func npm(dir string, args ...string) {
	GinkgoHelper()
	cmd := exec.Command("npm", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "npm %s in %s:\n%s", strings.Join(args, " "), dir, out)
}
