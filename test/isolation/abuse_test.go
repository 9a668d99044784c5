package isolation

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

var _ = Describe("authentication failures", Ordered, func() {
	var live, expired key
	// cases are the ways to be refused; each must be indistinguishable from the others.
	var cases map[string]key

	BeforeAll(func() {
		live = newPartner("auth-live", swapv1.PartnerSpec{})
		expired = newPartner("auth-expired", swapv1.PartnerSpec{})
		p := &swapv1.Partner{}
		Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: "auth-expired"}, p)).To(Succeed())
		p.Spec.Keys[0].ExpiresAt = &metav1.Time{Time: time.Now().Add(-time.Minute)}
		Expect(k8sClient.Update(context.Background(), p)).To(Succeed())
		Eventually(func() int { return send(expired, http.MethodGet, "/v1/assets", nil).status }).Should(Equal(http.StatusUnauthorized))

		cases = map[string]key{
			"unknown key id":             {id: "nosuchkey" + strconv.Itoa(rand.IntN(1e6)), secret: live.secret},
			"wrong secret":               {id: live.id, secret: live.secret + "x"},
			"another partner's secret":   {id: live.id, secret: expired.secret},
			"expired key, right secret":  expired,
			"no credentials":             {},
			"key id without secret":      {id: live.id},
			"over-long key id":           {id: strings.Repeat("k", 200), secret: live.secret},
			"secret hash instead of key": {id: live.id, secret: "0000000000000000000000000000000000000000000000000000000000000000"},
		}
	})

	It("answers every refusal with the same status, headers and body", func() {
		var first answer
		var firstName string
		for name, k := range cases {
			a := send(k, http.MethodGet, "/v1/assets", nil)
			GinkgoWriter.Printf("%-28s %d %s", name, a.status, a.body)
			Expect(a.status).To(Equal(http.StatusUnauthorized), name)
			Expect(a.errorCode()).To(Equal("unauthorized"), name)
			// Nothing about the key's bucket leaks before the caller is known.
			Expect(a.header.Get("X-RateLimit-Limit")).To(BeEmpty(), name)
			if firstName == "" {
				first, firstName = a, name
				continue
			}
			Expect(a.body).To(Equal(first.body), "%s vs %s", name, firstName)
			Expect(a.header.Get("WWW-Authenticate")).To(Equal(first.header.Get("WWW-Authenticate")), name)
			Expect(a.header.Get("Content-Type")).To(Equal(first.header.Get("Content-Type")), name)
		}
		Expect(send(live, http.MethodGet, "/v1/assets", nil).status).To(Equal(http.StatusOK))
	})
})

var _ = Describe("the origin allowlist", func() {
	const app, otherApp, evil = "https://app.browser.example", "https://strict.example", "https://evil.example"

	It("lets listed origins in with CORS headers and refuses others with 403 `origin not allowed`", func() {
		browser := newPartner("browser", swapv1.PartnerSpec{AllowedOrigins: []string{app}})
		strict := newPartner("strict", swapv1.PartnerSpec{AllowedOrigins: []string{otherApp}, RequireOrigin: true})

		server := send(browser, http.MethodGet, "/v1/assets", nil)
		Expect(server.status).To(Equal(http.StatusOK), "no Origin: server to server")
		Expect(server.header.Get("Access-Control-Allow-Origin")).To(BeEmpty())

		allowed := send(browser, http.MethodGet, "/v1/assets", nil, "Origin", app)
		Expect(allowed.status).To(Equal(http.StatusOK))
		Expect(allowed.header.Get("Access-Control-Allow-Origin")).To(Equal(app))
		Expect(allowed.header.Values("Vary")).To(ContainElement("Origin"))

		for name, c := range map[string]struct {
			k      key
			origin string
		}{
			"unlisted origin":                     {browser, evil},
			"origin another partner lists":        {browser, otherApp},
			"no origin where one is required":     {strict, ""},
			"listed origin's lookalike subdomain": {browser, "https://app.browser.example.evil.example"},
			"listed origin over http":             {browser, "http://app.browser.example"},
		} {
			var headers []string
			if c.origin != "" {
				headers = []string{"Origin", c.origin}
			}
			a := send(c.k, http.MethodGet, "/v1/assets", nil, headers...)
			Expect(a.status).To(Equal(http.StatusForbidden), name)
			Expect(a.errorCode()).To(Equal("origin not allowed"), name)
			Expect(a.header.Get("Access-Control-Allow-Origin")).To(BeEmpty(), name)
		}
		Expect(send(strict, http.MethodGet, "/v1/assets", nil, "Origin", otherApp).status).To(Equal(http.StatusOK))

		preflight := func(origin string) answer {
			return send(key{}, http.MethodOptions, "/v1/quote", nil, "Origin", origin,
				"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,x-key-id,content-type")
		}
		ok := preflight(app)
		Expect(ok.status).To(Equal(http.StatusNoContent))
		Expect(ok.header.Get("Access-Control-Allow-Origin")).To(Equal(app))
		Expect(ok.header.Get("Access-Control-Allow-Methods")).To(ContainSubstring("POST"))
		Expect(strings.ToLower(ok.header.Get("Access-Control-Allow-Headers"))).To(
			And(ContainSubstring("x-key-id"), ContainSubstring("authorization")))
		refused := preflight(evil)
		Expect(refused.status).To(Equal(http.StatusForbidden))
		Expect(refused.header.Get("Access-Control-Allow-Origin")).To(BeEmpty())
	})
})

var _ = Describe("the per-key rate limit", func() {
	It("admits no more than the limit out of 200 concurrent requests, and only for that key", func() {
		const limit, concurrent = 50, 200
		bystander := newPartner("bystander", swapv1.PartnerSpec{})
		bursty := newPartner("burst", swapv1.PartnerSpec{RequestsPerMinute: limit})
		// newPartner spent one token (its readiness probe).
		const spent = 1
		answers, elapsed := burst(concurrent, func(int) answer { return send(bursty, http.MethodGet, "/v1/assets", nil) })

		counts := map[int]int{}
		for _, a := range answers {
			counts[a.status]++
			Expect(a.header.Get("X-RateLimit-Limit")).To(Equal(strconv.Itoa(limit)))
			if a.status == http.StatusTooManyRequests {
				Expect(a.errorCode()).To(Equal("rate limit exceeded"))
				Expect(a.header.Get("X-RateLimit-Remaining")).To(Equal("0"))
				retry, err := strconv.Atoi(a.header.Get("Retry-After"))
				Expect(err).NotTo(HaveOccurred())
				Expect(retry).To(BeNumerically(">=", 1))
			}
		}
		// The bucket refills evenly over the minute: what came back during the burst counts.
		refill := int(elapsed.Minutes()*limit) + 1
		GinkgoWriter.Printf("rate limit %d/min, %d concurrent: %d admitted, %d refused (429), other %v, in %v (refill allowance %d)\n",
			limit, concurrent, counts[http.StatusOK], counts[http.StatusTooManyRequests], counts, elapsed, refill)
		AddReportEntry("rate limit burst", fmt.Sprintf("%d/%d admitted at %d/min in %v", counts[http.StatusOK], concurrent, limit, elapsed))
		Expect(counts[http.StatusOK]+counts[http.StatusTooManyRequests]).To(Equal(concurrent), "only 200s and 429s")
		Expect(counts[http.StatusOK]+spent).To(BeNumerically("<=", limit+refill), "admitted beyond the limit")
		Expect(counts[http.StatusOK]+spent).To(BeNumerically(">=", limit), "refused within the limit")

		Expect(send(bystander, http.MethodGet, "/v1/assets", nil).status).To(Equal(http.StatusOK), "another key was throttled")
	})
})

var _ = Describe("request size limits", func() {
	var k key
	BeforeEach(func() { k = newPartner("sizes-"+strconv.Itoa(rand.IntN(1e9)), swapv1.PartnerSpec{}) })

	padded := func(size int) []byte {
		b := []byte(`{"originAsset":"` + eth + `","destinationAsset":"` + usdc + `","amount":"5000"}`)
		return append(b, []byte(strings.Repeat(" ", size-len(b)))...)
	}

	It("accepts a body of exactly 64 KiB and refuses one byte more with 413 `body too large`", func() {
		Expect(send(k, http.MethodPost, "/v1/quote", padded(64<<10)).status).To(Equal(http.StatusOK))
		over := send(k, http.MethodPost, "/v1/quote", padded(64<<10+1))
		Expect(over.status).To(Equal(http.StatusRequestEntityTooLarge))
		Expect(over.errorCode()).To(Equal("body too large"))
	})

	It("refuses an oversized chunked body (no Content-Length) with 413", func() {
		r, err := http.NewRequest(http.MethodPost, baseURL+"/v1/quote", io.MultiReader(strings.NewReader(string(padded(256<<10)))))
		Expect(err).NotTo(HaveOccurred())
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Key-Id", k.id)
		r.Header.Set("Authorization", "Bearer "+k.secret)
		resp, err := httpClient.Do(r)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(r.ContentLength).To(BeZero(), "sent chunked")
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge))
	})

	It("refuses request headers over the limit with 431", func() {
		a := send(k, http.MethodGet, "/v1/assets", nil, "X-Padding", strings.Repeat("a", 4*maxHeaderBytes))
		Expect(a.status).To(Equal(http.StatusRequestHeaderFieldsTooLarge))
	})
})

var _ = Describe("slow clients", func() {
	// dialRaw opens a plain TCP connection to the frontend.
	dialRaw := func() net.Conn {
		GinkgoHelper()
		conn, err := net.Dial("tcp", strings.TrimPrefix(baseURL, "http://"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(conn.Close)
		return conn
	}
	// awaitEnd reads until the server ends the connection, and returns what it sent and when
	// it ended; it fails when the server holds the connection past limit.
	awaitEnd := func(conn net.Conn, limit time.Duration) (string, time.Duration) {
		GinkgoHelper()
		start := time.Now()
		Expect(conn.SetReadDeadline(start.Add(limit))).To(Succeed())
		got, err := io.ReadAll(conn)
		var ne net.Error
		Expect(errors.As(err, &ne) && ne.Timeout()).To(BeFalse(), "the server still held the connection after %v", limit)
		return string(got), time.Since(start)
	}

	It("cuts off a client that sends its headers too slowly (ReadHeaderTimeout)", func() {
		conn := dialRaw()
		_, err := io.WriteString(conn, "GET /v1/assets HTTP/1.1\r\nHost: swaprouter\r\nX-Key-Id: ")
		Expect(err).NotTo(HaveOccurred())
		// ... and never finishes the header block.
		got, after := awaitEnd(conn, 20*readHeaderTimeout)
		GinkgoWriter.Printf("slow headers: connection ended after %v (ReadHeaderTimeout %v), server sent %q\n", after, readHeaderTimeout, got)
		AddReportEntry("slow headers cut off after", after.String())
		Expect(got).NotTo(ContainSubstring("200 OK"))
	})

	It("cuts off a client that stalls in the middle of its body (ReadTimeout)", func() {
		k := newPartner("slowbody", swapv1.PartnerSpec{})
		conn := dialRaw()
		w := bufio.NewWriter(conn)
		fmt.Fprintf(w, "POST /v1/quote HTTP/1.1\r\nHost: swaprouter\r\nX-Key-Id: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"originAsset\":", k.id, k.secret)
		Expect(w.Flush()).To(Succeed())
		got, after := awaitEnd(conn, 5*readTimeout)
		GinkgoWriter.Printf("stalled body: connection ended after %v (ReadTimeout %v), server sent %q\n", after, readTimeout, firstLine(got))
		AddReportEntry("stalled body cut off after", after.String())
		if got != "" {
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(got)), nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.StatusCode).To(BeNumerically("<", 500), "a client's stall is not a server error")
		}
	})
})

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	return line
}
