package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/internal/consumerapp"
	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/chromium"
)

// pageLoad is what the browser reports of one first visit to the swap page.
type pageLoad struct {
	FCP   float64 `json:"fcp"`   // first contentful paint, ms after navigation start
	Bytes float64 `json:"bytes"` // bytes over the wire: the page and everything it loaded until ready
}

// pageMetrics reads the Paint Timing and Resource Timing entries of the page once it is
// ready (its assets listed, the card drawn).
const pageMetrics = `(() => {
	const fcp = performance.getEntriesByName('first-contentful-paint')[0];
	const all = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
	return {fcp: fcp ? fcp.startTime : -1, bytes: all.reduce((n, e) => n + e.transferSize, 0)};
})()`

// Scenario 12: the swap page's first visit in headless Chromium through the DevTools
// protocol, against the app backed by this system: first contentful paint and the bytes
// transferred until the card is ready. Each round is a fresh browser context (empty cache,
// new session).
func (h *harness) swapPage(ctx context.Context, s *Scenario) error {
	app, err := consumerapp.New(consumerapp.Options{
		APIURL: h.env.FrontendURL, Key: upstream.Key{ID: h.env.KeyID, Secret: h.env.Secret}, Log: logr.Discard(),
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	appCtx, stopApp := context.WithCancel(ctx)
	defer stopApp()
	go func() { _ = app.Serve(appCtx, ln) }()

	dir, err := os.MkdirTemp("", "bench-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b, err := chromium.Start(ctx, dir, io.Discard) // Chromium's own log is noise here
	if err != nil {
		return fmt.Errorf("chromium: %w", err)
	}
	defer b.Stop()
	alloc, cancelAlloc := remote.NewAllocator(ctx, b.DevToolsURL())
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil {
		return err
	}

	url := "http://" + ln.Addr().String() + "/"
	// One visit first, not counted: the browser's own start-up (processes, caches of its own)
	// is not the page's.
	if _, err := firstVisit(browser, url); err != nil {
		return err
	}
	var fcp, kb []float64
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		load, err := firstVisit(browser, url)
		if err != nil {
			return err
		}
		fcp = append(fcp, load.FCP)
		kb = append(kb, load.Bytes/1024)
	}
	s.Setup = fmt.Sprintf("%d rounds after one uncounted visit, each a first visit in a fresh browser context (empty cache, new session) at 1280×900; "+
		"figures read through the DevTools protocol from the page's Paint Timing and Resource Timing entries once the card is ready", h.cfg.Rounds)
	s.info("first contentful paint", "ms", fcp)
	s.info("transfer size until the card is ready", "KiB", kb)
	return nil
}

func firstVisit(browser context.Context, url string) (pageLoad, error) {
	tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	defer cancel()
	if err := chromedp.Do(tab); err != nil {
		return pageLoad{}, err
	}
	ctx, cancelLoad := context.WithTimeout(tab, time.Minute)
	defer cancelLoad()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`))); err != nil {
		return pageLoad{}, err
	}
	load, err := chromedp.Run(ctx, chromedp.Evaluate[pageLoad](pageMetrics))
	if err == nil && load.FCP < 0 {
		err = fmt.Errorf("the page reported no first contentful paint")
	}
	return load, err
}
