package isolation

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
)

// key is one partner API key.
type key struct{ id, secret string }

// newPartner declares a Partner and gives it a key the way operators do (auth.CreateKey).
func newPartner(name string, spec swapv1.PartnerSpec) key {
	GinkgoHelper()
	p := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: spec}
	Expect(k8sClient.Create(context.Background(), p)).To(Succeed())
	id, secret, err := auth.CreateKey(context.Background(), k8sClient, namespace, name)
	Expect(err).NotTo(HaveOccurred())
	k := key{id, secret}
	// The frontend reads partners from its cache: wait until it knows the key. The one probe
	// that gets past authentication spends one token of the key's rate limit.
	Eventually(func() int { return send(k, http.MethodGet, "/v1/assets", nil).status }).ShouldNot(Equal(http.StatusUnauthorized))
	return k
}

// answer is one HTTP response, read in full.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// object decodes the body as a JSON object.
func (a answer) object() map[string]any {
	GinkgoHelper()
	var m map[string]any
	Expect(json.Unmarshal(a.body, &m)).To(Succeed(), "body %q", a.body)
	return m
}

// errorCode is the `error` of an error answer.
func (a answer) errorCode() string {
	GinkgoHelper()
	code, _ := a.object()["error"].(string)
	return code
}

// The suite's client: keep-alive, more idle connections than the default two so that the
// concurrent specs measure the server and not connection setup.
var httpClient = &http.Client{
	Timeout:   30 * time.Second,
	Transport: &http.Transport{MaxIdleConns: 300, MaxIdleConnsPerHost: 300, IdleConnTimeout: 30 * time.Second},
}

// send calls the frontend with k's credentials (none when k is zero); body is JSON-encoded
// unless it is []byte; headers are name, value pairs.
func send(k key, method, path string, body any, headers ...string) answer {
	GinkgoHelper()
	return sendTo(baseURL, k, method, path, body, headers...)
}

// burst sends n requests at once (send(i) makes request i) and returns their answers and how
// long they took, from which a spec derives the refill a rate limit allows meanwhile.
func burst(n int, send func(i int) answer) ([]answer, time.Duration) {
	start := time.Now()
	var wg sync.WaitGroup
	gate := make(chan struct{})
	answers := make([]answer, n)
	for i := range n {
		wg.Go(func() {
			defer GinkgoRecover()
			<-gate
			answers[i] = send(i)
		})
	}
	close(gate)
	wg.Wait()
	return answers, time.Since(start)
}

// sendTo is send to the frontend at base (another replica).
func sendTo(base string, k key, method, path string, body any, headers ...string) answer {
	GinkgoHelper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		Expect(err).NotTo(HaveOccurred())
		rd = bytes.NewReader(raw)
	}
	r, err := http.NewRequest(method, base+path, rd)
	Expect(err).NotTo(HaveOccurred())
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if k.id != "" {
		r.Header.Set("X-Key-Id", k.id)
		r.Header.Set("Authorization", "Bearer "+k.secret)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	resp, err := httpClient.Do(r)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return answer{status: resp.StatusCode, header: resp.Header, body: raw}
}

func orderBody() map[string]any {
	return map[string]any{"originAsset": eth, "destinationAsset": usdc, "amount": "5000",
		"sender": "0x1111111111111111111111111111111111111111", "recipient": "0x2222222222222222222222222222222222222222", "providerId": "route_B"}
}

func dryQuote() map[string]any {
	return map[string]any{"originAsset": eth, "destinationAsset": usdc, "amount": "5000"}
}
