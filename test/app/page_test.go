package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Assets and addresses the journeys use.
const (
	eth          = "eip155:1/slip44:60"
	sol          = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	ethAddress   = "0x1111111111111111111111111111111111111111"
	solAddress   = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	pageLoadWait = 2 * time.Minute
)

// page is one end user: a browser context of its own (own cookies, so its own session).
type page struct {
	ctx  context.Context
	name string // screenshot prefix
}

func newPage(name string, width, height int64) *page {
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	DeferCleanup(cancel)
	p := &page{ctx: ctx, name: name}
	// The tab lives as long as the context of its first action: open it without a deadline.
	Expect(chromedp.Do(ctx)).To(Succeed())
	p.run(chromedp.EmulateViewport(width, height), chromedp.Navigate(appURL),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)))
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

// text is an element's visible text ("" when it is missing or hidden).
func (p *page) text(selector string) string {
	return eval[string](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e && e.offsetParent !== null ? e.innerText : ''; })()`, selector))
}

// choose picks an option of a select the way a user's selection does (with a change event).
func (p *page) choose(selector, value string) {
	GinkgoHelper()
	ok := eval[bool](p, fmt.Sprintf(`(() => { const s = document.querySelector(%q);
		if (![...s.options].some(o => o.value === %q)) return false;
		s.value = %q; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, selector, value, value))
	Expect(ok).To(BeTrue(), "%s offers %s", selector, value)
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

// screenshot saves the page as docs/app/<name>.png when UPDATE_SCREENSHOTS is set, so a plain
// `make test` leaves the tree alone.
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

// quoteEthToSol walks step 1 and 2: ETH on Ethereum to SOL, 0.1 ETH, the routes' quotes.
func (p *page) quoteEthToSol() {
	GinkgoHelper()
	p.pickEthToSol()
	p.getQuotes()
}

// pickEthToSol fills step 1: ETH on Ethereum to SOL, 0.1 ETH, until the rates preview shows.
func (p *page) pickEthToSol() {
	GinkgoHelper()
	p.choose("#from-chain", "eth")
	p.choose("#from-asset", eth)
	p.typeInto("#to-search", "sol")
	p.choose("#to-asset", sol)
	p.typeInto("#amount", "0.1")
	Eventually(func() string { return p.text("#rates") }).Should(ContainSubstring("≈"), "the live rates preview shows amounts")
	Expect(p.text("#rates")).To(ContainSubstring("on Solana"), "each rate names its chain")
	Expect(eval[string](p, `document.querySelector('#to-asset').selectedOptions[0].text`)).To(Equal("SOL (Solana)"),
		"a name that repeats the symbol is not shown twice")
}

// getQuotes asks for the routes' quotes and waits for them.
func (p *page) getQuotes() {
	GinkgoHelper()
	p.click("#quote-btn")
	Eventually(func() string { return p.text("#candidates") }).Should(ContainSubstring("SOL"))
	Expect(p.text("#candidates .badge")).To(Equal("Best"))
	// Dry quotes from the simulator carry no expiresAt, so the page shows its own refresh
	// countdown. Eventually: a slow run may catch the moment it re-quotes, which shows it anew.
	Eventually(func() string { return p.text("#quote-expiry") }).Should(MatchRegexp(`^Quotes refresh in 0:[0-3]\d$`))
}

// order fills the addresses and creates the order, returning the deposit address shown.
func (p *page) order(recipient string) string {
	GinkgoHelper()
	p.typeInto("#sender", ethAddress)
	p.typeInto("#recipient", recipient)
	p.screenshot("2-quote")
	p.click("#order-btn")
	Eventually(func() string { return p.text("#deposit-address") }).Should(MatchRegexp(`^0x[0-9a-f]{40}$`))
	Eventually(func() bool {
		return eval[bool](p, `document.querySelector('#qr').complete && document.querySelector('#qr').naturalWidth > 100`)
	}).Should(BeTrue(), "the QR code is drawn")
	Expect(p.text("#deposit-amount")).To(Equal("0.1 ETH"))
	Expect(p.text("#status")).To(Equal("Waiting for your deposit"))
	return p.text("#deposit-address")
}

var _ = Describe("the swap page", func() {
	It("swaps ETH to SOL to SUCCESS, on a desktop", func() {
		p := newPage("success", 1280, 900)
		p.pickEthToSol()
		p.screenshot("1-pick")
		p.getQuotes()
		Expect(p.text("#candidates")).To(ContainSubstring("egress fee 0.02 SOL"), "fees read as words")
		p.order(solAddress)
		p.screenshot("3-deposit")
		p.click("#sim-full")
		Eventually(func() string { return p.text("#outcome") }).Should(ContainSubstring("You received"))
		Expect(p.text("#status")).To(Equal("Swap complete"))
		Expect(p.text("#timeline")).To(SatisfyAll(ContainSubstring("Waiting for deposit"), ContainSubstring("Sent to you")))
		link := eval[string](p, `document.querySelector('#outcome a').href`)
		Expect(link).To(HavePrefix("https://solscan.io/tx/"), "the output transaction links to the explorer")
		Eventually(func() string { return p.text("#recent") }).Should(ContainSubstring("Swap complete"), "my recent orders shows it")
		p.screenshot("4-success")
	})

	It("refunds an under-deposit, on a 320 px phone", func() {
		p := newPage("refund", 320, 700)
		p.pickEthToSol()
		p.screenshot("1-pick")
		Expect(p.overflowing()).To(BeEmpty(), "nothing is wider than the phone")
		p.getQuotes()
		Expect(p.overflowing()).To(BeEmpty(), "quote cards fit the phone")
		p.order(solAddress)
		p.screenshot("3-deposit")
		Expect(p.overflowing()).To(BeEmpty(), "the deposit screen fits the phone")
		p.click("#sim-partial")
		Eventually(func() string { return p.text("#outcome") }).Should(ContainSubstring("Refunded 0.05 ETH"))
		Expect(p.overflowing()).To(BeEmpty(), "the outcome fits the phone")
		Expect(p.text("#outcome")).To(ContainSubstring("Less than the quoted amount arrived"))
		Expect(p.text("#status")).To(Equal("Refunded"))
		p.screenshot("4-refunded")
	})

	It("says what is wrong with an address for the wrong chain and creates no order", func() {
		p := newPage("validation", 1280, 900)
		p.quoteEthToSol()
		p.typeInto("#sender", ethAddress)
		p.typeInto("#recipient", ethAddress) // an Ethereum address for SOL on Solana
		p.click("#order-btn")
		Eventually(func() string { return p.text("#recipient-msg") }).Should(ContainSubstring("A Solana address is 32–44 base58 characters"))
		Expect(eval[string](p, `document.querySelector('#recipient').getAttribute('aria-invalid')`)).To(Equal("true"))
		Eventually(func() string { return eval[string](p, `document.activeElement.id`) }).Should(Equal("recipient"), "focus goes to the field to fix")
		Expect(eval[bool](p, `document.querySelector('#order-section').hidden`)).To(BeTrue())
		p.screenshot("1-bad-address")
	})

	It("throttles one user without slowing down another", func() {
		greedy := newPage("throttle", 1280, 900)
		statuses := eval[[]float64](greedy, fmt.Sprintf(`Promise.all(Array.from({length: %d}, () =>
			fetch('/api/address-check?asset=%s&address=x').then(r => r.status)))`, perSession+5, "eip155%3A1%2Fslip44%3A60"))
		Expect(statuses).To(ContainElement(429.0), "the greedy session is refused past its budget")
		greedy.choose("#from-asset", eth)
		greedy.choose("#to-asset", sol)
		greedy.typeInto("#amount", "0.1")
		greedy.click("#quote-btn")
		Eventually(func() string { return greedy.text("#error") }).Should(SatisfyAll(
			ContainSubstring("Too many requests right now."), MatchRegexp(`Wait \d+ seconds and try again.`)))
		Eventually(func() string { return greedy.text("#rates") }).Should(ContainSubstring("Too many requests right now."),
			"the rates preview says why it shows no rates, in full")
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

	It("counts down to the quotes' expiry, or to the page's own refresh (countdown.js in the browser)", func() {
		p := newPage("countdown", 800, 600)
		got := eval[[]string](p, `import('/countdown.js').then(({quoteDeadline, countdownText, REFRESH_MS}) => {
			const t0 = Date.parse('2026-01-01T00:00:00Z');
			const promised = quoteDeadline([{expiresAt: '2026-01-01T00:02:05Z'}, {expiresAt: '2026-01-01T00:01:30Z'}, {}], t0);
			const own = quoteDeadline([{}, {expiresAt: 'not a time'}], t0);
			return [
				countdownText(promised, t0), countdownText(promised, t0 + 89500), countdownText(promised, t0 + 90000),
				countdownText(own, t0), countdownText(own, t0 + REFRESH_MS - 1), countdownText(own, t0 + REFRESH_MS + 5000),
				String(promised.at - t0), String(own.at - t0),
			];
		})`)
		Expect(got).To(Equal([]string{
			"Quotes valid for 1:30", "Quotes valid for 0:01", "",
			"Quotes refresh in 0:30", "Quotes refresh in 0:01", "",
			"90000", "30000",
		}))
	})

	It("converts amounts exactly, both ways (units.js in the browser)", func() {
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
	})
})
