package archive

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/receipt"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// readmeReceiptJS returns the README's receipt verification snippet: the JavaScript file and
// the shell lines that run it.
func readmeReceiptJS() (js, sh string) {
	readme, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	Expect(err).NotTo(HaveOccurred())
	_, rest, found := strings.Cut(string(readme), "<!-- receipt-js:start -->")
	Expect(found).To(BeTrue(), "README.md has a receipt-js:start marker")
	block, _, found := strings.Cut(rest, "<!-- receipt-js:end -->")
	Expect(found).To(BeTrue(), "README.md has a receipt-js:end marker")
	fence := func(lang string) string {
		_, after, ok := strings.Cut(block, "```"+lang+"\n")
		Expect(ok).To(BeTrue(), "the receipt snippet has a %s block", lang)
		code, _, _ := strings.Cut(after, "```")
		return code
	}
	return fence("js"), fence("sh")
}

// jsVerifier is a folder holding the README's verify-receipt.mjs, with npm's jose installed
// from hack/receipt-js (pinned by its package-lock.json).
func jsVerifier() string {
	_, err := exec.LookPath("npm")
	Expect(err).NotTo(HaveOccurred(), "npm is needed (Node.js 20 or later)")
	pkg := filepath.Join(testenv.RepoRoot(), "hack", "receipt-js")
	install := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = pkg
	out, err := install.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "npm ci in hack/receipt-js:\n%s", out)
	dir := GinkgoT().TempDir()
	Expect(os.Symlink(filepath.Join(pkg, "node_modules"), filepath.Join(dir, "node_modules"))).To(Succeed())
	js, _ := readmeReceiptJS()
	Expect(os.WriteFile(filepath.Join(dir, "verify-receipt.mjs"), []byte(js), 0o600)).To(Succeed())
	return dir
}

func publishedKeys() jose.JSONWebKeySet {
	GinkgoHelper()
	resp, err := http.Get(env.FrontendURL + "/.well-known/jwks.json")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	var set jose.JSONWebKeySet
	Expect(json.Unmarshal(body, &set)).To(Succeed(), "%s", body)
	return set
}

var _ = Describe("order receipts", func() {
	It("verify in Go and with npm jose as the README shows, and a final receipt is the same bytes after the order left etcd", func() {
		created := place(partner, partnerapi.OrderRequest("route_A"))
		id := partnerapi.Str(created, "id")
		settle(partner, created)
		answer := partner.Get("/v1/order/" + id + "/receipt")
		Expect(answer.Status).To(Equal(http.StatusOK), "%s", answer.Raw)
		first := partnerapi.Str(answer.Body, "receipt")

		By("Go: the receipt verifies with the published keys and states the ended order")
		raw, err := receipt.Verify(first, publishedKeys())
		Expect(err).NotTo(HaveOccurred())
		var stated map[string]any
		Expect(json.Unmarshal(raw, &stated)).To(Succeed())
		Expect(stated).To(And(HaveKeyWithValue("orderId", id), HaveKeyWithValue("status", "SUCCESS"),
			HaveKeyWithValue("final", true), HaveKeyWithValue("amountOut", Not(BeNil())), HaveKeyWithValue("outTxHashes", Not(BeEmpty())),
			HaveKeyWithValue("providerSignature", HavePrefix("ed25519:"))), "the receipt carries 1Click's own signature over the quote behind the address")

		By("JavaScript: the README's snippet, run as written, verifies it with npm's jose")
		dir := jsVerifier()
		_, sh := readmeReceiptJS()
		run := exec.Command("bash", "-euo", "pipefail", "-c", sh)
		run.Dir = dir
		run.Env = append(os.Environ(), "SWAPROUTER_URL="+env.FrontendURL, "SWAPROUTER_KEY_ID="+env.KeyID,
			"SWAPROUTER_API_SECRET="+env.Secret, "ORDER="+id)
		out, err := run.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", out)
		Expect(string(out)).To(MatchRegexp(`^%s SUCCESS final=true signed by \S+\n$`, id))

		By("JavaScript: a receipt with one character changed fails")
		i := strings.Index(first, ".") + 10
		tampered, _ := json.Marshal(map[string]string{"receipt": first[:i] + string(first[i]^1) + first[i+1:]})
		Expect(os.WriteFile(filepath.Join(dir, "tampered.json"), tampered, 0o600)).To(Succeed())
		check := exec.Command("node", "verify-receipt.mjs", "tampered.json", env.FrontendURL+"/.well-known/jwks.json")
		check.Dir = dir
		out, err = check.CombinedOutput()
		Expect(err).To(HaveOccurred(), "a changed receipt verified with jose:\n%s", out)

		By("after the order was archived and deleted from etcd, the same bytes")
		awaitLeftEtcd("acme", id)
		again := partner.Get("/v1/order/" + id + "/receipt")
		Expect(again.Status).To(Equal(http.StatusOK), "%s", again.Raw)
		Expect(partnerapi.Str(again.Body, "receipt")).To(Equal(first))

		By("another partner's request for it is 404 order not found")
		other := partnerapi.NewPartner(env, "receipt-other", 300)
		Expect(other.Get("/v1/order/" + id + "/receipt").Body["error"]).To(Equal("order not found"))
	})
})
