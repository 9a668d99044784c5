package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// readmeWalkthrough returns the shell block between the walkthrough markers of README.md.
func readmeWalkthrough() string {
	readme, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	Expect(err).NotTo(HaveOccurred())
	_, rest, found := strings.Cut(string(readme), "<!-- walkthrough:start -->")
	Expect(found).To(BeTrue(), "README.md has a walkthrough:start marker")
	block, _, found := strings.Cut(rest, "<!-- walkthrough:end -->")
	Expect(found).To(BeTrue(), "README.md has a walkthrough:end marker")
	block = strings.TrimSpace(block)
	Expect(block).To(HavePrefix("```sh\n"))
	return strings.TrimSuffix(strings.TrimPrefix(block, "```sh\n"), "```")
}

var _ = It("runs the README walkthrough as written", func() {
	for _, tool := range []string{"bash", "curl", "jq"} {
		_, err := exec.LookPath(tool)
		Expect(err).NotTo(HaveOccurred(), "%s is needed (make test installs it)", tool)
	}
	// The walkthrough sources .swaprouter/dev.env, as after `make run`.
	dir := GinkgoT().TempDir()
	Expect(os.MkdirAll(filepath.Join(dir, ".swaprouter"), 0o700)).To(Succeed())
	var envFile strings.Builder
	for k, v := range map[string]string{
		"SWAPROUTER_URL": env.FrontendURL, "SWAPROUTER_KEY_ID": env.KeyID,
		"SWAPROUTER_API_SECRET": env.Secret, "SIMULATOR_URL": env.SimulatorURL,
		"KUBECONFIG": env.Plane.KubeconfigPath, "SWAPROUTER_NAMESPACE": env.Namespace,
	} {
		envFile.WriteString("export " + k + "='" + v + "'\n")
	}
	Expect(os.WriteFile(filepath.Join(dir, ".swaprouter", "dev.env"), []byte(envFile.String()), 0o600)).To(Succeed())

	cmd := exec.Command("bash", "-euo", "pipefail", "-c", readmeWalkthrough())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+testenv.AssetsDir()+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "walkthrough output:\n%s", out)
	text := string(out)
	Expect(text).To(ContainSubstring(`"symbol":"ETH"`), "step 1 lists assets")
	Expect(text).To(ContainSubstring("best provider: relay"), "the simulated Relay's fees are the smallest at $300")
	Expect(text).To(MatchRegexp(`order ord_[a-z2-7]{26}: deposit to \S+`))
	Expect(text).To(MatchRegexp(`(?m)^SUCCESS$`))
	Expect(text).To(MatchRegexp(`"amountOut":null,"history":\["PENDING",("PROCESSING",)?"SUCCESS"\]`),
		"Relay's status names no amounts, and none is guessed; its fill may pass between two polls")
	Expect(text).To(MatchRegexp(`(?m)^ord-[a-z2-7]{26}\s+SUCCESS\s+relay\s+0\.1 ETH \(eth\) -> SOL \(sol\)\s`),
		"kubectl shows the order's swap, without a received amount Relay does not report")
	Expect(text).To(MatchRegexp(`(?m)^evt-[a-z2-7]{26}\s+ord_[a-z2-7]{26}\s+1\s+Delivered\s+204\s`),
		"the order's first webhook was delivered")
})
