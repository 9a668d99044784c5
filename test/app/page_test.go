package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	jose "github.com/go-jose/go-jose/v4"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/receipt"
)

// Assets and addresses the journeys use.
const (
	eth          = "eip155:1/slip44:60"
	sol          = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	tronUSDT     = "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
	ethAddress   = "0x1111111111111111111111111111111111111111"
	solAddress   = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	pageLoadWait = 2 * time.Minute
)

// page is one tab of one end user: a browser context of its own (own cookies, so its own
// session), or another tab of an existing user's.
type page struct {
	ctx  context.Context
	name string // screenshot prefix
}

func newPage(name string, width, height int64) *page {
	return openTab(browser, name, width, height, appURL, chromedp.WithNewBrowserContext())
}

// sameSession opens url in another tab of p's user (same cookies): a link shared within
// the browser session.
func (p *page) sameSession(url string) *page {
	return openTab(p.ctx, p.name+"-tab", 1280, 900, url)
}

func openTab(parent context.Context, name string, width, height int64, url string, opts ...chromedp.ContextOption) *page {
	GinkgoHelper()
	ctx, cancel := chromedp.NewContext(parent, opts...)
	DeferCleanup(cancel)
	p := &page{ctx: ctx, name: name}
	// The tab lives as long as the context of its first action: open it without a deadline.
	Expect(chromedp.Do(ctx)).To(Succeed())
	p.run(chromedp.EmulateViewport(width, height), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)))
	return p
}

func (p *page) run(actions ...chromedp.Action[chromedp.Void]) {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(p.ctx, pageLoadWait)
	defer cancel()
	Expect(chromedp.Do(ctx, actions...)).To(Succeed())
}

// eval returns the value of a JavaScript expression in the page (awaiting a promise).
func eval[T any](p *page, js string) T {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(p.ctx, pageLoadWait)
	defer cancel()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	Expect(err).NotTo(HaveOccurred(), js)
	return out
}

// frontendJWKS is the receipt keys the frontend publishes.
func frontendJWKS() jose.JSONWebKeySet {
	GinkgoHelper()
	resp, err := http.Get(env.FrontendURL + "/.well-known/jwks.json")
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var keys jose.JSONWebKeySet
	Expect(json.NewDecoder(resp.Body).Decode(&keys)).To(Succeed())
	return keys
}

// text is an element's visible text ("" when it is missing or hidden).
func (p *page) text(selector string) string {
	return eval[string](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e && e.getClientRects().length ? e.innerText : ''; })()`, selector))
}

func (p *page) path() string { return eval[string](p, `location.pathname`) }

func (p *page) focused() string {
	return eval[string](p, `document.activeElement.id || document.activeElement.dataset.asset || document.activeElement.tagName`)
}

// typeInto replaces a field's text by typing, as a user does.
func (p *page) typeInto(selector, text string) {
	GinkgoHelper()
	eval[bool](p, fmt.Sprintf(`(() => { document.querySelector(%q).value = ''; return true; })()`, selector))
	p.run(chromedp.SendKeys(chromedp.CSS(selector), text))
}

func (p *page) click(selector string) {
	GinkgoHelper()
	p.run(chromedp.Click(chromedp.CSS(selector)))
}

// press sends keys to whatever has the focus, as a keyboard does.
func (p *page) press(keys ...string) {
	GinkgoHelper()
	for _, k := range keys {
		p.run(chromedp.KeyEvent(k))
	}
}

// noAxeViolations runs axe-core in the page as it is now.
func (p *page) noAxeViolations(screen string) {
	GinkgoHelper()
	eval[bool](p, fmt.Sprintf(`(() => { if (typeof axe === 'undefined') { (0, eval)(%q); } return true; })()`, axeSource))
	violations := eval[[]string](p, `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v =>
		v.id + ': ' + v.help + ' — ' + v.nodes.map(n => n.target.join(' ')).join(', ')))`)
	Expect(violations).To(BeEmpty(), "axe-core on %s", screen)
}

// overflowing names the visible elements whose right edge passes the viewport's
// (scrollWidth alone misses content clipped by an ancestor's overflow).
func (p *page) overflowing() []string {
	return eval[[]string](p, `(() => {
		const w = document.documentElement.clientWidth;
		return [...document.querySelectorAll('body *')]
			.filter(e => e.getClientRects().length && !e.closest('.sr-only') && e.getBoundingClientRect().right > w + 0.5)
			.map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).split(' ').join('.') : '') +
				' right=' + Math.round(e.getBoundingClientRect().right));
	})()`)
}

// screenshot saves the page as docs/app/<name>-<step>.png when UPDATE_SCREENSHOTS is set, so
// a plain `make test` leaves the tree alone.
func (p *page) screenshot(step string) {
	GinkgoHelper()
	if os.Getenv("UPDATE_SCREENSHOTS") == "" {
		return
	}
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	Expect(err).NotTo(HaveOccurred())
	dir := filepath.Join("..", "..", "docs", "app")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, p.name+"-"+step+".png"), png, 0o644)).To(Succeed())
}

// pickToken chooses a token in the picker with the mouse: open, search, click.
func (p *page) pickToken(side, search, assetID string) {
	GinkgoHelper()
	p.click("#" + side + "-token")
	Eventually(func() bool { return eval[bool](p, `document.querySelector('#picker').open`) }).Should(BeTrue())
	p.typeInto("#picker-search", search)
	p.click(fmt.Sprintf(`#picker-list button[data-asset=%q]`, assetID))
	Eventually(func() bool { return eval[bool](p, `document.querySelector('#picker').open`) }).Should(BeFalse())
}

// tokenLabel is what a side's token button says to assistive technology ("You receive SOL Solana").
func (p *page) tokenLabel(side string) string {
	return eval[string](p, fmt.Sprintf(`[...document.querySelector('#%s-token').childNodes].filter(n => !n.closest?.('[aria-hidden="true"]'))
		.map(n => n.textContent).join('').replace(/\s+/g, ' ').trim()`, side))
}

// quoteEthToSol fills the card: ETH on Ethereum to SOL, 0.1 ETH, until the routes' quotes show.
func (p *page) quoteEthToSol() {
	GinkgoHelper()
	p.pickToken("from", "eth", eth)
	p.pickToken("to", "sol", sol)
	p.typeInto("#amount", "0.1")
	p.waitForQuote("SOL")
}

func (p *page) waitForQuote(symbol string) {
	GinkgoHelper()
	Eventually(func() string { return p.text("#candidates") }).Should(ContainSubstring(symbol))
	Eventually(func() string { return p.text("#rates") }).Should(ContainSubstring("≈"), "the rates preview shows amounts")
	Expect(p.text("#candidates .badge")).To(Equal("Best"))
	Eventually(func() string { return p.text("#order-btn") }).Should(HavePrefix("Swap via "))
}

// routeNames are the names of the routes the card lists.
func (p *page) routeNames() []string {
	return eval[[]string](p, `[...document.querySelectorAll('#candidates .route-name')].map((e) => e.textContent)`)
}

// chooseRoute picks the route named name, as a user clicks it, until the order button offers it.
func (p *page) chooseRoute(name string) {
	GinkgoHelper()
	p.run(chromedp.Click(fmt.Sprintf(`//ul[@id="candidates"]//label[.//span[@class="route-name" and text()=%q]]`, name)))
	Eventually(func() string { return p.text("#order-btn") }).Should(Equal("Swap via " + name))
}

// order fills the addresses and creates the order, returning the order's id as its address shows it.
func (p *page) order(recipient string) string {
	GinkgoHelper()
	p.typeInto("#sender", ethAddress)
	p.typeInto("#recipient", recipient)
	p.click("#order-btn")
	Eventually(p.path).Should(MatchRegexp(`^/order/ord_[a-z2-7]{26}$`), "the order has its own address")
	Eventually(func() string { return p.text("#deposit-address") }).Should(MatchRegexp(`^0x[0-9a-f]{40}$`))
	Eventually(func() bool {
		return eval[bool](p, `document.querySelector('#qr').complete && document.querySelector('#qr').naturalWidth > 100`)
	}).Should(BeTrue(), "the QR code is drawn")
	Expect(p.text("#deposit-amount")).To(Equal("0.1 ETH"))
	Expect(p.text("#status")).To(Equal("Waiting for your deposit"))
	return strings.TrimPrefix(p.path(), "/order/")
}

var _ = Describe("the swap page", func() {
	It("swaps ETH to SOL to SUCCESS on a desktop, in dollars and readable digits, and never links a simulated transaction to an explorer", func() {
		p := newPage("success", 1280, 900)
		p.noAxeViolations("the empty card")
		p.quoteEthToSol()
		p.noAxeViolations("the card with quotes")

		// Dollar values from the providers' prices, a rate line, amounts to four significant digits.
		Expect(p.text("#from-usd")).To(MatchRegexp(`^\$[0-9,]+\.\d\d$`), "the amount paid in dollars")
		Expect(p.text("#to-usd")).To(MatchRegexp(`^\$[0-9,]+\.\d\d$`), "the amount received in dollars")
		Expect(p.text("#rate-line")).To(MatchRegexp(`^1 ETH ≈ \d+(\.\d+)? SOL$`))
		received := p.text("#to-amount")
		Expect(received).To(MatchRegexp(`^\d\.\d{1,3} SOL$|^\d{2}\.\d{1,2} SOL$|^\d{3}\.?\d? SOL$`), "four significant digits, not eight decimals")
		full := eval[string](p, `document.querySelector('#to-amount .amt').title`)
		Expect(len(full)).To(BeNumerically(">", len(received)), "the full amount is one hover away")
		copied := eval[string](p, `(() => { const r = document.createRange(); r.selectNodeContents(document.querySelector('#to-amount'));
			getSelection().removeAllRanges(); getSelection().addRange(r);
			const dt = new DataTransfer(); const ev = new ClipboardEvent('copy', {clipboardData: dt, bubbles: true, cancelable: true});
			document.querySelector('#to-amount').dispatchEvent(ev); return dt.getData('text/plain'); })()`)
		Expect(copied).To(Equal(full), "copying the amount copies every digit")
		eval[bool](p, `(() => { getSelection().removeAllRanges(); return true; })()`)

		// Routes: fees summed in dollars, zero fees not listed.
		routes := p.text("#candidates")
		Expect(routes).To(ContainSubstring("Fees ≈ $"), "fees are summed in dollars")
		Expect(routes).NotTo(MatchRegexp(`\b0 (ETH|SOL)\b`), "a zero fee is not listed")
		Expect(routes).NotTo(ContainSubstring("ingress"))
		Expect(p.routeNames()).To(ConsistOf("NEAR Intents", "Chainflip", "Relay"), "every route, by its provider's display name")
		Expect(routes).NotTo(ContainSubstring("route_"))
		Expect(routes).NotTo(MatchRegexp(`\brelay\b`), "no provider id shows")
		Expect(p.text("#candidates li:has(.badge)")).To(HavePrefix("Relay"), "the simulated Relay's fees are the smallest at $300")
		Expect(p.text("#order-btn")).To(Equal("Swap via Relay"), "the best route is chosen unless the user picks another")
		p.screenshot("1-card")

		p.click("#to-token")
		Eventually(func() bool { return eval[bool](p, `document.querySelector('#picker').open`) }).Should(BeTrue())
		p.typeInto("#picker-search", "us")
		p.noAxeViolations("the token picker")
		p.screenshot("2-picker")
		p.press(kb.Escape)
		Eventually(func() bool { return eval[bool](p, `document.querySelector('#picker').open`) }).Should(BeFalse())

		p.order(solAddress)
		Expect(p.text("#receive-line")).To(MatchRegexp(`^You receive ≈ \d+(\.\d+)? SOL at 9xQe…VFin$`), "what arrives where")
		Eventually(func() string { return p.text("#deadline") }).Should(MatchRegexp(`^Send within \d+:\d\d$`))
		first := p.text("#deadline")
		Eventually(func() string { return p.text("#deadline") }).ShouldNot(Equal(first), "the deadline counts down")
		p.noAxeViolations("the deposit page")
		p.screenshot("3-deposit")

		p.click("#sim-full")
		// Relay reports its transactions, not its amounts: the page says so, and shows the
		// quote as a quote.
		Eventually(func() string { return p.text("#outcome") }).Should(ContainSubstring("Sent to you at " + solAddress))
		Expect(p.text("#outcome")).To(MatchRegexp(`Relay does not report the amount it sent; you were quoted ≈ \d+(\.\d+)? SOL\.`))
		Expect(p.text("#outcome")).NotTo(ContainSubstring("—"), "no placeholder where an amount would be")
		Expect(p.text("#status")).To(Equal("Swap complete"))
		Expect(p.text("#timeline")).To(SatisfyAll(ContainSubstring("Waiting for deposit"), ContainSubstring("Sent to you")))
		Expect(eval[int](p, `document.querySelectorAll('#outcome a').length`)).To(Equal(0),
			"in the dev system the simulated transaction links to no explorer")
		Expect(p.text("#outcome")).To(MatchRegexp(`Transaction: \S+`), "its hash is shown")
		Eventually(func() string { return p.text("#recent") }).Should(ContainSubstring("Swap complete"), "my recent orders shows it")
		Expect(p.text("#receipt-row")).To(ContainSubstring("signed receipt"))
		signed := eval[string](p, `fetch(document.querySelector('#receipt-link').href).then((r) => r.text())`)
		payload, err := receipt.Verify(signed, frontendJWKS())
		Expect(err).NotTo(HaveOccurred(), "the receipt the page offers verifies with the service's published keys")
		var claims struct {
			OrderID string `json:"orderId"`
			Status  string `json:"status"`
			Final   bool   `json:"final"`
		}
		Expect(json.Unmarshal(payload, &claims)).To(Succeed())
		Expect(claims).To(Equal(struct {
			OrderID string `json:"orderId"`
			Status  string `json:"status"`
			Final   bool   `json:"final"`
		}{strings.TrimPrefix(p.path(), "/order/"), "SUCCESS", true}))
		p.noAxeViolations("the outcome")
		p.screenshot("4-success")
	})

	It("refunds an under-deposit, on a phone, without sideways scrolling", func() {
		p := newPage("refund", 375, 740)
		p.quoteEthToSol()
		p.chooseRoute("NEAR Intents")
		p.screenshot("1-card")
		Expect(p.overflowing()).To(BeEmpty(), "the card fits the phone")
		p.noAxeViolations("the card on a phone")
		p.order(solAddress)
		p.screenshot("3-deposit")
		Expect(p.overflowing()).To(BeEmpty(), "the deposit page fits the phone")
		p.click("#sim-partial")
		Eventually(func() string { return p.text("#outcome") }).Should(ContainSubstring("Refunded 0.05 ETH"))
		Expect(p.overflowing()).To(BeEmpty(), "the outcome fits the phone")
		Expect(p.text("#outcome")).To(ContainSubstring("Less than the quoted amount arrived"))
		Expect(p.text("#status")).To(Equal("Refunded"))
		p.noAxeViolations("the refund on a phone")
		p.screenshot("4-refunded")
	})

	It("gives every order an address that survives reload, Back, Forward and a shared link, and shows it to no one else", func() {
		p := newPage("links", 320, 700)
		p.quoteEthToSol()
		Expect(p.overflowing()).To(BeEmpty(), "the card fits a 320 px phone")
		id := p.order(solAddress)
		address := p.text("#deposit-address")
		Expect(p.overflowing()).To(BeEmpty(), "the deposit page fits a 320 px phone")

		p.run(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)))
		Eventually(func() string { return p.text("#deposit-address") }).Should(Equal(address), "a reload lands on the order")
		Expect(p.path()).To(Equal("/order/" + id))

		p.run(chromedp.NavigateBack())
		Eventually(p.path).Should(Equal("/"), "Back goes to the swap card, not about:blank")
		Eventually(func() string { return p.text("#swap-h") }).Should(Equal("Swap"))
		Expect(p.text("#deposit-address")).To(BeEmpty())
		p.run(chromedp.NavigateForward())
		Eventually(func() string { return p.text("#deposit-address") }).Should(Equal(address), "Forward comes back to the order")

		p.click("#new-swap")
		Eventually(p.path).Should(Equal("/"))
		Eventually(func() string { return p.text("#recent") }).Should(ContainSubstring("Waiting for your deposit"))
		p.click("#recent a")
		Eventually(p.path).Should(Equal("/order/"+id), "a recent order is a link to its page")
		Eventually(func() string { return p.text("#deposit-address") }).Should(Equal(address))

		shared := p.sameSession(appURL + "/order/" + id)
		Eventually(func() string { return shared.text("#deposit-address") }).Should(Equal(address), "a link shared within the session opens the order")

		stranger := newPage("stranger", 1280, 900)
		stranger.run(chromedp.Navigate(appURL+"/order/"+id), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)))
		Eventually(func() string { return stranger.text("#error") }).Should(ContainSubstring("We cannot find this swap."))
		body := stranger.text("body")
		Expect(body).NotTo(ContainSubstring(address), "another session sees nothing of the order")
		Expect(body).NotTo(ContainSubstring(solAddress))
		Expect(stranger.text("#order-body")).To(BeEmpty())
		stranger.noAxeViolations("an order of another session")
	})

	It("flips what you pay and what you receive", func() {
		p := newPage("flip", 1280, 900)
		p.quoteEthToSol()
		Expect(p.tokenLabel("from")).To(Equal("You pay with ETH Ethereum"))
		p.click("#flip")
		Eventually(func() string { return p.tokenLabel("from") }).Should(Equal("You pay with SOL Solana"))
		Expect(p.tokenLabel("to")).To(Equal("You receive ETH Ethereum"))
		Expect(eval[string](p, `document.querySelector('#amount').value`)).To(Equal("0.1"), "the amount stays")
		Eventually(func() string { return p.text("#rate-line") }).Should(MatchRegexp(`^1 SOL ≈ [0-9.]+ ETH$`), "the quote follows the flip")
		Expect(p.text("#to-amount")).To(HaveSuffix(" ETH"))
	})

	It("picks a token with the keyboard alone", func() {
		p := newPage("keyboard", 1280, 900)
		p.click("#amount")
		p.run(chromedp.SendKeys(chromedp.CSS("#amount"), "0.1"))
		p.press(kb.Tab, kb.Tab, kb.Tab)
		Expect(p.focused()).To(Equal("to-token"), "amount → pay token → flip → receive token")
		p.press(kb.Enter)
		Eventually(func() bool { return eval[bool](p, `document.querySelector('#picker').open`) }).Should(BeTrue())
		Expect(p.focused()).To(Equal("picker-search"), "the picker opens on its search field")
		p.noAxeViolations("the picker opened by keyboard")
		p.press(kb.Escape)
		Eventually(func() bool { return eval[bool](p, `document.querySelector('#picker').open`) }).Should(BeFalse())
		Expect(p.focused()).To(Equal("to-token"), "Escape closes it and focus goes back")
		Expect(p.tokenLabel("to")).To(Equal("You receive Select token"), "nothing was picked")

		p.press(kb.Enter)
		Eventually(func() bool { return eval[bool](p, `document.querySelector('#picker').open`) }).Should(BeTrue())
		for _, r := range "solana" {
			p.run(chromedp.KeyEvent(string(r)))
		}
		Eventually(func() string { return p.text("#picker-list") }).Should(ContainSubstring("SOL"))
		p.press(kb.ArrowDown)
		Expect(p.focused()).To(Equal(eval[string](p, `document.querySelector('#picker-list button').dataset.asset`)), "↓ enters the list")
		p.press(kb.Enter)
		Eventually(func() bool { return eval[bool](p, `document.querySelector('#picker').open`) }).Should(BeFalse())
		Expect(p.tokenLabel("to")).To(HaveSuffix(" Solana"))
		Expect(p.focused()).To(Equal("to-token"))
		p.waitForQuote(p.text("#to-token .token-sym"))
	})

	It("says at the amount field that no route takes the amount, names the same cause in the rates, and clears it once the amount is fixed", func() {
		// Relay refuses 0.000001 ETH without stating its minimum, which is below route_A's and
		// route_B's stated ones: no number is the minimum, so the page names none.
		p := newPage("minimum", 1280, 900)
		p.pickToken("from", "eth", eth)
		p.pickToken("to", "sol", sol)
		p.typeInto("#amount", "0.000001")
		Eventually(func() string { return p.text("#amount-msg") }).Should(Equal("Amount too low for every route"))
		Expect(eval[string](p, `document.querySelector('#amount').getAttribute('aria-invalid')`)).To(Equal("true"))
		Eventually(func() string { return p.text("#rates") }).Should(ContainSubstring("SOL: Amount too low for every route"), "the rates box names the same cause")
		Expect(p.text("#rates")).NotTo(ContainSubstring("no route"))
		Expect(p.text("#rates")).NotTo(ContainSubstring("Minimum"), "no route's stated minimum is offered as the minimum")
		Expect(p.text("#error")).To(BeEmpty(), "the amount's problem is at the amount, not at the top")
		Expect(p.text("#order-btn")).To(Equal("Amount below the minimum"))
		Expect(eval[bool](p, `document.querySelector('#order-btn').disabled`)).To(BeTrue())
		p.noAxeViolations("an amount below every route's minimum")
		p.screenshot("1-below")

		// 0.001 ETH (about $3) is below route_A's stated minimum (0.003334 ETH) but Relay takes
		// it: that minimum would have been false.
		p.typeInto("#amount", "0.001")
		p.waitForQuote("SOL")
		Expect(p.text("#amount-msg")).To(BeEmpty(), "the message goes once the amount is fixed")
		Expect(p.text("#error")).To(BeEmpty())
		Expect(eval[string](p, `String(document.querySelector('#amount').getAttribute('aria-invalid'))`)).To(Equal("null"))
	})

	It("states the minimum at the amount field when every route states its own, and that amount is enough", func() {
		// Relay does not route USDT on Tron; route_A (from $10) and route_B (from $20) state
		// their minimums, so the lowest is the minimum.
		p := newPage("stated-minimum", 1280, 900)
		p.pickToken("from", "eth", eth)
		p.pickToken("to", "usdt", tronUSDT)
		p.typeInto("#amount", "0.000001")
		Eventually(func() string { return p.text("#amount-msg") }).Should(Equal("Minimum 0.003334 ETH"), "route_A's $10 at $3,000, rounded up")
		Expect(p.text("#error")).To(BeEmpty())
		Expect(p.text("#order-btn")).To(Equal("Amount below the minimum"))
		p.screenshot("1-below-stated")

		p.typeInto("#amount", "0.003334")
		p.waitForQuote("USDT")
		Expect(p.text("#amount-msg")).To(BeEmpty(), "the minimum stated is an amount a route takes")
	})

	It("says what is wrong with an address for the wrong chain and creates no order", func() {
		p := newPage("validation", 1280, 900)
		p.quoteEthToSol()
		p.typeInto("#sender", ethAddress)
		p.typeInto("#recipient", ethAddress) // an Ethereum address for SOL on Solana
		p.click("#order-btn")
		Eventually(func() string { return p.text("#recipient-msg") }).Should(ContainSubstring("A Solana address is 32–44 base58 characters"))
		Expect(eval[string](p, `document.querySelector('#recipient').getAttribute('aria-invalid')`)).To(Equal("true"))
		Eventually(p.focused).Should(Equal("recipient"), "focus goes to the field to fix")
		Expect(p.path()).To(Equal("/"))
		p.noAxeViolations("a wrong address")
		p.screenshot("1-bad-address")
	})

	It("throttles one user without slowing down another", func() {
		greedy := newPage("throttle", 1280, 900)
		statuses := eval[[]float64](greedy, fmt.Sprintf(`Promise.all(Array.from({length: %d}, () =>
			fetch('/api/address-check?asset=%s&address=x').then(r => r.status)))`, perSession+5, "eip155%3A1%2Fslip44%3A60"))
		Expect(statuses).To(ContainElement(429.0), "the greedy session is refused past its budget")
		greedy.pickToken("to", "sol", sol)
		greedy.typeInto("#amount", "0.1")
		Eventually(func() string { return greedy.text("#error") }).Should(SatisfyAll(
			ContainSubstring("Too many requests right now."), MatchRegexp(`Wait \d+ seconds and try again.`)))
		Eventually(func() string { return greedy.text("#rates") }).Should(ContainSubstring("Too many requests right now."),
			"the rates preview says why it shows no rates, in full")
		greedy.noAxeViolations("a throttled user")
		greedy.screenshot("1-throttled")

		other := newPage("throttle-other", 1280, 900)
		other.quoteEthToSol()
		Expect(other.text("#error")).To(BeEmpty(), "another user is served as usual")
	})

	It("never lets the partner key reach the browser", func() {
		p := newPage("secret", 1280, 900)
		p.quoteEthToSol()
		n, found := seen.contains(env.Secret)
		Expect(n).To(BeNumerically(">", 5), "responses were recorded")
		Expect(found).To(BeFalse(), "the partner secret is in no response header or body")
		_, found = seen.contains("Bearer ")
		Expect(found).To(BeFalse())
		cookies := eval[string](p, `document.cookie`)
		Expect(cookies).NotTo(ContainSubstring(env.Secret))
	})

	It("counts down to the quotes' expiry, or to the page's own refresh, and the deposit window (countdown.js in the browser)", func() {
		p := newPage("countdown", 800, 600)
		got := eval[[]string](p, `import('/countdown.js').then(({quoteDeadline, countdownText, timeLeftText, REFRESH_MS}) => {
			const t0 = Date.parse('2026-01-01T00:00:00Z');
			const promised = quoteDeadline([{expiresAt: '2026-01-01T00:02:05Z'}, {expiresAt: '2026-01-01T00:01:30Z'}, {}], t0);
			const own = quoteDeadline([{}, {expiresAt: 'not a time'}], t0);
			return [
				countdownText(promised, t0), countdownText(promised, t0 + 89500), countdownText(promised, t0 + 90000),
				countdownText(own, t0), countdownText(own, t0 + REFRESH_MS - 1), countdownText(own, t0 + REFRESH_MS + 5000),
				String(promised.at - t0), String(own.at - t0),
				timeLeftText('2026-01-01T01:00:00Z', t0), timeLeftText('2026-01-01T00:59:12Z', t0 + 500),
				timeLeftText('2026-01-01T02:01:02Z', t0), timeLeftText('2026-01-01T00:00:00Z', t0),
			];
		})`)
		Expect(got).To(Equal([]string{
			"Quotes valid for 1:30", "Quotes valid for 0:01", "",
			"Quotes refresh in 0:30", "Quotes refresh in 0:01", "",
			"90000", "30000",
			"1:00:00", "59:11", "2:01:02", "",
		}))
	})

	It("converts amounts exactly, both ways, and shows them to significant digits (units.js in the browser)", func() {
		p := newPage("units", 800, 600)
		type row struct {
			Text, Base string
			Decimals   int
			Err        string
		}
		rows := eval[[]row](p, `import('/units.js').then(({toBaseUnits, fromBaseUnits}) => [
			['1.5', 18], ['0.000000000000000001', 18], ['123456789012345678901234567890.123456789012345678', 18],
			['0.1', 6], ['.5', 8], ['7', 0], ['1.', 24], ['1.0000001', 6], ['1,5', 18], ['0', 18], ['', 18], ['1.5', 0],
		].map(([text, decimals]) => { try { return {Text: text, Decimals: decimals, Base: toBaseUnits(text, decimals), Err: ''}; }
			catch (e) { return {Text: text, Decimals: decimals, Base: '', Err: e.message}; } }))`)
		want := map[string]string{
			"1.5/18": "1500000000000000000", "0.000000000000000001/18": "1",
			"123456789012345678901234567890.123456789012345678/18": "123456789012345678901234567890123456789012345678",
			"0.1/6": "100000", ".5/8": "50000000", "7/0": "7", "1./24": "1000000000000000000000000",
		}
		wantErr := map[string]string{
			"1.0000001/6": "This asset has at most 6 decimal places.", "1,5/18": "Use digits and one dot, like 0.5.",
			"0/18": "Enter an amount above zero.", "/18": "Enter an amount, like 0.5.", "1.5/0": "This asset has no decimal places.",
		}
		for _, r := range rows {
			key := fmt.Sprintf("%s/%d", r.Text, r.Decimals)
			if w, ok := want[key]; ok {
				Expect(r.Base).To(Equal(w), key)
			} else {
				Expect(r.Err).To(Equal(wantErr[key]), key)
			}
		}
		back := eval[[]string](p, `import('/units.js').then(({fromBaseUnits}) => [
			fromBaseUnits('1500000000000000000', 18), fromBaseUnits('1', 18), fromBaseUnits('123456789012345678901234567890123456789012345678', 18),
			fromBaseUnits('100000', 6), fromBaseUnits('7', 0), fromBaseUnits('1999999999', 9, 8), fromBaseUnits('0', 9)])`)
		Expect(back).To(Equal([]string{"1.5", "0.000000000000000001", "123456789012345678901234567890.123456789012345678",
			"0.1", "7", "1.99999999", "0"}))
		Expect(strings.Join(back, "")).NotTo(ContainSubstring("e"), "never scientific notation")

		shown := eval[[]string](p, `import('/units.js').then(({significant, usdText, usdValue}) => [
			significant('1982666660', 9), significant('3333333333333334', 18, 4, 'up'), significant('3333333333333334', 18),
			significant('3333000000000000', 18, 4, 'up'), significant('123456789000', 6), significant('0', 18), significant('1', 18),
			usdText(usdValue('100000000000000000', 18, 2487.61)), usdText(usdValue('1', 18, 2487.61)), usdText(usdValue('1', 18, 0)),
			usdText(usdValue('1234567890', 6, 1)),
		])`)
		Expect(shown).To(Equal([]string{"1.982", "0.003334", "0.003333", "0.003333", "123456", "0", "0.000000000000000001",
			"$248.76", "<$0.01", "", "$1,234.57"}))
	})
})
