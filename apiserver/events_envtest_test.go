package apiserver

import (
	"bufio"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

var _ = Describe("an event stream", func() {
	It("stays open past the server's write timeout, kept alive by heartbeats", func() {
		ns := newNamespace()
		// The write timeout is the order wait's plus 15 s.
		f := startFrontend(ns, frontendOptions{tune: func(o *Options) {
			o.WaitTimeout, o.EventsHeartbeat = time.Millisecond, 100*time.Millisecond
		}})
		keyID, secret := newPartner(ns, "acme", swapv1.PartnerSpec{RequestsPerMinute: 100})
		Eventually(func() int { return call(f.url, http.MethodGet, "/v1/usage", keyID, secret, nil).status }).Should(Equal(http.StatusOK))

		req, _ := http.NewRequest(http.MethodGet, f.url+"/v1/events", nil)
		req.Header.Set("X-Key-Id", keyID)
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		// 170 heartbeats take 17 s, past the 15 s that end an ordinary answer.
		lines := bufio.NewReader(resp.Body)
		for range 170 {
			line, err := lines.ReadString('\n')
			Expect(err).NotTo(HaveOccurred(), "the stream ended")
			Expect(line).To(Equal(": heartbeat\n"))
			_, _ = lines.ReadString('\n') // the blank line ending the comment's message
		}
	})

	It("answers with its headers at once, before any event or heartbeat", func() {
		ns := newNamespace()
		f := startFrontend(ns, frontendOptions{tune: func(o *Options) { o.EventsHeartbeat = time.Hour }})
		keyID, secret := newPartner(ns, "acme", swapv1.PartnerSpec{RequestsPerMinute: 100})
		Eventually(func() int { return call(f.url, http.MethodGet, "/v1/usage", keyID, secret, nil).status }).Should(Equal(http.StatusOK))

		req, _ := http.NewRequest(http.MethodGet, f.url+"/v1/events", nil)
		req.Header.Set("X-Key-Id", keyID)
		req.Header.Set("Authorization", "Bearer "+secret)
		opened := make(chan *http.Response, 1)
		go func() {
			defer GinkgoRecover()
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			opened <- resp
		}()
		var resp *http.Response
		Eventually(opened).Should(Receive(&resp), "the client is still waiting for the stream's headers")
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
	})
})
