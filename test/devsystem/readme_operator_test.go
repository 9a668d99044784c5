// Package devsystem runs `swaprouter-dev` as `make run` runs it, from binaries built as
// `make build` builds them, and executes the README's operator section against it in a shell
// that has only what dev.env gives it.
package devsystem

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// systemPath is a PATH without the repo's bin/ or the built kubectl: dev.env must add them.
const systemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

func TestReadmeOperatorSectionAfterMakeRun(t *testing.T) {
	g := NewWithT(t)
	g.SetDefaultEventuallyTimeout(5 * time.Minute)
	g.SetDefaultEventuallyPollingInterval(200 * time.Millisecond)
	dir := t.TempDir()
	// PostgreSQL runs as its own user when the test is root: it must pass through to the data.
	g.Expect(os.Chmod(filepath.Dir(dir), 0o711)).To(Succeed())
	g.Expect(os.Chmod(dir, 0o711)).To(Succeed())
	bin := buildBinaries(t, filepath.Join(dir, "bin"))

	envFile := filepath.Join(dir, ".swaprouter", "dev.env")
	dev := startDev(t, bin, dir)
	g.Eventually(dev.written(envFile)).Should(Succeed(), "dev.env is written once the system is up")
	first := readEnv(t, envFile)

	out, err := runShell(dir, readmeBlock(t, "operator"))
	g.Expect(err).NotTo(HaveOccurred(), "operator section output:\n%s", out)
	g.Expect(out).To(MatchRegexp(`(?m)^ord-[a-z2-7]{26}\s+PENDING\s+route_A\s+0\.1 ETH \(eth\) -> SOL \(sol\)`),
		"kubectl get swaporders finds the dev order without -n, in asset units")
	g.Expect(out).To(MatchRegexp(`(?m)^demo\s+standard\s+300\s+unlimited\s+`), "kubectl get partners shows the limits in effect")
	g.Expect(out).To(MatchRegexp(`(?m)^ord_[a-z2-7]{26}\s+PENDING\s+route_A\s+.*\slive$`), "swaprouter orders list defaults to the demo partner")
	g.Expect(out).To(ContainSubstring(`{"source":"live","status":"PENDING","swap":"0.1 ETH (eth) -> SOL (sol)"}`))
	g.Expect(out).To(MatchRegexp(`(?m)^FAILED OperatorResolved$`), "the resolve took effect")
	order := regexp.MustCompile(`order (ord_[a-z2-7]{26})(?: \([^)]*\))?: 2 webhook events sent again at the request of \S+`).FindStringSubmatch(out)
	g.Expect(order).NotTo(BeNil(), "the redeliver took effect:\n%s", out)
	g.Eventually(dev.output(t)).Should(And(
		ContainSubstring("webhook evt_"), ContainSubstring(": order "+order[1]+" (new) -> PENDING (seq 1, verified)"),
		ContainSubstring(": order "+order[1]+" PENDING -> FAILED (seq 2, verified)"),
		ContainSubstring(": redelivery of order "+order[1]+" seq 1 (verified; already processed, acknowledged)"),
		ContainSubstring(": redelivery of order "+order[1]+" seq 2 (verified; already processed, acknowledged)")),
		"make run's receiver printed the order's webhooks, and their redeliveries as such")

	// The README's "Adding a provider": make run declares three providers, and a fourth applied
	// to the running system takes an order to SUCCESS, with no restart.
	out, err = runShell(dir, `source .swaprouter/dev.env
curl -sf -H "X-Key-Id: $SWAPROUTER_KEY_ID" -H "Authorization: Bearer $SWAPROUTER_API_SECRET" "$SWAPROUTER_URL/v1/providers" | jq -r '.providers[].providerId'`)
	g.Expect(err).NotTo(HaveOccurred(), "%s", out)
	g.Expect(strings.Fields(out)).To(Equal([]string{"relay", "route_A", "route_B"}), "make run's three providers")
	out, err = runShell(dir, readmeBlock(t, "add-provider"))
	g.Expect(err).NotTo(HaveOccurred(), "the add-provider block:\n%s", out)
	g.Expect(out).To(MatchRegexp(`(?m)^oneclick-b\s+oneclick_b\s+oneclick\s+true\s`), "kubectl lists the applied RoutingProvider")
	out, err = runShell(dir, orderThroughOneClickB)
	g.Expect(err).NotTo(HaveOccurred(), "an order through oneclick_b:\n%s", out)
	g.Expect(out).To(MatchRegexp(`(?m)^{"providerId":"oneclick_b","status":"SUCCESS","amountOut":"[0-9]+"}$`))

	// A restart keeps the demo key: the same secret in dev.env, and still one live key.
	dev.stop(t)
	g.Expect(os.Remove(envFile)).To(Succeed())
	dev = startDev(t, bin, dir)
	g.Eventually(dev.written(envFile)).Should(Succeed())
	g.Expect(readEnv(t, envFile)).To(And(
		HaveKeyWithValue("SWAPROUTER_KEY_ID", first["SWAPROUTER_KEY_ID"]),
		HaveKeyWithValue("SWAPROUTER_API_SECRET", first["SWAPROUTER_API_SECRET"])))
	out, err = runShell(dir, `source .swaprouter/dev.env
kubectl get partner demo -o jsonpath='{.spec.keys[*].id}{"\n"}'
curl -s -o /dev/null -w '%{http_code}\n' -H "X-Key-Id: $SWAPROUTER_KEY_ID" -H "Authorization: Bearer $SWAPROUTER_API_SECRET" "$SWAPROUTER_URL/v1/usage"`)
	g.Expect(err).NotTo(HaveOccurred(), "%s", out)
	g.Expect(strings.Fields(out)).To(Equal([]string{first["SWAPROUTER_KEY_ID"], "200"}), "one live key, the reused one, still accepted")
}

// orderThroughOneClickB waits until oneclick_b quotes (a candidate of a dry quote), orders 0.1
// ETH -> SOL through it, deposits on the simulated chain and polls until the order is final.
const orderThroughOneClickB = `source .swaprouter/dev.env
auth=(-H "X-Key-Id: $SWAPROUTER_KEY_ID" -H "Authorization: Bearer $SWAPROUTER_API_SECRET")
json=(-H 'Content-Type: application/json')
swap='{"originAsset":"eip155:1/slip44:60","destinationAsset":"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501","amount":"100000000000000000"'
until curl -sf "${auth[@]}" "${json[@]}" "$SWAPROUTER_URL/v1/quote" -d "$swap,\"dry\":true}" | jq -e '.candidates[] | select(.providerId == "oneclick_b")' >/dev/null; do sleep 1; done
order=$(curl -sf "${auth[@]}" "${json[@]}" "$SWAPROUTER_URL/v1/order" -d "$swap,\"providerId\":\"oneclick_b\",\"sender\":\"0x1111111111111111111111111111111111111111\",\"recipient\":\"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\"}")
id=$(jq -r .id <<<"$order"); address=$(jq -r .depositAddress <<<"$order")
curl -sf "${json[@]}" "$SIMULATOR_URL/chain/deposits" -d "{\"depositAddress\":\"$address\",\"amount\":\"100000000000000000\"}" >/dev/null
until curl -sf "${auth[@]}" "$SWAPROUTER_URL/v1/order/$id" | jq -e '.status | test("^(SUCCESS|REFUNDED|FAILED)$")' >/dev/null; do sleep 2; done
curl -sf "${auth[@]}" "$SWAPROUTER_URL/v1/order/$id" | jq -c '{providerId, status, amountOut}'`

// buildBinaries builds what `make build` builds into dir.
func buildBinaries(t *testing.T, dir string) string {
	for _, name := range []string{"swaprouter", "swaprouter-dev", "kubectl-swaprouter"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Dir = testenv.RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", name, err, out)
		}
	}
	return dir
}

// devProcess is a running swaprouter-dev.
type devProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
	// log is the file its console output goes to.
	log string
}

// output reads what it printed so far.
func (d *devProcess) output(t *testing.T) func() string {
	return func() string {
		out, err := os.ReadFile(d.log)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
}

// startDev runs swaprouter-dev in dir as `make run` does (data in dir/.swaprouter), on free
// ports so it runs beside other suites; it ends with the test.
func startDev(t *testing.T, bin, dir string) *devProcess {
	log, err := os.OpenFile(filepath.Join(dir, "swaprouter-dev.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "swaprouter-dev"),
		"--listen-address", freeAddr(t), "--simulator-address", freeAddr(t), "--webhook-receiver-address", freeAddr(t),
		"--app=false", "--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+systemPath)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &devProcess{cmd: cmd, exited: make(chan struct{}), log: log.Name()}
	go func() { _ = cmd.Wait(); close(d.exited) }()
	t.Cleanup(func() {
		d.stop(t)
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("swaprouter-dev output:\n%s", out)
		}
		_ = log.Close()
	})
	return d
}

// written polls for path, and stops the wait at once when swaprouter-dev has exited.
func (d *devProcess) written(path string) func(Gomega) {
	return func(g Gomega) {
		select {
		case <-d.exited:
			StopTrying("swaprouter-dev exited").Now()
		default:
		}
		_, err := os.Stat(path)
		g.Expect(err).NotTo(HaveOccurred())
	}
}

// stop stops it as Ctrl-C does; it may already have stopped.
func (d *devProcess) stop(t *testing.T) {
	select {
	case <-d.exited:
		return
	default:
	}
	_ = d.cmd.Process.Signal(os.Interrupt)
	select {
	case <-d.exited:
	case <-time.After(2 * time.Minute):
		_ = d.cmd.Process.Kill()
		<-d.exited
		t.Error("swaprouter-dev did not stop within 2 minutes of Ctrl-C")
	}
}

// readmeBlock returns the shell block between README.md's <!-- name:start --> and end markers.
func readmeBlock(t *testing.T, name string) string {
	readme, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- "+name+":start -->")
	block, _, ok2 := strings.Cut(rest, "<!-- "+name+":end -->")
	if !ok || !ok2 {
		t.Fatalf("README.md lacks the %s markers", name)
	}
	block = strings.TrimSpace(block)
	if !strings.HasPrefix(block, "```sh\n") {
		t.Fatalf("the %s block is not a sh code block", name)
	}
	return strings.TrimSuffix(strings.TrimPrefix(block, "```sh\n"), "```")
}

// runShell runs script with bash -euo pipefail in dir, with only the system's PATH.
func runShell(dir, script string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + systemPath, "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var exportLine = regexp.MustCompile(`^export ([A-Z_]+)='(.*)'$`)

// readEnv reads dev.env's single-quoted export lines.
func readEnv(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	env := map[string]string{}
	for s := bufio.NewScanner(f); s.Scan(); {
		if m := exportLine.FindStringSubmatch(s.Text()); m != nil {
			env[m[1]] = m[2]
		}
	}
	return env
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
