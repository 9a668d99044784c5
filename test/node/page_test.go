package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	. "github.com/onsi/gomega"

	"github.com/swaprouter/swaprouter/internal/dev/localproc/chromium"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// browser is a headless Chromium (Debian's, through localproc) with one tab.
type browser struct {
	tab context.Context
}

func startBrowser(dir string, cleanup func(func())) (*browser, error) {
	log, err := os.Create(filepath.Join(dir, "chromium.log"))
	if err != nil {
		return nil, err
	}
	cleanup(func() { _ = log.Close() })
	b, err := chromium.Start(context.Background(), filepath.Join(dir, "chromium"), log)
	if err != nil {
		return nil, err
	}
	cleanup(b.Stop)
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), b.DevToolsURL())
	tab, cancelTab := chromedp.NewContext(alloc)
	cleanup(func() { cancelTab(); cancelAlloc() })
	// The tab lives as long as the context of its first action: open it without a deadline.
	if err := chromedp.Do(tab); err != nil {
		return nil, fmt.Errorf("attaching to Chromium at %s: %w", b.DevToolsURL(), err)
	}
	return &browser{tab: tab}, nil
}

func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.tab, 2*time.Minute)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

func (b *browser) eval(js string) (string, error) {
	ctx, cancel := context.WithTimeout(b.tab, 30*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
}

// text is an element's visible text ("" when it is missing or hidden).
func (b *browser) text(selector string) func() (string, error) {
	return func() (string, error) {
		return b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e && e.getClientRects().length ? e.innerText : ''; })()`, selector))
	}
}

// pick chooses a token in the page's picker as a user does: open, search, click.
func (b *browser) pick(g Gomega, side, search, asset string) {
	g.Expect(b.run(chromedp.Click(chromedp.CSS("#" + side + "-token")))).To(Succeed())
	g.Eventually(func() (string, error) { return b.eval(`String(document.querySelector('#picker').open)`) }).Should(Equal("true"))
	g.Expect(b.run(chromedp.SendKeys(chromedp.CSS("#picker-search"), search))).To(Succeed())
	g.Expect(b.run(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#picker-list button[data-asset=%q]`, asset))))).To(Succeed())
	g.Eventually(func() (string, error) { return b.eval(`String(document.querySelector('#picker').open)`) }).Should(Equal("false"))
}

// quotes loads the swap page at url and asks for 0.1 ETH to SOL, as a user does, until every
// route's quote shows with the best one marked.
func (b *browser) quotes(g Gomega, url string) {
	// Refused until kube-proxy has the Service's first ready endpoint.
	g.Eventually(func() error {
		return b.run(chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)))
	}).Should(Succeed())
	b.pick(g, "from", "eth", partnerapi.ETH)
	b.pick(g, "to", "sol", partnerapi.SOL)
	g.Expect(b.run(chromedp.SendKeys(chromedp.CSS("#amount"), "0.1"))).To(Succeed())
	g.Eventually(b.text("#candidates")).Should(And(ContainSubstring("NEAR Intents (simulated)"), ContainSubstring("Chainflip (simulated)")))
	g.Eventually(b.text("#rates")).Should(ContainSubstring("≈"), "the rates preview shows amounts")
	g.Expect(b.text("#candidates .badge")()).To(Equal("Best"))
}
