package containers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"time"

	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// awaitFrontend returns the partner's client of the frontend Service once a ready replica
// knows the partner's key and both providers quote.
func (c *cluster) awaitFrontend() *partnerapi.Client {
	base := c.serviceURL("swaprouter-frontend", 80)
	// Not partnerapi's client yet: it fails the spec on a refused connection, which is what
	// a replica that is not ready answers.
	api, err := swapclient.NewClientWithResponses(base, swapclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Key-Id", c.keyID)
		r.Header.Set("Authorization", "Bearer "+c.secret)
		return nil
	}))
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(g Gomega) {
		quote, err := api.RequestQuoteWithResponse(context.Background(), nil, quoteRequest())
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(quote.JSON200).NotTo(BeNil(), "%d %s", quote.StatusCode(), quote.Body)
		g.Expect(quote.JSON200.Candidates).To(HaveLen(2))
	}).Should(Succeed())
	return partnerapi.New(base, c.keyID, c.secret)
}

func quoteRequest() swapclient.QuoteRequest {
	dry := true
	return swapclient.QuoteRequest{OriginAsset: partnerapi.ETH, DestinationAsset: partnerapi.SOL, Amount: partnerapi.PointOneETH, Dry: &dry}
}

// simulator is the simulated chain, where the user's wallet sends deposits.
func (c *cluster) simulator() *devenv.Env {
	return &devenv.Env{SimulatorURL: c.serviceURL("provider-sim", 18080)}
}

// partnerJourney: quote, order, the user's deposit, SUCCESS, and the signed webhook.
func (c *cluster) partnerJourney(api *partnerapi.Client) {
	quote, err := api.API.RequestQuoteWithResponse(context.Background(), nil, quoteRequest())
	Expect(err).NotTo(HaveOccurred())
	Expect(quote.JSON200).NotTo(BeNil(), "%d %s", quote.StatusCode(), quote.Body)
	order := api.CreateOrder(partnerapi.OrderRequest(quote.JSON200.Best.ProviderId), "")
	id := order.Id
	Expect(order.DepositAddress).NotTo(BeNil())
	partnerapi.Deposit(c.simulator(), *order.DepositAddress, partnerapi.PointOneETH)
	api.AwaitStatus(id, swapclient.OrderStatusSUCCESS)
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
