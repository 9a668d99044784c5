package containers

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"time"

	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// awaitFrontend returns the partner's client of the frontend Service once a ready replica
// knows the partner's key and both providers quote.
func (c *cluster) awaitFrontend() *partnerapi.Client {
	base := c.serviceURL("swaprouter-frontend", 80)
	Eventually(func(g Gomega) {
		body, _ := json.Marshal(quoteRequest())
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/quote", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Key-Id", c.keyID)
		req.Header.Set("Authorization", "Bearer "+c.secret)
		resp, err := http.DefaultClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		defer func() { _ = resp.Body.Close() }()
		var quote struct {
			Candidates []any `json:"candidates"`
		}
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		g.Expect(json.NewDecoder(resp.Body).Decode(&quote)).To(Succeed())
		g.Expect(quote.Candidates).To(HaveLen(2))
	}).Should(Succeed())
	return partnerapi.New(base, c.keyID, c.secret)
}

func quoteRequest() map[string]any {
	return map[string]any{"originAsset": partnerapi.ETH, "destinationAsset": partnerapi.SOL, "amount": partnerapi.PointOneETH, "dry": true}
}

// simulator is the simulated chain, where the user's wallet sends deposits.
func (c *cluster) simulator() *devenv.Env {
	return &devenv.Env{SimulatorURL: c.serviceURL("provider-sim", 18080)}
}

// partnerJourney: quote, order, the user's deposit, SUCCESS, and the signed webhook.
func (c *cluster) partnerJourney(api *partnerapi.Client) {
	quote := api.Post("/v1/quote", quoteRequest())
	Expect(quote.Status).To(Equal(http.StatusOK), "%s", quote.Raw)
	best := partnerapi.Obj(quote.Body, "best")
	order := api.Post("/v1/order", partnerapi.OrderRequest(partnerapi.Str(best, "providerId")))
	Expect(order.Status).To(Equal(http.StatusCreated), "%s", order.Raw)
	id := partnerapi.Str(order.Body, "id")
	Expect(partnerapi.Str(order.Body, "depositAddress")).NotTo(BeEmpty())
	partnerapi.Deposit(c.simulator(), partnerapi.Str(order.Body, "depositAddress"), partnerapi.PointOneETH)
	api.AwaitStatus(id, "SUCCESS")
	Eventually(func() []string { return statuses(c, id) }).Should(ContainElement("SUCCESS"), "the signed SUCCESS webhook")
	Expect(c.receiver.Rejected()).To(BeZero(), "webhooks whose signature did not verify")
}

// statuses are the statuses of an order's webhooks the receiver verified.
func statuses(c *cluster, orderID string) []string {
	var out []string
	for _, ev := range c.receiver.EventsFor(orderID) {
		out = append(out, ev.Status)
	}
	return out
}

// swapPage is what the swap page's script does: load the page, read the session's CSRF
// token, quote and order through the app's same-origin backend, then read the order.
func (c *cluster) swapPage(g *WithT) {
	base := c.serviceURL("swaprouter-app", 80)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	page, err := browser.Get(base + "/")
	g.Expect(err).NotTo(HaveOccurred())
	body, _ := io.ReadAll(page.Body)
	_ = page.Body.Close()
	g.Expect(page.StatusCode).To(Equal(http.StatusOK))
	g.Expect(string(body)).To(ContainSubstring("<html"))

	var session struct {
		CSRFToken string `json:"csrfToken"`
	}
	g.Expect(appCall(browser, base, http.MethodGet, "/api/session", "", nil, &session)).To(Equal(http.StatusOK))
	g.Expect(session.CSRFToken).NotTo(BeEmpty())

	var quote struct {
		Best struct {
			ProviderID string `json:"providerId"`
		} `json:"best"`
	}
	g.Eventually(func() int {
		return appCall(browser, base, http.MethodPost, "/api/quote", session.CSRFToken,
			map[string]any{"originAsset": partnerapi.ETH, "destinationAsset": partnerapi.SOL, "amount": partnerapi.PointOneETH}, &quote)
	}).Should(Equal(http.StatusOK))
	g.Expect(quote.Best.ProviderID).NotTo(BeEmpty())

	var order struct {
		ID             string `json:"id"`
		DepositAddress string `json:"depositAddress"`
	}
	g.Expect(appCall(browser, base, http.MethodPost, "/api/orders", session.CSRFToken, map[string]any{
		"originAsset": partnerapi.ETH, "destinationAsset": partnerapi.SOL, "amount": partnerapi.PointOneETH,
		"providerId": quote.Best.ProviderID, "sender": partnerapi.Sender, "recipient": partnerapi.SolRecipient,
		"idempotencyKey": "containers-test",
	}, &order)).To(Equal(http.StatusCreated))
	g.Expect(order.DepositAddress).NotTo(BeEmpty())

	var read struct {
		ID string `json:"id"`
	}
	g.Expect(appCall(browser, base, http.MethodGet, "/api/orders/"+order.ID, "", nil, &read)).To(Equal(http.StatusOK))
	g.Expect(read.ID).To(Equal(order.ID))
}

// appCall sends a same-origin request of the page's script and decodes the JSON answer
// into out; it returns the status (0 when nothing answered).
func appCall(browser *http.Client, base, method, path, csrf string, body, out any) int {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	resp, err := browser.Do(req)
	if err != nil {
		return 0
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode < 300 {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}
